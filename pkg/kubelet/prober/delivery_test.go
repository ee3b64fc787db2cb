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

// poolSnapshot returns a copy of the pool's counters.
func (s *scheduler) poolSnapshot() pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return pool{limits: s.pool.limits, running: s.pool.running, detached: s.pool.detached}
}
