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

// Timing: when runs start, as upstream's ticker, trigger and stop channels
// decide it. bench/parity runs the same cases against upstream's package.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/probe"
)

func TestSchedulerNoDriftOverManyPeriods(t *testing.T) {
	const periods = 10_000
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
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
	})
}

// TestSchedulerRunsOfATickStartTogether: every run starts on the first tick
// at or after its due time, the first one included, so runs due within one
// tick start together (schedulerTick: that is how they share a wake-up),
// none before it is due, and a worker's intervals are exactly its period.
// The pods' offsets are relative to a tick boundary.
func TestSchedulerRunsOfATickStartTogether(t *testing.T) {
	for _, tc := range []struct {
		name         string
		aAt, bAt     time.Duration // when pods a and b are added, past a tick boundary
		wantTogether bool
	}{
		{"both within one tick", time.Millisecond, 3 * time.Millisecond, true},
		{"a on the boundary, b within the tick after it", 0, schedulerTick - time.Millisecond, false},
		{"in neighbouring ticks", time.Millisecond, schedulerTick + time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
				afterStart(h, time.Second) // t0 is on a tick
				time.Sleep(schedulerTick + tc.aAt)
				addedA := time.Since(h.probes.t0)
				h.addPod("pa", v1.Container{Name: "a", LivenessProbe: execProbe(1)})
				time.Sleep(tc.bAt - tc.aAt)
				addedB := time.Since(h.probes.t0)
				h.addPod("pb", v1.Container{Name: "b", LivenessProbe: execProbe(1)})
				time.Sleep(5 * time.Second)
				h.close()

				a, b := h.probes.starts("a"), h.probes.starts("b")
				if len(a) < 5 || len(b) < 5 {
					t.Fatalf("runs: a %v, b %v; want at least 5 each", a, b)
				}
				for j, s := range [][]time.Duration{a, b} {
					added := []time.Duration{addedA, addedB}[j]
					if want := time.Duration(ceilTick(added)) * schedulerTick; s[0] != want {
						t.Errorf("added at %v: first run at %v, want it on the next tick, %v", added, s[0], want)
					}
					for i, d := range intervals(s) {
						if d != time.Second {
							t.Errorf("interval %d is %v, want exactly 1s (runs %v)", i, d, s)
						}
					}
				}
				if together := a[0] == b[0]; together != tc.wantTogether {
					t.Errorf("first runs at %v and %v; want them together: %v", a[0], b[0], tc.wantTogether)
				}
			})
		})
	}
}

// TestSchedulerRunsAgainAfterAnOverrun: upstream's ticker keeps one tick for
// a worker that is busy, so a run that outlasts its period is followed at
// once by the next; further ticks that fall meanwhile are dropped.
func TestSchedulerRunsAgainAfterAnOverrun(t *testing.T) {
	tests := []struct {
		name        string
		hang        time.Duration
		want        []time.Duration
		wantDropped int64
	}{
		{"finishes within the period", 900 * time.Millisecond, secs(0, 1, 2, 3, 4), 0},
		{"finishes exactly on the next tick", time.Second, secs(0, 1, 2, 3, 4), 0},
		{"overruns one tick", 1500 * time.Millisecond, secs(0, 1.5, 3, 4.5, 6), 2},
		{"ends on a tick two periods later", 2 * time.Second, secs(0, 2, 4, 6, 8), 4},
		{"overruns two ticks", 2500 * time.Millisecond, secs(0, 2.5, 5, 7.5, 10), 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
				afterStart(h, time.Second)
				h.probes.set("c", behaviour{result: probe.Success, hang: tc.hang})
				h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(1)})
				time.Sleep(tc.want[len(tc.want)-1] + tc.hang/2)
				h.close()

				if got := h.probes.starts("c"); !slices.Equal(got, tc.want) {
					t.Errorf("runs at %v, want %v", got, tc.want)
				}
				if h.metrics.skips != tc.wantDropped {
					t.Errorf("%d dropped ticks reported, want %d", h.metrics.skips, tc.wantDropped)
				}
				if h.probes.maxInFlight != 1 {
					t.Errorf("%d runs of one probe in flight at once", h.probes.maxInFlight)
				}
			})
		})
	}
}

