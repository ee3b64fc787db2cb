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

// Delivery of results while syncLoopIteration does not read them.

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/probe"
)

// TestSchedulerStalledSyncLoop plays a syncLoopIteration that stops reading
// readiness updates while every readiness probe of a node flips: the Sets
// block, which must neither stop the liveness probes of other pods nor lose
// or reorder a transition once reading resumes.
func TestSchedulerStalledSyncLoop(t *testing.T) {
	tests := []struct {
		name      string
		limits    *poolLimits
		readiness int // containers whose readiness flips while updates are stuck
	}{
		{"small pool", &poolLimits{fast: 4, slow: 8, slowAfter: 10 * time.Millisecond}, 40},
		{"more flips than the default pool has slots", nil, 3000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, tc.limits)
				afterStart(h, time.Second)
				resume := h.pauseReadiness()
				for i := range tc.readiness {
					h.addPod(fmt.Sprint("r", i), v1.Container{Name: "r", ReadinessProbe: execProbe(1)})
				}
				live := containers(10, func(c *v1.Container, _ int) { c.LivenessProbe = execProbe(1) })
				h.addPod("live", live...)
				time.Sleep(10*time.Second - time.Millisecond)
				for _, c := range live {
					if n := len(h.probes.starts(c.Name)); n != 10 {
						t.Errorf("liveness probe %s ran %d times in 10 periods while readiness updates were stuck", c.Name, n)
					}
				}
				detached := h.m.scheduler.poolSnapshot().detached
				resume()
				time.Sleep(2 * time.Second)
				synctest.Wait()

				// Each readiness probe goes Failure (initial) → Success, in that order.
				seen := map[string][]results.Result{}
				for _, u := range h.updatesOf(readiness) {
					seen[u.ContainerID.ID] = append(seen[u.ContainerID.ID], u.Result)
				}
				if len(seen) != tc.readiness {
					t.Errorf("updates for %d containers, want %d", len(seen), tc.readiness)
				}
				for id, rs := range seen {
					if len(rs) != 2 || rs[0] != results.Failure || rs[1] != results.Success {
						t.Errorf("%s: readiness updates %v, want [Failure Success]", id, rs)
					}
				}
				if detached == 0 {
					t.Error("no run gave its slot up while it waited for the kubelet")
				}
				h.close()
			})
		})
	}
}

// TestSchedulerDetachOnlyWhenDeliveryWouldBlock: a Set that finds room in
// the results channel keeps its slot, so the probe that follows the initial
// result of a new container stays inside the pool's bound.
func TestSchedulerDetachOnlyWhenDeliveryWouldBlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &poolLimits{fast: 1, slow: 1, slowAfter: time.Hour})
		afterStart(h, 10*time.Second) // all five first runs are due at once
		cs := containers(5, func(c *v1.Container, _ int) {
			h.probes.set(c.Name, behaviour{result: probe.Success, hang: 100 * time.Millisecond})
			c.LivenessProbe = execProbe(10)
		})
		h.addPod("p", cs...)
		time.Sleep(time.Second)
		h.close()
		if h.probes.maxInFlight != 1 {
			t.Errorf("%d probes ran at once with one slot", h.probes.maxInFlight)
		}
	})
}

// TestSchedulerReattachBeforeProbing: a new container's initial result is
// set before its probe runs. When that Set finds the results channel full
// the run gives its slot up while it waits, and takes one again before it
// probes: probes still run within the pool's bound.
func TestSchedulerReattachBeforeProbing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &poolLimits{fast: 1, slow: 1, slowAfter: time.Hour})
		afterStart(h, 10*time.Second)
		resume := h.pauseReadiness()
		// 60 first runs one after the other: 20 initial results fill the
		// channel, the other 40 wait for the kubelet without a slot.
		cs := containers(60, func(c *v1.Container, _ int) {
			h.probes.set(c.Name, behaviour{result: probe.Failure, hang: 10 * time.Millisecond})
			c.ReadinessProbe = execProbe(10)
		})
		h.addPod("p", cs...)
		time.Sleep(2 * time.Second)
		if d := h.m.scheduler.poolSnapshot().detached; d == 0 {
			t.Error("no run waits for the kubelet: the test does not test what it should")
		}
		resume()
		time.Sleep(10 * time.Second)
		h.close()
		if h.probes.maxInFlight != 1 {
			t.Errorf("%d probes ran at once with one fast slot", h.probes.maxInFlight)
		}
		for _, c := range cs {
			if n := len(h.probes.starts(c.Name)); n < 1 {
				t.Errorf("%s never probed", c.Name)
			}
		}
	})
}

// fillReadinessChannel adds pods whose readiness probes fail until their
// initial results fill the readiness channel, which the harness does not read.
func fillReadinessChannel(h *harness) {
	updates := h.m.readinessManager.Updates()
	for i := 0; len(updates) < cap(updates); i++ {
		name := fmt.Sprint("fill", i)
		h.probes.set(name, behaviour{result: probe.Failure})
		h.addPod(name, v1.Container{Name: name, ReadinessProbe: execProbe(10)})
		synctest.Wait()
	}
}

