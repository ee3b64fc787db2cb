/*
Copyright 2026 The probewheel Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package prober

// These tests drive the real manager (AddPod, the scheduler, doProbe, the
// results managers) inside a testing/synctest bubble, so time is fake and
// every assertion on timing is exact and deterministic.

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/probe"
	"k8s.io/utils/exec"
	"k8s.io/utils/ptr"
)

// behaviour is what a fake exec probe of one container does.
type behaviour struct {
	result probe.Result
	hang   time.Duration // fake time the probe takes
	panics bool
}

// probeRecorder is an exec prober that records when each container was
// probed and how many probes ran at once.
type probeRecorder struct {
	mu          sync.Mutex
	runs        map[string][]time.Duration // container → start times since t0
	t0          time.Time
	inFlight    int
	maxInFlight int
	behave      map[string]behaviour
}

func newProbeRecorder() *probeRecorder {
	return &probeRecorder{runs: map[string][]time.Duration{}, behave: map[string]behaviour{}, t0: time.Now()}
}

func (p *probeRecorder) set(container string, b behaviour) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.behave[container] = b
}

func (p *probeRecorder) Probe(cmd exec.Cmd) (probe.Result, string, error) {
	name := cmd.(*execInContainer).container.Name
	p.mu.Lock()
	p.runs[name] = append(p.runs[name], time.Since(p.t0))
	p.inFlight++
	p.maxInFlight = max(p.maxInFlight, p.inFlight)
	b, ok := p.behave[name]
	p.mu.Unlock()
	if !ok {
		b.result = probe.Success
	}
	time.Sleep(b.hang)
	p.mu.Lock()
	p.inFlight--
	p.mu.Unlock()
	if b.panics {
		panic("probe handler panicked")
	}
	return b.result, "", nil
}

func (p *probeRecorder) starts(container string) []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.runs[container])
}

// recordingMetrics counts what the scheduler reports.
type recordingMetrics struct {
	mu          sync.Mutex
	skips       int
	lanes       [numLanes]int
	maxInFlight [numLanes]int
	maxLateness time.Duration
}

func (r *recordingMetrics) started(lateness, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.maxLateness = max(r.maxLateness, lateness)
}

func (r *recordingMetrics) inFlight(l lane, delta int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lanes[l] += delta
	r.maxInFlight[l] = max(r.maxInFlight[l], r.lanes[l])
}

func (r *recordingMetrics) capacity(lane, int) {}

func (r *recordingMetrics) skipped(_ probeType, runs int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.skips += runs
}

// harness is a manager in a synctest bubble with fake exec probes and a
// goroutine draining each results channel, as syncLoopIteration does.
type harness struct {
	t       *testing.T
	ctx     context.Context
	m       *manager
	probes  *probeRecorder
	metrics *recordingMetrics
	done    chan struct{}
	drained sync.WaitGroup

	mu      sync.Mutex
	updates map[probeType][]results.Update
	// paused readiness draining, to play a slow syncLoopIteration.
	readinessGate chan struct{}
	closed        bool
}

func newHarness(t *testing.T, limits *poolLimits) *harness {
	h := &harness{
		t:       t,
		ctx:     klog.NewContext(context.Background(), klog.Background()),
		m:       newTestManager(),
		probes:  newProbeRecorder(),
		metrics: &recordingMetrics{},
		done:    make(chan struct{}),
		updates: map[probeType][]results.Update{},
	}
	t.Cleanup(h.close) // runs inside the bubble, also after t.Fatal
	h.m.prober.exec = h.probes
	h.m.scheduler.metrics = h.metrics
	if limits != nil {
		h.m.scheduler.pool.limits = *limits
	}
	for pt, rm := range map[probeType]results.Manager{readiness: h.m.readinessManager, liveness: h.m.livenessManager, startup: h.m.startupManager} {
		h.drained.Add(1)
		go func() {
			defer h.drained.Done()
			for {
				if pt == readiness {
					h.mu.Lock()
					gate := h.readinessGate
					h.mu.Unlock()
					if gate != nil {
						select {
						case <-gate:
						case <-h.done:
							return
						}
					}
				}
				select {
				case u := <-rm.Updates():
					h.mu.Lock()
					h.updates[pt] = append(h.updates[pt], u)
					h.mu.Unlock()
				case <-h.done:
					return
				}
			}
		}()
	}
	return h
}

// addPod adds a running pod whose containers have the given probes; every
// container is started and its status is known to the status manager.
func (h *harness) addPod(uid string, containers ...v1.Container) *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: uid, Namespace: "ns"},
		Spec:       v1.PodSpec{Containers: containers},
	}
	status := v1.PodStatus{Phase: v1.PodRunning}
	for _, c := range containers {
		status.ContainerStatuses = append(status.ContainerStatuses, v1.ContainerStatus{
			Name:        c.Name,
			ContainerID: "test://" + uid + "/" + c.Name,
			State:       v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.Now()}},
			Started:     ptr.To(true),
		})
	}
	h.m.statusManager.SetPodStatus(klog.Background(), pod, status)
	h.m.AddPod(h.ctx, pod)
	return pod
}

// close removes every pod and waits until no goroutine of the manager is
// left; synctest.Test fails the test if one is.
func (h *harness) close() {
	if h.closed {
		return
	}
	h.closed = true
	h.m.CleanupPods(map[types.UID]sets.Empty{})
	// Running probes finish their run first; let fake time pass for them.
	for i := 0; h.m.workerCount() > 0 && i < 600; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	synctest.Wait()
	if n := h.m.workerCount(); n != 0 {
		h.t.Errorf("%d workers left after CleanupPods", n)
	}
	h.m.scheduler.mu.Lock()
	looping, filed := h.m.scheduler.looping, h.m.scheduler.wheel.len()
	h.m.scheduler.mu.Unlock()
	if looping || filed != 0 {
		h.t.Errorf("scheduler still looping=%v with %d timers after every pod was removed", looping, filed)
	}
	close(h.done)
	h.drained.Wait()
}

// containers returns n containers named c0…c<n-1>, each set up by probes.
func containers(n int, probes func(c *v1.Container, i int)) []v1.Container {
	cs := make([]v1.Container, n)
	for i := range cs {
		cs[i].Name = fmt.Sprint("c", i)
		probes(&cs[i], i)
	}
	return cs
}

func execProbe(period int32) *v1.Probe {
	return &v1.Probe{
		ProbeHandler:     v1.ProbeHandler{Exec: &v1.ExecAction{}},
		PeriodSeconds:    period,
		TimeoutSeconds:   1,
		SuccessThreshold: 1,
		FailureThreshold: 3,
	}
}

// afterStart moves fake time past the restart window, so that first
// probes run at once as they do on a kubelet that has been up a while.
func afterStart(h *harness, period time.Duration) {
	time.Sleep(period)
	h.probes.t0 = time.Now()
}

func intervals(starts []time.Duration) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(starts); i++ {
		out = append(out, starts[i]-starts[i-1])
	}
	return out
}

func TestSchedulerNoDriftOverManyPeriods(t *testing.T) {
	const periods = 10_000
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		afterStart(h, time.Second)
		h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(1)})
		time.Sleep(periods*time.Second - time.Millisecond)
		h.close()

		starts := h.probes.starts("c")
		if len(starts) != periods {
			t.Fatalf("%d runs in %d periods", len(starts), periods)
		}
		for i, d := range intervals(starts) {
			if d != time.Second {
				t.Fatalf("interval %d is %v, want exactly 1s", i, d)
			}
		}
		if last := starts[len(starts)-1]; last != (periods-1)*time.Second {
			t.Errorf("run %d started at %v: drifted", periods, last)
		}
	})
}

func TestSchedulerSkipsRunsWhileRunning(t *testing.T) {
	tests := []struct {
		name      string
		hang      time.Duration
		wantGap   time.Duration
		wantSkips int // over 4 runs
	}{
		{"finishes within the period", 900 * time.Millisecond, time.Second, 0},
		{"finishes exactly on the next due time", time.Second, time.Second, 0},
		{"overruns one due time", 1500 * time.Millisecond, 2 * time.Second, 3},
		{"overruns two due times", 2500 * time.Millisecond, 3 * time.Second, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, nil)
				afterStart(h, time.Second)
				h.probes.set("c", behaviour{result: probe.Success, hang: tc.hang})
				h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(1)})
				time.Sleep(3*tc.wantGap + tc.hang/2)
				h.close()

				starts := h.probes.starts("c")
				if len(starts) != 4 {
					t.Fatalf("%d runs, want 4: %v", len(starts), starts)
				}
				for _, d := range intervals(starts) {
					if d != tc.wantGap {
						t.Errorf("runs %v apart, want %v", d, tc.wantGap)
					}
				}
				if h.metrics.skips != tc.wantSkips {
					t.Errorf("%d skipped runs reported, want %d", h.metrics.skips, tc.wantSkips)
				}
				if h.probes.maxInFlight != 1 {
					t.Errorf("%d runs of one probe in flight at once", h.probes.maxInFlight)
				}
			})
		})
	}
}

func TestSchedulerManualTriggerRestartsPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		afterStart(h, 10*time.Second)
		h.probes.set("c", behaviour{result: probe.Failure})
		pod := h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(10)})
		time.Sleep(3 * time.Second)

		// The container is not ready, so UpdatePodStatus triggers a run.
		status, _ := h.m.statusManager.GetPodStatus(pod.UID)
		status = *status.DeepCopy() // as the kubelet's generated status, not the cache's
		h.m.UpdatePodStatus(h.ctx, pod, &status)
		time.Sleep(25*time.Second - time.Millisecond)
		h.close()

		want := []time.Duration{0, 3 * time.Second, 13 * time.Second, 23 * time.Second}
		if got := h.probes.starts("c"); !slices.Equal(got, want) {
			t.Errorf("runs at %v, want %v", got, want)
		}
	})
}

func TestSchedulerManualTriggerWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		afterStart(h, 10*time.Second)
		h.probes.set("c", behaviour{result: probe.Failure, hang: 2 * time.Second})
		pod := h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(10)})
		time.Sleep(time.Second)
		w, _ := h.m.getWorker(pod.UID, "c", readiness)
		if !w.trigger() {
			t.Fatal("first trigger while running refused")
		}
		if w.trigger() {
			t.Fatal("second trigger while one is pending accepted; upstream's channel holds one")
		}
		time.Sleep(13*time.Second - time.Millisecond)
		h.close()

		// The pending trigger runs when the first run ends (2s) and the
		// period restarts there.
		want := []time.Duration{0, 2 * time.Second, 12 * time.Second}
		if got := h.probes.starts("c"); !slices.Equal(got, want) {
			t.Errorf("runs at %v, want %v", got, want)
		}
	})
}

func TestSchedulerSpreadsFirstProbesAfterStart(t *testing.T) {
	const (
		probes  = 1000
		windows = 10
	)
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		cs := containers(probes, func(c *v1.Container, _ int) { c.LivenessProbe = execProbe(1) })
		h.addPod("p", cs...)
		time.Sleep(1500 * time.Millisecond)
		var counts [windows]int
		for _, c := range cs {
			starts := h.probes.starts(c.Name)
			if len(starts) == 0 || starts[0] >= time.Second {
				t.Fatalf("%s did not run in its first period: %v", c.Name, starts)
			}
			counts[starts[0]*windows/time.Second]++
		}
		h.close()
		for i, n := range counts {
			if share := probes / windows; n < share-2 || n > share+2 {
				t.Errorf("window %d of 100ms has %d first probes, want %d±2: %v", i, n, share, counts)
			}
		}
	})
}

func TestSchedulerFirstProbeIsImmediateAfterRestartWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		afterStart(h, 10*time.Second)
		h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(10)})
		synctest.Wait()
		if got := h.probes.starts("c"); !slices.Equal(got, []time.Duration{0}) {
			t.Errorf("first probe at %v, want at once", got)
		}
		h.close()
	})
}

func TestSchedulerPoolBound(t *testing.T) {
	tests := []struct {
		name   string
		limits poolLimits
		hang   time.Duration
	}{
		{"all probes hang", poolLimits{fast: 2, slow: 3, slowAfter: 10 * time.Millisecond}, 5 * time.Second},
		{"probes overrun the demotion threshold", poolLimits{fast: 4, slow: 4, slowAfter: 10 * time.Millisecond}, 50 * time.Millisecond},
		{"no slow lane", poolLimits{fast: 3, slow: 0, slowAfter: 10 * time.Millisecond}, time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, &tc.limits)
				afterStart(h, time.Second)
				h.addPod("p", containers(50, func(c *v1.Container, _ int) {
					h.probes.set(c.Name, behaviour{result: probe.Success, hang: tc.hang})
					c.LivenessProbe = execProbe(1)
				})...)
				time.Sleep(20 * time.Second)
				h.close()

				bound := tc.limits.fast + tc.limits.slow
				if h.probes.maxInFlight != bound {
					t.Errorf("at most %d probes ran at once, want the bound %d reached and never exceeded", h.probes.maxInFlight, bound)
				}
				if got := h.metrics.maxInFlight; got[fastLane] > tc.limits.fast || got[slowLane] > tc.limits.slow {
					t.Errorf("lanes reached %v, limits fast=%d slow=%d", got, tc.limits.fast, tc.limits.slow)
				}
			})
		})
	}
}

// TestSchedulerHungProbesDoNotDelayHealthyOnes hangs 10% of the probes until
// their timeout ×3 retries and checks that the healthy ones stay on their
// grid. The case without demotion shows that the test can tell.
func TestSchedulerHungProbesDoNotDelayHealthyOnes(t *testing.T) {
	tests := []struct {
		name      string
		limits    poolLimits
		wantExact bool
	}{
		{"default mechanism", poolLimits{fast: 4, slow: 64, slowAfter: 10 * time.Millisecond}, true},
		{"hung runs never leave the fast lane", poolLimits{fast: 4, slow: 64, slowAfter: time.Hour}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, &tc.limits)
				afterStart(h, time.Second)
				cs := containers(100, func(c *v1.Container, i int) {
					if i%10 == 0 {
						h.probes.set(c.Name, behaviour{result: probe.Failure, hang: 3 * time.Second})
					}
					c.ReadinessProbe = execProbe(1)
				})
				h.addPod("p", cs...)
				time.Sleep(30 * time.Second)
				h.close()

				var worst time.Duration
				for i, c := range cs {
					if i%10 == 0 {
						continue
					}
					starts := h.probes.starts(c.Name)
					if len(starts) < 25 {
						worst = max(worst, time.Hour)
						continue
					}
					for j, d := range intervals(starts) {
						if j >= 1 { // the first hung runs start in the fast lane
							worst = max(worst, (d - time.Second).Abs())
						}
					}
				}
				if exact := worst == 0; exact != tc.wantExact {
					t.Errorf("healthy probes' worst period error %v; want exact periods: %v", worst, tc.wantExact)
				}
			})
		})
	}
}

func TestSchedulerPanickingProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &poolLimits{fast: 1, slow: 1, slowAfter: 10 * time.Millisecond})
		afterStart(h, time.Second)
		h.probes.set("bad", behaviour{panics: true})
		h.addPod("p", v1.Container{Name: "bad", LivenessProbe: execProbe(1)}, v1.Container{Name: "good", LivenessProbe: execProbe(1)})
		time.Sleep(5*time.Second - time.Millisecond)
		h.close()
		for _, c := range []string{"bad", "good"} {
			if n := len(h.probes.starts(c)); n != 5 {
				t.Errorf("%s probed %d times in 5 periods, want 5", c, n)
			}
		}
	})
}

func TestSchedulerStop(t *testing.T) {
	tests := []struct {
		name string
		hang time.Duration
		stop time.Duration // after AddPod
	}{
		{"idle", 0, 500 * time.Millisecond},
		{"running", 2 * time.Second, 500 * time.Millisecond},
		{"before the first run", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, nil)
				afterStart(h, time.Second)
				h.probes.set("c", behaviour{result: probe.Success, hang: tc.hang})
				pod := h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(1), ReadinessProbe: execProbe(1)})
				time.Sleep(tc.stop)
				h.m.RemovePod(pod)
				h.m.RemovePod(pod)
				time.Sleep(tc.hang)
				synctest.Wait()
				if n := h.m.workerCount(); n != 0 {
					t.Errorf("%d workers after RemovePod", n)
				}
				id := kubecontainer.ParseContainerID("test://p/c")
				for _, rm := range []results.Manager{h.m.livenessManager, h.m.readinessManager} {
					if _, ok := rm.Get(id); ok {
						t.Error("result still cached after the worker stopped")
					}
				}
				time.Sleep(10 * time.Second)
				if n := len(h.probes.starts("c")); n > 2 {
					t.Errorf("probed %d times after RemovePod", n)
				}
				h.close()
			})
		})
	}
}

func TestSchedulerBadProbeSpecs(t *testing.T) {
	tests := []struct {
		name       string
		mutate     func(*v1.Probe)
		wantPeriod time.Duration
	}{
		{"zero period", func(p *v1.Probe) { p.PeriodSeconds = 0 }, 10 * time.Second},
		{"negative period", func(p *v1.Probe) { p.PeriodSeconds = -5 }, 10 * time.Second},
		{"absurd period", func(p *v1.Probe) { p.PeriodSeconds = math.MaxInt32 }, 10 * time.Second},
		{"zero timeout and thresholds", func(p *v1.Probe) { p.TimeoutSeconds, p.SuccessThreshold, p.FailureThreshold = 0, 0, -1 }, time.Second},
		{"absurd timeout", func(p *v1.Probe) { p.TimeoutSeconds = math.MaxInt32 }, time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, nil)
				afterStart(h, 10*time.Second)
				p := execProbe(1)
				tc.mutate(p)
				h.addPod("p", v1.Container{Name: "c", LivenessProbe: p})
				time.Sleep(3*tc.wantPeriod - time.Millisecond)
				w, ok := h.m.getWorker("p", "c", liveness)
				if !ok {
					t.Fatal("no worker")
				}
				if s := w.spec; s.PeriodSeconds <= 0 || s.TimeoutSeconds <= 0 || s.TimeoutSeconds > maxProbeSeconds ||
					s.SuccessThreshold <= 0 || s.FailureThreshold <= 0 || s != w.container.LivenessProbe {
					t.Errorf("spec not sanitized where the prober reads it: %+v", s)
				}
				if len(w.specFixes) == 0 {
					t.Error("no fix recorded to log")
				}
				h.close()
				want := []time.Duration{0, tc.wantPeriod, 2 * tc.wantPeriod}
				if got := h.probes.starts("c"); !slices.Equal(got, want) {
					t.Errorf("runs at %v, want %v", got, want)
				}
			})
		})
	}
}

// TestSchedulerSlowSyncLoop plays a syncLoopIteration that stops reading
// readiness updates: the Sets of changing readiness probes block, which must
// neither stall the liveness probes nor lose a transition.
func TestSchedulerSlowSyncLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &poolLimits{fast: 4, slow: 64, slowAfter: 10 * time.Millisecond})
		afterStart(h, time.Second)
		gate := make(chan struct{})
		h.mu.Lock()
		h.readinessGate = gate
		h.mu.Unlock()
		var cs []v1.Container
		for i := range 40 {
			cs = append(cs, v1.Container{Name: fmt.Sprint("r", i), ReadinessProbe: execProbe(1)})
		}
		for i := range 10 {
			cs = append(cs, v1.Container{Name: fmt.Sprint("l", i), LivenessProbe: execProbe(1)})
		}
		h.addPod("p", cs...)
		time.Sleep(10*time.Second - time.Millisecond)
		for i := range 10 {
			name := fmt.Sprint("l", i)
			if n := len(h.probes.starts(name)); n != 10 {
				t.Errorf("liveness probe %s ran %d times in 10 periods while readiness updates were stuck", name, n)
			}
		}
		h.mu.Lock()
		h.readinessGate = nil
		h.mu.Unlock()
		close(gate)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		h.mu.Lock()
		got := len(h.updates[readiness])
		h.mu.Unlock()
		// Each readiness probe goes Failure (initial) → Success.
		if got != 2*40 {
			t.Errorf("%d readiness updates, want %d", got, 2*40)
		}
		h.close()
	})
}

func TestSchedulerGoroutinesDoNotGrowWithProbes(t *testing.T) {
	const pods = 5000
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		synctest.Wait()
		before := runtime.NumGoroutine()
		for i := range pods {
			h.addPod(fmt.Sprint("pod", i), v1.Container{
				Name:           "c",
				LivenessProbe:  execProbe(10),
				ReadinessProbe: execProbe(10),
				StartupProbe:   execProbe(10),
			})
		}
		time.Sleep(25 * time.Second)
		synctest.Wait()
		if n := h.m.workerCount(); n != 3*pods {
			t.Fatalf("%d workers, want %d", n, 3*pods)
		}
		if n := len(h.probes.starts("c")); n < 2*pods {
			t.Errorf("only %d probe runs", n)
		}
		// The constant: the scheduler's loop and at most maxIdle parked executors.
		if grown, bound := runtime.NumGoroutine()-before, 1+h.m.scheduler.maxIdle; grown > bound {
			t.Errorf("%d probes left %d more goroutines while idle, want a constant ≤ %d", 3*pods, grown, bound)
		}
		h.close()
	})
}

func TestAddPodContinuesPastExistingWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{UID: "p", Name: "p"},
			Spec: v1.PodSpec{Containers: []v1.Container{
				{Name: "a", StartupProbe: execProbe(1)},
				{Name: "b", ReadinessProbe: execProbe(1)},
			}},
		}
		onlyA := pod.DeepCopy()
		onlyA.Spec.Containers = onlyA.Spec.Containers[:1]
		h.m.AddPod(h.ctx, onlyA)
		h.m.AddPod(h.ctx, pod)
		if _, ok := h.m.getWorker("p", "b", readiness); !ok {
			t.Error("AddPod stopped at the existing worker of container a and skipped container b")
		}
		h.close()
	})
}