// TestSchedulerOverrunDoesNotDelayFailures: a liveness probe that takes 1.5 s
// on a 1 s period with failureThreshold 3 fails at 4.5 s, as upstream's does.
func TestSchedulerOverrunDoesNotDelayFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		afterStart(h, time.Second)
		h.probes.set("c", behaviour{result: probe.Failure, hang: 1500 * time.Millisecond})
		h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(1)})
		time.Sleep(5 * time.Second)
		h.close()

		if failedAt, want := h.resultTimes(liveness, results.Failure), secs(4.5); !slices.Equal(failedAt, want) {
			t.Errorf("liveness failure reported at %v, want %v", failedAt, want)
		}
	})
}

func TestSchedulerManualTriggerRestartsPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		afterStart(h, 10*time.Second)
		h.probes.set("c", behaviour{result: probe.Failure})
		pod := h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(10)})
		time.Sleep(3 * time.Second)
		h.updatePodStatus(pod) // not ready: triggers a run
		time.Sleep(25*time.Second - time.Millisecond)
		h.close()

		if got, want := h.probes.starts("c"), secs(0, 3, 13, 23); !slices.Equal(got, want) {
			t.Errorf("runs at %v, want %v", got, want)
		}
	})
}

func TestSchedulerManualTriggerWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		afterStart(h, 10*time.Second)
		h.probes.set("c", behaviour{result: probe.Failure, hang: 2 * time.Second})
		pod := h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(10)})
		time.Sleep(time.Second)
		h.updatePodStatus(pod)
		time.Sleep(13*time.Second - time.Millisecond)
		h.close()

		// The pending trigger runs when the first run ends (2s) and the
		// period restarts there.
		if got, want := h.probes.starts("c"), secs(0, 2, 12); !slices.Equal(got, want) {
			t.Errorf("runs at %v, want %v", got, want)
		}
	})
}

// TestSchedulerTriggerTakenBeforeAPendingTick: after a run during which a
// tick and a trigger both came, the trigger is taken and drops the tick, as
// when upstream's select picks the trigger (doc.go); upstream may also take
// the tick first and then run again for the trigger at the same instant.
func TestSchedulerTriggerTakenBeforeAPendingTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		afterStart(h, time.Second)
		h.probes.set("c", behaviour{result: probe.Failure, hang: 1500 * time.Millisecond})
		pod := h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(1)})
		time.Sleep(500 * time.Millisecond)
		h.probes.set("c", behaviour{result: probe.Failure}) // only the first run is slow
		h.updatePodStatus(pod)
		time.Sleep(3200 * time.Millisecond) // stop between ticks, not at one
		h.close()
		if got, want := h.probes.starts("c"), secs(0, 1.5, 2.5, 3.5); !slices.Equal(got, want) {
			t.Errorf("runs at %v, want %v", got, want)
		}
	})
}

// TestSchedulerTriggerIsOneSlot: trigger answers as a non-blocking send on
// upstream's one-slot manualTriggerCh: false only while a trigger waits.
func TestSchedulerTriggerIsOneSlot(t *testing.T) {
	tests := []struct {
		name string
		// setup brings the readiness worker of container "c" into the state
		// under test and returns it.
		setup func(h *harness) *worker
		// settle: the second trigger comes once the first one's run started
		// (synctest.Wait), at the same instant; otherwise it comes at once,
		// whether or not an executor took that run meanwhile.
		settle bool
		want   [2]bool // what two triggers in a row report
		// wantStarts are c's runs in the first 6 s.
		wantStarts []time.Duration
	}{
		// The first trigger's run starts at once; a second trigger at the
		// same instant, once the first run has begun (here it has ended too),
		// runs the probe again, as upstream's worker would.
		{"idle", func(h *harness) *worker {
			afterStart(h, 10*time.Second)
			h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(10)})
			time.Sleep(time.Second)
			return readinessWorker(h)
		}, true, [2]bool{true, true}, secs(0, 1, 1)},
		{"running", func(h *harness) *worker {
			afterStart(h, 10*time.Second)
			h.probes.set("c", behaviour{hang: 2 * time.Second})
			h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(10)})
			time.Sleep(time.Second)
			return readinessWorker(h)
		}, false, [2]bool{true, false}, secs(0, 2)},
		{"due, waiting for its tick", func(h *harness) *worker {
			afterStart(h, 10*time.Second)
			time.Sleep(time.Millisecond) // off a tick: the runs due at 0.001 s + k s start at 0.004 s + k s
			h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(1)})
			time.Sleep(time.Second)
			return readinessWorker(h)
			// At 1.002 s c's run due at 1.001 s waits for its tick: the
			// trigger runs right after it, at 1.004 s, restarting the period.
		}, false, [2]bool{true, false}, secs(0.004, 1.004, 1.004, 2.004, 3.004, 4.004, 5.004)},
		{"before the first run", func(h *harness) *worker {
			// Within the restart window the first run is spread over the
			// period: at 5 s with this seed. The trigger runs right after it.
			h.m.spread.seed = 0.5
			h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(10)})
			return readinessWorker(h)
		}, false, [2]bool{true, false}, secs(5, 5)},
		{"stopped", func(h *harness) *worker {
			afterStart(h, 10*time.Second)
			pod := h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(10)})
			time.Sleep(time.Second)
			w := readinessWorker(h)
			h.m.RemovePod(pod)
			synctest.Wait()
			return w
		}, false, [2]bool{true, false}, secs(0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
				w := tc.setup(h)
				var got [2]bool
				got[0] = w.trigger()
				if tc.settle {
					synctest.Wait()
				}
				got[1] = w.trigger()
				if got != tc.want {
					t.Errorf("two triggers reported %v, want %v", got, tc.want)
				}
				time.Sleep(6*time.Second - time.Since(h.probes.t0))
				h.close()
				if got := h.probes.starts("c"); !slices.Equal(got, tc.wantStarts) {
					t.Errorf("runs at %v, want %v", got, tc.wantStarts)
				}
			})
		})
	}
}