// TestSchedulerFinalSetNeedsNoSlot: a run whose changed result waits for
// syncLoopIteration gives its slot up, and when all it has left to do after
// the Set is to return, it ends without taking one again. One fast slot, no
// demotion: r's result changes at 10 s while the channel is full; b holds the
// fast slot from 10.5 s to 13.5 s; the kubelet reads the channel at 12 s, and
// r's run must end then, not wait for b's slot.
func TestSchedulerFinalSetNeedsNoSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &poolLimits{fast: 1, slow: 1, slowAfter: time.Hour})
		afterStart(h, 10*time.Second)
		resume := h.pauseReadiness()
		h.probes.set("r", behaviour{result: probe.Failure})
		h.addPod("p", v1.Container{Name: "r", ReadinessProbe: execProbe(10)})
		fillReadinessChannel(h)
		time.Sleep(500 * time.Millisecond)
		h.probes.set("b", behaviour{result: probe.Success})
		h.addPod("q", v1.Container{Name: "b", LivenessProbe: execProbe(10)}) // runs at 0.5 s, 10.5 s
		time.Sleep(5 * time.Second)
		h.probes.set("r", behaviour{result: probe.Success}) // r's Set at 10 s finds the channel full
		h.probes.set("b", behaviour{result: probe.Success, hang: 3 * time.Second})
		time.Sleep(6500 * time.Millisecond) // 12 s
		r := readinessWorkerOf(h, "p", "r")
		if p := h.m.scheduler.poolSnapshot(); p.detached != 1 || p.running[fastLane] != 1 {
			t.Fatalf("at 12 s the pool has %d detached runs and %d fast ones, want r's detached and b's fast: the test does not test what it should", p.detached, p.running[fastLane])
		}
		resume()
		synctest.Wait()
		s := h.m.scheduler
		s.mu.Lock()
		state, p := r.sched.state, s.pool
		s.mu.Unlock()
		if state == stateRunning || p.detached != 0 || p.running[fastLane] != 1 {
			t.Errorf("when its Set returned, r's run is still in flight (state %d, %d detached and %d fast runs): it waits for a slot with nothing left to do", state, p.detached, p.running[fastLane])
		}
		time.Sleep(10 * time.Second)
		h.close()
		if got, want := h.probes.starts("r"), secs(0, 10, 20); !slices.Equal(got, want) {
			t.Errorf("r ran at %v, want %v", got, want)
		}
	})
}

// TestSchedulerTriggerWhileARunReattaches: a run whose new container's initial
// result waited for syncLoopIteration takes a slot again before it probes. A
// manual trigger at that instant comes during the run, not at its start, so
// it runs right after it, as upstream's trigger channel holds a trigger that
// comes while its worker probes.
func TestSchedulerTriggerWhileARunReattaches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		afterStart(h, 10*time.Second)
		resume := h.pauseReadiness()
		fillReadinessChannel(h)
		time.Sleep(time.Second)
		h.probes.set("r", behaviour{result: probe.Failure, hang: time.Second})
		pod := h.addPod("p", v1.Container{Name: "r", ReadinessProbe: execProbe(30)}) // its initial Set waits
		time.Sleep(11 * time.Second)
		if d := h.m.scheduler.poolSnapshot().detached; d != 1 {
			t.Fatalf("%d runs wait for the kubelet, want r's: the test does not test what it should", d)
		}
		resume()
		synctest.Wait() // r's run took a slot again and probes until 13 s
		h.updatePodStatus(pod)
		time.Sleep(5 * time.Second)
		h.close()
		if got, want := h.probes.starts("r"), secs(12, 13); !slices.Equal(got, want) {
			t.Errorf("r probed at %v, want %v: the trigger at 12 s runs when the run in flight ends", got, want)
		}
	})
}

// TestSchedulerReattachInTheProbesLane: a detached run takes a slot again in
// the lane its probe's runs start in, not in the one it left. A quick probe's
// run that was moved to the slow lane because it waited for a fast slot
// (pool.go) must not wait behind a run that hangs there.
func TestSchedulerReattachInTheProbesLane(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScheduler(schedulerConfig{Limits: poolLimits{fast: 1, slow: 1, slowAfter: 10 * time.Millisecond}, Metrics: &recordingMetrics{}})
		quick, hung := &worker{}, &worker{}
		s.mu.Lock()
		s.pool.acquire(quick, slowLane, false, 0) // as the pool moves a run that waited
		quick.sched.state = stateRunning
		s.mu.Unlock()
		if !s.detach(quick) {
			t.Fatal("the run did not detach")
		}
		s.mu.Lock()
		s.pool.acquire(hung, slowLane, false, 0) // takes the slow slot the quick run gave up
		s.mu.Unlock()
		reattached := make(chan struct{})
		go func() {
			s.reattach(quick)
			close(reattached)
		}()
		synctest.Wait()
		select {
		case <-reattached:
		default:
			t.Fatal("the quick probe's run waits for the slow slot of a run that hangs, with the fast lane free")
		}
		if l := quick.pool.lane; l != fastLane {
			t.Errorf("reattached in the %v lane, want fast", l)
		}
	})
}

// poolSnapshot returns a copy of the pool's counters.
func (s *scheduler) poolSnapshot() pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return pool{limits: s.pool.limits, running: s.pool.running, detached: s.pool.detached}
}
