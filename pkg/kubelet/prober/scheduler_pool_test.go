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
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/probe"
)

// The scheduler with its pool (pool.go): the bound, probes that hang, runs
// blocked on a results channel.

// TestSchedulerPoolBound: at most slots runs hold a slot at once, and no run
// waits for one longer than slowAfter and the tick the loop sees it on.
func TestSchedulerPoolBound(t *testing.T) {
	tests := []struct {
		name   string
		probes int
		hang   time.Duration
	}{
		{"quick runs queue for the slots", 50, 2 * time.Millisecond},
		{"runs of slowAfter and more start without a slot", 20, 50 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, 2)
				afterStart(h, time.Second)
				cs := containers(tc.probes, func(c *v1.Container, _ int) {
					h.probes.set(c.Name, behaviour{result: probe.Success, hang: tc.hang})
					c.LivenessProbe = execProbe(1)
				})
				h.addPod("p", cs...)
				maxHeld := 0
				for range 20 * time.Second / schedulerTick {
					time.Sleep(schedulerTick)
					h.m.scheduler.mu.Lock()
					maxHeld = max(maxHeld, h.m.scheduler.pool.held.len())
					h.m.scheduler.mu.Unlock()
				}
				h.close()
				if maxHeld > 2 {
					t.Errorf("%d runs held a slot at once, with 2 slots", maxHeld)
				}
				if wait, bound := h.metrics.maxQueueWait, time.Duration(ceilTick(slowAfter))*schedulerTick; wait > bound {
					t.Errorf("a run waited %v for a slot, want at most %v", wait, bound)
				}
				for _, c := range cs {
					if n := len(startedBefore(h.probes.starts(c.Name), 20*time.Second)); n != 20 {
						t.Errorf("%s ran %d times in 20 periods", c.Name, n)
					}
				}
			})
		})
	}
}

func startedBefore(starts []time.Duration, t time.Duration) []time.Duration {
	return slices.DeleteFunc(starts, func(s time.Duration) bool { return s >= t })
}

// TestSchedulerHungProbesDoNotDelayHealthyOnes hangs some probes until their
// timeout and checks that the healthy ones keep their periods, also when more
// probes hang than the pool has slots. The pool whose slots are never given
// up shows that the test can tell.
func TestSchedulerHungProbesDoNotDelayHealthyOnes(t *testing.T) {
	tests := []struct {
		name      string
		slowAfter time.Duration
		hungEvery int // every hungEvery-th of 100 probes hangs
		wantExact bool
	}{
		{"10% hang", slowAfter, 10, true},
		{"a third hang, eight times the slots", slowAfter, 3, true},
		{"hung runs never give their slots up", time.Hour, 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, 0)
				h.m.scheduler.pool = newPool(4, tc.slowAfter)
				afterStart(h, time.Second)
				cs := containers(100, func(c *v1.Container, i int) {
					if i%tc.hungEvery == 0 {
						h.probes.set(c.Name, behaviour{result: probe.Failure, hang: 3 * time.Second})
					}
					c.ReadinessProbe = execProbe(1)
				})
				h.addPod("p", cs...)
				time.Sleep(30 * time.Second)
				h.close()

				var worst time.Duration
				for i, c := range cs {
					if i%tc.hungEvery == 0 {
						continue
					}
					starts := h.probes.starts(c.Name)
					if len(starts) < 29 {
						worst = max(worst, time.Hour)
						continue
					}
					for j, d := range intervals(starts) {
						if j >= 1 { // the first hung runs take slots while they are young
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

// TestSchedulerManyProbesTurnSlowTogether: when more probes of one grid turn
// slow at once than the pool has slots (a dependency of many pods hangs), a
// healthy probe due one tick after them starts at most slowAfter late,
// rounded up to the wheel's tick, once: from their next runs on the hung
// probes start without a slot.
func TestSchedulerManyProbesTurnSlowTogether(t *testing.T) {
	tests := []struct {
		name  string
		slots int
		hung  int
	}{
		{"4 slots, 14 turn slow", 4, 14},
		{"4 slots, 10 times as many turn slow", 4, 40},
		{"the default pool, 10 times its slots turn slow", 0, 10 * defaultPoolSlots()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, tc.slots)
				afterStart(h, 10*time.Second)
				hung := containers(tc.hung, func(c *v1.Container, _ int) { c.ReadinessProbe = execProbe(10) })
				h.addPod("hung", hung...) // every first run at 0: one grid
				time.Sleep(schedulerTick)
				h.addPod("p", v1.Container{Name: "h", ReadinessProbe: execProbe(10)})
				time.Sleep(5 * time.Second)
				for _, c := range hung {
					h.probes.set(c.Name, behaviour{result: probe.Failure, hang: 3 * time.Second})
				}
				time.Sleep(16 * time.Second)
				h.close()

				// The loop's ticker may tick up to tickerPhaseSlack after the wheel's tick.
				bound := time.Duration(ceilTick(slowAfter))*schedulerTick + tickerPhaseSlack
				starts := h.probes.starts("h")
				if len(starts) != 3 || starts[0] != schedulerTick || starts[2] != 20*time.Second+schedulerTick {
					t.Fatalf("h ran at %v, want at 4ms, by 10.004s + %v, and at 20.004s", starts, bound)
				}
				if late := starts[1] - (10*time.Second + schedulerTick); late < 0 || late > bound {
					t.Errorf("h started %v late behind %d runs that hang, want at most %v", late, tc.hung, bound)
				}
			})
		})
	}
}

// TestSchedulerStalledSyncLoop plays a syncLoopIteration that stops reading
// readiness updates while every readiness probe of a node flips: the runs
// that block on the results channel must neither stop the liveness probes of
// other pods, quick or slow, nor lose or reorder a transition once reading
// resumes.
func TestSchedulerStalledSyncLoop(t *testing.T) {
	tests := []struct {
		name      string
		slots     int
		readiness int // containers whose readiness flips while updates are stuck
	}{
		{"a small pool", 4, 40},
		{"more flips than the default pool has slots", 0, 3000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, tc.slots)
				afterStart(h, time.Second)
				resume := h.pauseReadiness()
				for i := range tc.readiness {
					h.addPod(fmt.Sprint("r", i), v1.Container{Name: "r", ReadinessProbe: execProbe(1)})
				}
				live := containers(10, func(c *v1.Container, i int) {
					if i%2 == 0 { // slow but healthy: its runs start without a slot
						h.probes.set(c.Name, behaviour{result: probe.Success, hang: 50 * time.Millisecond})
					}
					c.LivenessProbe = execProbe(1)
				})
				h.addPod("live", live...)
				time.Sleep(10*time.Second - time.Millisecond)
				// The first runs may wait for a slot behind readiness runs
				// that block, up to slowAfter on the tick; then on the grid.
				late := time.Duration(ceilTick(slowAfter)) * schedulerTick
				for _, c := range live {
					starts := h.probes.starts(c.Name)
					if len(starts) != 10 || starts[0] > late || !slices.Equal(starts[1:], secs(1, 2, 3, 4, 5, 6, 7, 8, 9)) {
						t.Errorf("liveness probe %s ran at %v while readiness updates were stuck, want every second from 0 (the first up to %v late)", c.Name, starts, late)
					}
				}
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
				h.close()
			})
		})
	}
}