func readinessWorker(h *harness) *worker { return readinessWorkerOf(h, "p", "c") }

func readinessWorkerOf(h *harness, pod types.UID, container string) *worker {
	w, ok := h.m.getWorker(pod, container, readiness)
	if !ok {
		h.t.Fatalf("no readiness worker for container %s of pod %s", container, pod)
	}
	return w
}

// TestSchedulerTriggerAtTheInstantOfATick: a manual trigger that lands at
// the instant a tick is due comes after the tick, whether or not the tick's
// run has begun: the probe runs twice at that instant, as upstream's worker
// does when it takes the tick first (its select may also take the trigger
// first and run once). With successThreshold 2 the container is ready there.
func TestSchedulerTriggerAtTheInstantOfATick(t *testing.T) {
	for _, settle := range []bool{false, true} {
		name := "trigger as the tick fires"
		if settle {
			name = "trigger after the tick's run ended"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
				afterStart(h, 10*time.Second)
				p := execProbe(10)
				p.SuccessThreshold = 2
				h.probes.set("c", behaviour{result: probe.Failure})
				pod := h.addPod("p", v1.Container{Name: "c", ReadinessProbe: p})
				time.Sleep(5 * time.Second)
				h.probes.set("c", behaviour{result: probe.Success})
				time.Sleep(5 * time.Second) // the tick at 10 s is due now
				if settle {
					synctest.Wait()
				}
				h.updatePodStatus(pod)
				time.Sleep(15 * time.Second)
				h.close()

				if got, want := h.probes.starts("c"), secs(0, 10, 10, 20); !slices.Equal(got, want) {
					t.Errorf("runs at %v, want %v", got, want)
				}
				if readyAt, want := h.resultTimes(readiness, results.Success), secs(10); !slices.Equal(readyAt, want) {
					t.Errorf("ready at %v, want %v", readyAt, want)
				}
			})
		})
	}
}

// TestSchedulerManualRunIsLogged: upstream logs each manual run at V(4).
func TestSchedulerManualRunIsLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(4), ktesting.BufferLogs(true)))
		h.ctx = klog.NewContext(h.ctx, logger)
		afterStart(h, 10*time.Second)
		h.probes.set("c", behaviour{result: probe.Failure})
		pod := h.addPod("p", v1.Container{Name: "c", ReadinessProbe: execProbe(10)})
		time.Sleep(time.Second)
		h.updatePodStatus(pod)
		synctest.Wait()
		h.close()
		logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
		if n := strings.Count(logs, "Triggered Probe by manual run"); n != 1 {
			t.Errorf("%d manual-run log lines, want 1:\n%s", n, logs)
		}
	})
}

func TestSchedulerSpreadsFirstProbesAfterStart(t *testing.T) {
	const (
		probes  = 1000
		windows = 10
	)
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
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
		h := newHarness(t)
		afterStart(h, 10*time.Second)
		h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(10)})
		synctest.Wait()
		if got := h.probes.starts("c"); !slices.Equal(got, []time.Duration{0}) {
			t.Errorf("first probe at %v, want at once", got)
		}
		h.close()
	})
}

