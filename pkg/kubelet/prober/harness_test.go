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

// The scheduler's tests drive the real manager (AddPod, the scheduler,
// doProbe, the results managers) inside testing/synctest bubbles, so time is
// fake and every assertion on timing is exact and deterministic. This file
// holds what they share.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
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
// probed, with which timeout, and how many probes ran at once. It runs the
// command through the prober's runner, as the real exec prober does.
type probeRecorder struct {
	mu          sync.Mutex
	runs        map[string][]time.Duration // container → start times since t0
	timeouts    map[string]time.Duration   // container → last timeout the runner got
	t0          time.Time
	inFlight    int
	maxInFlight int
	behave      map[string]behaviour
}

func newProbeRecorder() *probeRecorder {
	return &probeRecorder{
		runs:     map[string][]time.Duration{},
		timeouts: map[string]time.Duration{},
		behave:   map[string]behaviour{},
		t0:       time.Now(),
	}
}

func (p *probeRecorder) set(container string, b behaviour) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.behave[container] = b
}

func (p *probeRecorder) Probe(cmd exec.Cmd) (probe.Result, string, error) {
	name := cmd.(*execInContainer).containerName
	p.mu.Lock()
	p.runs[name] = append(p.runs[name], time.Since(p.t0))
	p.inFlight++
	p.maxInFlight = max(p.maxInFlight, p.inFlight)
	b, ok := p.behave[name]
	p.mu.Unlock()
	if !ok {
		b.result = probe.Success
	}
	_, _ = cmd.CombinedOutput() // the runner records the timeout
	time.Sleep(b.hang)
	p.mu.Lock()
	p.inFlight--
	p.mu.Unlock()
	if b.panics {
		panic("probe handler panicked")
	}
	return b.result, "", nil
}

// RunInContainer is the prober's CommandRunner.
func (p *probeRecorder) RunInContainer(_ context.Context, id kubecontainer.ContainerID, _ []string, timeout time.Duration) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timeouts[id.ID[strings.LastIndex(id.ID, "/")+1:]] = timeout // IDs are test://<pod>/<container>
	return nil, nil
}

func (p *probeRecorder) starts(container string) []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.runs[container])
}

// recordingMetrics counts what the scheduler reports.
type recordingMetrics struct {
	mu          sync.Mutex
	skips       int64
	maxLateness time.Duration
}

func (r *recordingMetrics) started(lateness time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.maxLateness = max(r.maxLateness, lateness)
}

func (r *recordingMetrics) skipped(_ probeType, ticks int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.skips += ticks
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
	updates map[probeType][]timedUpdate
	// paused readiness draining, to play a slow syncLoopIteration.
	readinessGate chan struct{}
	closed        bool
}

// timedUpdate is an update from a results channel and when it was read.
type timedUpdate struct {
	results.Update
	at time.Duration // since probes.t0
}

// newHarness builds the harness around a timer-wheel scheduler, whatever
// the ProbeTimerWheel gate says.
func newHarness(t *testing.T) *harness { return newHarnessWith(t, true) }

// newHarnessWith builds the harness; wheel false keeps the mode NewManager
// chose from the ProbeTimerWheel gate.
func newHarnessWith(t *testing.T, wheel bool) *harness {
	h := &harness{
		t:       t,
		ctx:     klog.NewContext(context.Background(), klog.Background()),
		m:       newTestManager(),
		probes:  newProbeRecorder(),
		metrics: &recordingMetrics{},
		done:    make(chan struct{}),
		updates: map[probeType][]timedUpdate{},
	}
	t.Cleanup(h.close) // runs inside the bubble, also after t.Fatal
	h.m.prober.exec = h.probes
	h.m.prober.runner = h.probes
	if wheel {
		h.m.scheduler = newScheduler(h.metrics, h.m.start)
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
					h.updates[pt] = append(h.updates[pt], timedUpdate{u, time.Since(h.probes.t0)})
					h.mu.Unlock()
				case <-h.done:
					return
				}
			}
		}()
	}
	return h
}

// pauseReadiness stops reading readiness updates until the returned
// function is called.
func (h *harness) pauseReadiness() (resume func()) {
	gate := make(chan struct{})
	h.mu.Lock()
	h.readinessGate = gate
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		h.readinessGate = nil
		h.mu.Unlock()
		close(gate)
	}
}

func (h *harness) updatesOf(pt probeType) []timedUpdate {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.updates[pt])
}

// resultTimes returns when the updates of one probe type with result r were read.
func (h *harness) resultTimes(pt probeType, r results.Result) []time.Duration {
	var at []time.Duration
	for _, u := range h.updatesOf(pt) {
		if u.Result == r {
			at = append(at, u.at)
		}
	}
	return at
}

// addPod adds a running pod whose containers have the given probes; every
// container is started and its status is known to the status manager.
func (h *harness) addPod(uid string, containers ...v1.Container) *v1.Pod {
	pod := podWith(uid, containers...)
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

// updatePodStatus plays the kubelet's status sync for pod, which triggers a
// manual readiness run of every container that is not ready.
func (h *harness) updatePodStatus(pod *v1.Pod) {
	status, _ := h.m.statusManager.GetPodStatus(pod.UID)
	status = *status.DeepCopy() // as the kubelet's generated status, not the cache's
	h.m.UpdatePodStatus(h.ctx, pod, &status)
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
	if s := h.m.scheduler; s != nil {
		s.mu.Lock()
		_, filed := s.wheel.next()
		looping, running, ready := s.looping, s.running, len(s.ready)
		s.mu.Unlock()
		s.exec.mu.Lock()
		queued, spinning, idle := len(s.exec.queue)-s.exec.head, s.exec.spinning, len(s.exec.idle)
		s.exec.mu.Unlock()
		if looping || filed || running+ready+queued != 0 || spinning != 0 || idle != 0 {
			h.t.Errorf("scheduler still looping=%v, timers filed=%v, %d runs in flight, %d ready, %d spinning and %d parked executors after every pod was removed",
				looping, filed, running, ready+queued, spinning, idle)
		}
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

// secs is shorthand for durations in whole and fractional seconds.
func secs(ss ...float64) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = time.Duration(math.Round(s * float64(time.Second)))
	}
	return out
}
