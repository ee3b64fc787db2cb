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

// Runs that block: probes that hang, runs blocked on a results channel the
// kubelet does not read. Each holds an executor, as each of upstream's
// workers holds its goroutine; none holds another probe back.

// TestSchedulerHungProbesDoNotDelayHealthyOnes hangs some probes until their
// timeout and checks that the healthy ones keep their periods exactly.
func TestSchedulerHungProbesDoNotDelayHealthyOnes(t *testing.T) {
	for _, hungEvery := range []int{10, 3} { // every hungEvery-th of 100 probes hangs
		t.Run(fmt.Sprintf("one in %d hangs", hungEvery), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
				afterStart(h, time.Second)
				cs := containers(100, func(c *v1.Container, i int) {
					if i%hungEvery == 0 {
						h.probes.set(c.Name, behaviour{result: probe.Failure, hang: 3 * time.Second})
					}
					c.ReadinessProbe = execProbe(1)
				})
				h.addPod("p", cs...)
				time.Sleep(30 * time.Second)
				h.close()

				for i, c := range cs {
					if i%hungEvery == 0 {
						continue
					}
					starts := h.probes.starts(c.Name)
					if len(starts) < 29 || slices.ContainsFunc(intervals(starts), func(d time.Duration) bool { return d != time.Second }) {
						t.Errorf("healthy probe %s ran %d times, intervals %v, want every second", c.Name, len(starts), intervals(starts))
					}
				}
			})
		})
	}
}

// TestSchedulerManyProbesTurnSlowTogether: when many probes of one grid
// turn slow at once (a dependency of many pods hangs), a healthy probe due
// one tick after them starts on its tick.
func TestSchedulerManyProbesTurnSlowTogether(t *testing.T) {
	for _, hung := range []int{14, 400} {
		t.Run(fmt.Sprintf("%d turn slow", hung), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
				afterStart(h, 10*time.Second)
				cs := containers(hung, func(c *v1.Container, _ int) { c.ReadinessProbe = execProbe(10) })
				h.addPod("hung", cs...) // every first run at 0: one grid
				time.Sleep(schedulerTick)
				h.addPod("p", v1.Container{Name: "h", ReadinessProbe: execProbe(10)})
				time.Sleep(5 * time.Second)
				for _, c := range cs {
					h.probes.set(c.Name, behaviour{result: probe.Failure, hang: 3 * time.Second})
				}
				time.Sleep(16 * time.Second)
				h.close()
				if got, want := h.probes.starts("h"), secs(0.004, 10.004, 20.004); !slices.Equal(got, want) {
					t.Errorf("h ran at %v behind %d runs that hang, want %v", got, hung, want)
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
		readiness int // containers whose readiness flips while updates are stuck
	}{
		{"a few", 40},
		{"thousands", 3000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
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
				for _, c := range live {
					if starts := h.probes.starts(c.Name); !slices.Equal(starts, secs(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)) {
						t.Errorf("liveness probe %s ran at %v while readiness updates were stuck, want every second", c.Name, starts)
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