func TestSchedulerStop(t *testing.T) {
	tests := []struct {
		name      string
		hang      time.Duration
		stop      time.Duration // after AddPod
		restarted bool          // within the restart window: first runs are spread
		period    int32
		want      []time.Duration
	}{
		{"idle", 0, 500 * time.Millisecond, false, 10, secs(0, 0)},
		{"running", 2 * time.Second, 500 * time.Millisecond, false, 10, secs(0, 0)},
		// The stop is taken before the tick that fell during the run (doc.go).
		{"running past a tick", 1500 * time.Millisecond, 500 * time.Millisecond, false, 1, secs(0, 0)},
		{"at once", 0, 0, false, 10, secs(0, 0)},
		// Upstream's worker sees the stop only after its first doProbe, which
		// comes after its start-up sleep: here at 1.18 s (liveness) and 5 s
		// (readiness) of the period.
		{"before the first run", 0, 0, true, 10, secs(1.18, 5)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
				if !tc.restarted {
					afterStart(h, 10*time.Second)
				}
				h.m.spread.seed = 0.5
				h.probes.set("c", behaviour{result: probe.Success, hang: tc.hang})
				pod := h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(tc.period), ReadinessProbe: execProbe(tc.period)})
				time.Sleep(tc.stop)
				h.m.RemovePod(pod)
				h.m.RemovePod(pod)
				time.Sleep(10 * time.Second)
				synctest.Wait()
				if n := h.m.workerCount(); n != 0 {
					t.Errorf("%d workers after RemovePod", n)
				}
				id := kubecontainer.ContainerID{Type: "test", ID: "p/c"}
				for _, rm := range []results.Manager{h.m.livenessManager, h.m.readinessManager} {
					if _, ok := rm.Get(id); ok {
						t.Error("result still cached after the worker stopped")
					}
				}
				if got := h.probes.starts("c"); !slices.Equal(got, tc.want) {
					t.Errorf("the two probes ran at %v, want %v", got, tc.want)
				}
				h.close()
			})
		})
	}
}

// TestSchedulerAddPodWhileAWorkerLeaves: a stop that comes after a due time
// (1.002 s; the run due at 1.001 s starts on the tick at 1.004 s) waits for
// that run, and the worker is in the map until the run ends, as the oracle's
// (bench/oracle) is: an AddPod before then skips the container, one after it
// creates a worker, which probes on the next tick.
func TestSchedulerAddPodWhileAWorkerLeaves(t *testing.T) {
	tests := []struct {
		name        string
		hang, addAt time.Duration
		want        []time.Duration
	}{
		{"before the run, which takes no time", 0, 1003 * time.Millisecond, secs(0.004, 1.004)},
		{"during the run", 500 * time.Millisecond, 1003 * time.Millisecond, secs(0.004, 1.004)},
		{"after the run", 500 * time.Millisecond, 1505 * time.Millisecond, secs(0.004, 1.004, 1.508, 2.508)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
				afterStart(h, 10*time.Second)
				start := time.Now()
				at := func(d time.Duration) { time.Sleep(d - time.Since(start)) }
				h.probes.set("c", behaviour{result: probe.Success, hang: tc.hang})
				at(time.Millisecond) // off a tick: due times fall 3 ms before their ticks
				pod := h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(1)})
				at(1002 * time.Millisecond)
				h.m.StopLivenessAndStartup(pod)
				at(tc.addAt)
				h.m.AddPod(h.ctx, pod)
				at(2600 * time.Millisecond)
				synctest.Wait()
				if n, want := h.m.workerCount(), map[bool]int{true: 1, false: 0}[len(tc.want) > 2]; n != want {
					t.Errorf("%d workers at 2.6 s, want %d", n, want)
				}
				if got := h.probes.starts("c"); !slices.Equal(got, tc.want) {
					t.Errorf("runs at %v, want %v", got, tc.want)
				}
				h.close()
			})
		})
	}
}

// TestSchedulerNeverReturningProbe: a run that does not return (here for an
// hour, beyond every step of the test) holds its worker, and the worker its
// place in the map: every RemovePod and AddPod of the pod meanwhile finds it,
// as upstream's (and the oracle's) AddPod does, and nothing else is held.
func TestSchedulerNeverReturningProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		afterStart(h, 10*time.Second)
		h.probes.set("c", behaviour{result: probe.Success, hang: time.Hour})
		pod := h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(1)})
		for range 5 {
			time.Sleep(time.Second)
			h.m.RemovePod(pod)
			h.m.AddPod(h.ctx, pod)
		}
		synctest.Wait()
		h.m.scheduler.mu.Lock()
		workers := h.m.scheduler.workers
		h.m.scheduler.mu.Unlock()
		if n := h.m.workerCount(); n != 1 || workers != 1 {
			t.Errorf("%d workers in the map, %d in the scheduler, want 1 and 1", n, workers)
		}
		time.Sleep(time.Hour) // the run ends, the stop is taken
		h.close()
	})
}

