//go:build !probewheel_export

// Module-only: tests the bench's AfterFunc arm (afterfunc.go), which is never exported.

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

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/probe"
	"k8s.io/utils/ptr"
)

// The AfterFunc arm is only worth measuring if it keeps upstream's timing,
// so it is held to the timings the scheduler's tests pin for probewheel.
func TestAfterFuncArm(t *testing.T) {
	type step struct {
		at  time.Duration // since the pod was added
		act string        // "trigger" (UpdatePodStatus), "remove" (RemovePod)
	}
	for _, tc := range []struct {
		name      string
		restart   bool // within a period of the manager's start: the first run sleeps
		probe     func(c *v1.Container)
		behave    behaviour
		slots     int
		n         int // containers (0: one)
		steps     []step
		until     time.Duration
		wantRuns  []time.Duration // per container c0
		wantCount int             // runs of all containers together, when wantRuns is nil
		maxFlight int
	}{{
		name:     "runs on the grid, the first at once",
		probe:    func(c *v1.Container) { c.LivenessProbe = execProbe(1) },
		until:    4500 * time.Millisecond,
		wantRuns: secs(0, 1, 2, 3, 4),
	}, {
		name:     "a run that outlasts its period is followed at once",
		probe:    func(c *v1.Container) { c.LivenessProbe = execProbe(1) },
		behave:   behaviour{result: probe.Success, hang: 1500 * time.Millisecond},
		until:    5 * time.Second,
		wantRuns: secs(0, 1.5, 3, 4.5),
	}, {
		name:     "a manual trigger runs at once and restarts the period",
		probe:    func(c *v1.Container) { c.ReadinessProbe = execProbe(10) },
		behave:   behaviour{result: probe.Failure},
		steps:    []step{{3 * time.Second, "trigger"}},
		until:    25*time.Second - time.Millisecond,
		wantRuns: secs(0, 3, 13, 23),
	}, {
		name:     "a trigger during a run runs when it ends",
		probe:    func(c *v1.Container) { c.ReadinessProbe = execProbe(10) },
		behave:   behaviour{result: probe.Failure, hang: 2 * time.Second},
		steps:    []step{{time.Second, "trigger"}},
		until:    13*time.Second - time.Millisecond,
		wantRuns: secs(0, 2, 12),
	}, {
		name:      "a worker stopped before its first run probes once",
		restart:   true,
		probe:     func(c *v1.Container) { c.LivenessProbe = execProbe(10) },
		steps:     []step{{0, "remove"}},
		until:     11 * time.Second,
		wantCount: 1,
	}, {
		name:      "the semaphore bounds the runs in flight",
		probe:     func(c *v1.Container) { c.LivenessProbe = execProbe(10) },
		behave:    behaviour{result: probe.Success, hang: 5 * time.Second},
		slots:     2,
		n:         5,
		until:     9 * time.Second,
		wantCount: 4, // five containers, two slots: 0-5 s and 5-10 s hold four runs
		maxFlight: 2,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarnessWith(t, false)
				h.m.scheduler = nil // the gate-off manager the arm is built on
				a := NewAfterFuncManager(h.m, tc.slots).(*afterFuncManager)
				if !tc.restart {
					afterStart(h, 10*time.Second)
				}
				cs := containers(max(tc.n, 1), func(c *v1.Container, _ int) { tc.probe(c) })
				if tc.behave.result == "" {
					tc.behave.result = probe.Success
				}
				for _, c := range cs {
					h.probes.set(c.Name, tc.behave)
				}
				pod := afterFuncAddPod(h, a, "p", cs...)
				t0 := time.Now()
				for _, s := range tc.steps {
					time.Sleep(s.at - time.Since(t0))
					switch s.act {
					case "trigger":
						status, _ := h.m.statusManager.GetPodStatus(pod.UID)
						status = *status.DeepCopy()
						a.UpdatePodStatus(h.ctx, pod, &status)
					case "remove":
						a.RemovePod(pod)
					}
				}
				time.Sleep(tc.until - time.Since(t0))
				if tc.wantRuns != nil {
					if got := h.probes.starts("c0"); !slices.Equal(got, tc.wantRuns) {
						t.Errorf("runs at %v, want %v", got, tc.wantRuns)
					}
				} else {
					total := 0
					for _, c := range cs {
						total += len(h.probes.starts(c.Name))
					}
					if total != tc.wantCount {
						t.Errorf("%d runs, want %d", total, tc.wantCount)
					}
				}
				h.probes.mu.Lock()
				maxFlight := h.probes.maxInFlight
				h.probes.mu.Unlock()
				if tc.maxFlight > 0 && maxFlight != tc.maxFlight {
					t.Errorf("%d runs in flight at most, want %d", maxFlight, tc.maxFlight)
				}
				a.CleanupPods(map[types.UID]sets.Empty{})
				time.Sleep(6 * time.Second) // runs in flight end, then their workers exit
				synctest.Wait()
				if n := h.m.workerCount(); n != 0 {
					t.Errorf("%d workers left after CleanupPods", n)
				}
				a.mu.Lock()
				left := len(a.runs)
				a.mu.Unlock()
				if left != 0 {
					t.Errorf("%d timers left after CleanupPods", left)
				}
			})
		})
	}
}

// A trigger and its poke can come while a callback is about to re-arm the
// timer for the next grid point; that Reset must not swallow the poke's.
// Real time, not a bubble: the race is between the runtime's timer firing
// and the callback's Reset, which synctest orders. Clients trigger a run and
// wait for it, as in BenchmarkSchedulerContention; a lost wake-up leaves one
// waiting until the deadline (the period is an hour), which is the failure,
// not a measure of speed.
func TestAfterFuncArmTriggerNotLost(t *testing.T) {
	const clients, cycles = 8, 500
	m := newTestManager()
	m.scheduler = nil
	a := NewAfterFuncManager(m, 0).(*afterFuncManager)
	sp := addSignalledPod(t, m, a, clients)
	errs := make(chan error, clients)
	for _, w := range sp.workers {
		go func() {
			ran := sp.ran[w.container.Name]
			for i := range cycles {
				w.trigger()
				a.poke(w)
				select {
				case <-ran:
				case <-time.After(30 * time.Second):
					errs <- fmt.Errorf("%s: the run of trigger %d never came", w.container.Name, i)
					return
				}
			}
			errs <- nil
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	sp.removeAll(m, a)
}

// afterFuncAddPod is harness.addPod through the arm's AddPod.
func afterFuncAddPod(h *harness, a *afterFuncManager, uid string, containers ...v1.Container) *v1.Pod {
	pod := podWith(uid, containers...)
	setRunning(h.m, pod)
	a.AddPod(h.ctx, pod)
	return pod
}

// setRunning gives every container of pod a running, started status in the
// manager's status manager.
func setRunning(m *manager, pod *v1.Pod) {
	status := v1.PodStatus{Phase: v1.PodRunning}
	for _, c := range pod.Spec.Containers {
		status.ContainerStatuses = append(status.ContainerStatuses, v1.ContainerStatus{
			Name:        c.Name,
			ContainerID: "test://" + string(pod.UID) + "/" + c.Name,
			State:       v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.Now()}},
			Started:     ptr.To(true),
		})
	}
	m.statusManager.SetPodStatus(klog.Background(), pod, status)
}
