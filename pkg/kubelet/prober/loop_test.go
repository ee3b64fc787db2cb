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
	"math"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
)

// TestLoopSleepsKeepRunsOnTime: the loop sleeps on a ticker while
// slots come due nearly every tick and on a one-shot timer otherwise
// (loop.go); either way every run starts on the first tick at or after its
// due time. A pod added between two ticks whose first probe is due a tick
// later wakes the loop mid-tick: a ticker started in that phase would start
// the run (and the loop's later ones) that far past the tick.
func TestLoopSleepsKeepRunsOnTime(t *testing.T) {
	for _, tc := range []struct {
		name string
		// probes on the first pod, their first runs spread over the
		// period (a kubelet that has just started).
		probes int
		// addAt: when the pod "q" is added, after the first; its first
		// probe is due firstDelay later.
		addAt, firstDelay time.Duration
	}{
		{"sparse, pod added mid-tick, due a tick later", 5, 2*time.Second + 300*time.Microsecond, schedulerTick},
		{"sparse, pod added on a tick", 5, 2 * time.Second, schedulerTick},
		{"dense, pod added mid-tick, due a tick later", 6000, 2*time.Second + 300*time.Microsecond, schedulerTick},
		{"dense, pod added mid-tick", 6000, 2*time.Second + 300*time.Microsecond, 400 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, nil)
				cs := containers(tc.probes, func(c *v1.Container, _ int) { c.LivenessProbe = execProbe(10) })
				h.addPod("p", cs...)
				time.Sleep(tc.addAt)
				// The next first-probe delay (spread.go) is firstDelay,
				// plus half a tick that the truncation to a tick drops.
				frac := (float64(tc.firstDelay) + float64(schedulerTick)/2) / float64(10*time.Second)
				_, h.m.spread.seed = math.Modf(frac - float64(h.m.spread.n.Load())*invPhi + 2)
				late := v1.Container{Name: "late", LivenessProbe: execProbe(10)}
				h.addPod("q", late)
				time.Sleep(25 * time.Second)
				h.close()

				// A run is due a period after the previous one's due time
				// and starts on the first tick at or after it.
				for _, c := range append(cs, late) {
					starts := h.probes.starts(c.Name)
					if len(starts) < 2 {
						t.Fatalf("%s ran %d times in 25 s", c.Name, len(starts))
					}
					for i := 1; i < len(starts); i++ {
						due := starts[0] + time.Duration(i)*10*time.Second
						if want := ceilTick(due) * int64(schedulerTick); int64(starts[i]) != want {
							t.Fatalf("%s: run %d at %v, due %v: want it on the tick at %v (starts %v)", c.Name, i, starts[i], due, time.Duration(want), starts)
						}
					}
				}
				if late := h.metrics.maxLateness; late >= schedulerTick {
					t.Errorf("a run started %v after its due time", late)
				}
			})
		})
	}
}