// TestSchedulerAcceptsEveryValidSpec: the API server bounds no period or
// timeout from above, and every value it accepts behaves as upstream's. Only
// a period that is not positive, which upstream would panic on, is replaced.
func TestSchedulerAcceptsEveryValidSpec(t *testing.T) {
	tests := []struct {
		name        string
		mutate      func(*v1.Probe)
		wantStarts  []time.Duration
		wantTimeout time.Duration
	}{
		{"a day and more", func(p *v1.Probe) { p.PeriodSeconds = 90_000 }, secs(0, 90_000, 180_000), time.Second},
		{"largest period", func(p *v1.Probe) { p.PeriodSeconds = math.MaxInt32 }, secs(0), time.Second},
		{"huge timeout", func(p *v1.Probe) { p.TimeoutSeconds = 100_000 }, secs(0, 1, 2), 100_000 * time.Second},
		{"zero timeout", func(p *v1.Probe) { p.TimeoutSeconds = 0 }, secs(0, 1, 2), 0},
		{"zero period", func(p *v1.Probe) { p.PeriodSeconds = 0 }, secs(0, 10, 20), time.Second},
		{"negative period", func(p *v1.Probe) { p.PeriodSeconds = -5 }, secs(0, 10, 20), time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
				afterStart(h, math.MaxInt32*time.Second) // no spreading of first runs for any period
				p := execProbe(1)
				tc.mutate(p)
				spec := *p
				h.addPod("p", v1.Container{Name: "c", LivenessProbe: p})
				time.Sleep(tc.wantStarts[len(tc.wantStarts)-1] + time.Second/2)
				if *p != spec {
					t.Errorf("probe spec changed to %+v", *p)
				}
				h.close()
				if got := h.probes.starts("c"); !slices.Equal(got, tc.wantStarts) {
					t.Errorf("runs at %v, want %v", got, tc.wantStarts)
				}
				if got := h.probes.timeouts["c"]; got != tc.wantTimeout {
					t.Errorf("exec timeout %v, want %v", got, tc.wantTimeout)
				}
			})
		})
	}
}

func TestSchedulerPanickingProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
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

func TestSchedulerGoroutinesDoNotGrowWithProbes(t *testing.T) {
	const pods = 5000
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		synctest.Wait()
		before := bubbleGoroutines()
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
		if grown, bound := bubbleGoroutines()-before, 1+h.m.scheduler.exec.maxIdle; grown > bound {
			t.Errorf("%d probes left %d more goroutines while idle, want a constant ≤ %d", 3*pods, grown, bound)
		}
		h.close()
	})
}

// TestWorkerFitsItsSizeClass: an idle probe costs its worker struct (doc.go),
// which the Go allocator rounds up to a size class: 384 bytes on 64-bit
// platforms, where the next class is 416.
func TestWorkerFitsItsSizeClass(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("size classes checked on 64-bit platforms")
	}
	if size := unsafe.Sizeof(worker{}); size > 384 {
		t.Errorf("a worker takes %d bytes: over the 384-byte size class, every probe costs the next class's 416", size)
	}
}

// TestSchedulerClockFromAnotherBubble: a manager made outside the synctest
// bubbles that use it, as upstream's
// TestAddRemovePodsWithRestartableInitContainer does. A bubble's clock reads
// before the manager's start, and each bubble's starts at the same instant,
// behind the ticks the wheel advanced to in the one before: runs must still
// fall due on ticks the wheel has not passed, and workers exit.
func TestSchedulerClockFromAnotherBubble(t *testing.T) {
	m := newTestManager()
	defer cleanup(t, m)
	m.scheduler = newScheduler(&recordingMetrics{}, m.start)
	ctx := klog.NewContext(context.Background(), klog.Background())
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: "p"},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c", ReadinessProbe: defaultProbe, LivenessProbe: defaultProbe, StartupProbe: defaultProbe}}},
	}
	keys := []probeKey{{"p", "c", readiness}, {"p", "c", liveness}, {"p", "c", startup}}
	for range 3 {
		synctest.Test(t, func(t *testing.T) {
			m.AddPod(ctx, pod)
			m.RemovePod(pod)
			if err := waitForWorkerExit(t, m, keys); err != nil {
				t.Fatal(err)
			}
		})
	}
}
