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
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/probe"
)

// TestSchedulerLoopRunsQuickRunsItself: once a probe's runs are known to be
// quick, the loop runs them on its own goroutine and wakes no executor
// (inline.go). First runs, and runs of probes that were not quick, still go
// to executors.
func TestSchedulerLoopRunsQuickRunsItself(t *testing.T) {
	tests := []struct {
		name        string
		probes      int
		hang        time.Duration // every run's
		wantWakeups bool          // in steady state
	}{
		{"no-op runs", 20, 0, false},
		{"a run just under inlineMaxRun", 1, inlineMaxRun - time.Microsecond, false},
		{"runs of inlineMaxRun", 1, inlineMaxRun, true},
		{"a tick's runs beyond inlineBudget", 20, inlineMaxRun - time.Microsecond, true},
		{"slow runs", 20, 50 * time.Millisecond, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, nil)
				afterStart(h, time.Second)
				cs := containers(tc.probes, func(c *v1.Container, _ int) {
					h.probes.set(c.Name, behaviour{result: probe.Success, hang: tc.hang})
					c.LivenessProbe = execProbe(1)
				})
				h.addPod("p", cs...)
				time.Sleep(2500 * time.Millisecond) // first runs (on executors), then one more each
				s := h.m.scheduler
				s.mu.Lock()
				before := s.exec.wakeups
				s.mu.Unlock()
				time.Sleep(10 * time.Second)
				s.mu.Lock()
				wakeups := s.exec.wakeups - before
				s.mu.Unlock()
				h.close()

				if got := wakeups > 0; got != tc.wantWakeups {
					t.Errorf("%d executor wake-ups in 10 periods of %d probes, want some: %v", wakeups, tc.probes, tc.wantWakeups)
				}
				for _, c := range cs {
					if n := len(h.probes.starts(c.Name)); n != 13 {
						t.Errorf("%s ran %d times in 12.5 periods, want 13", c.Name, n)
					}
				}
			})
		})
	}
}

// TestSchedulerInlineRunThatBlocks: a run the loop executes itself must not
// hold the wheel when it blocks, whether its target hangs (the watchdog hands
// the wheel to a new goroutine after inlineWatch) or its result waits for
// the kubelet to read a full results channel (it hands the wheel off at
// once). Probes on the same grid start at most inlineWatch late, once;
// probes on other ticks keep exact periods.
func TestSchedulerInlineRunThatBlocks(t *testing.T) {
	tests := []struct {
		name string
		// block makes the quick probes block from now on; it returns a
		// function that unblocks them.
		block    func(h *harness, quick []v1.Container) (unblock func())
		readyOf  func(c *v1.Container) // which probe the quick containers have
		quick    int                   // how many
		wantLate time.Duration         // the most a probe on their grid may start late
	}{
		{
			name: "target hangs",
			block: func(h *harness, quick []v1.Container) func() {
				for _, c := range quick {
					h.probes.set(c.Name, behaviour{result: probe.Success, hang: 20 * time.Second})
				}
				return func() {}
			},
			readyOf: func(c *v1.Container) { c.LivenessProbe = execProbe(1) },
			// Fewer than the fast slots: no demotion toll (pool.go) here.
			quick:    8,
			wantLate: inlineWatchMax,
		},
		{
			name: "results channel full",
			block: func(h *harness, quick []v1.Container) func() {
				resume := h.pauseReadiness()
				for _, c := range quick {
					h.probes.set(c.Name, behaviour{result: probe.Failure})
				}
				return resume
			},
			readyOf: func(c *v1.Container) { c.ReadinessProbe = execProbe(1) },
			// More flips than the channel holds (20), fewer than the fast slots.
			quick:    30,
			wantLate: 0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, nil)
				afterStart(h, time.Second)
				// The quick probes and a liveness probe on their grid; another
				// liveness probe half a period later.
				quick := containers(tc.quick, func(c *v1.Container, _ int) { tc.readyOf(c) })
				for _, c := range quick {
					h.probes.set(c.Name, behaviour{result: probe.Success})
				}
				h.addPod("q", quick...)
				h.addPod("same", v1.Container{Name: "same", LivenessProbe: execProbe(1)})
				time.Sleep(500 * time.Millisecond)
				h.addPod("other", v1.Container{Name: "other", LivenessProbe: execProbe(1)})
				time.Sleep(2 * time.Second) // the quick probes run on the loop by now
				unblock := tc.block(h, quick)
				time.Sleep(6 * time.Second)
				s := h.m.scheduler
				s.mu.Lock()
				inline, handOffs := s.inline.run, s.inline.handOffs
				s.mu.Unlock()
				unblock()
				time.Sleep(25 * time.Second)
				h.close()

				if handOffs == 0 {
					t.Error("the loop never handed the wheel off: no quick run blocked on its goroutine, so this tests nothing")
				}
				// Another probe's quick run may be in flight on the loop at
				// this instant (synctest wakes it and the test together); a
				// blocked one must not be.
				if inline != nil && inline.pod.Name == "q" {
					t.Errorf("the loop's goroutine is still running %s's blocked probe: the wheel was not handed off", inline.container.Name)
				}
				checkGrid := func(name string, late time.Duration) {
					starts := h.probes.starts(name)
					if len(starts) < 30 {
						t.Fatalf("%s ran %d times in 33 periods: %v", name, len(starts), starts)
					}
					for i, st := range starts {
						grid := starts[0] + time.Duration(i)*time.Second
						if i > 0 {
							grid = starts[1] + time.Duration(i-1)*time.Second // the first interval is up to a tick long
						}
						if st < grid || st > grid+late {
							t.Errorf("%s: run %d at %v, want it at %v up to %v later (runs %v)", name, i, st, grid, late, starts)
							return
						}
					}
				}
				checkGrid("same", tc.wantLate)
				checkGrid("other", 0)
				if tc.name == "results channel full" {
					want := fmt.Sprint([]results.Result{results.Failure, results.Success, results.Failure})
					for _, c := range quick {
						var rs []results.Result
						for _, u := range h.updatesOf(readiness) {
							if u.ContainerID.ID == "q/"+c.Name {
								rs = append(rs, u.Result)
							}
						}
						if fmt.Sprint(rs) != want {
							t.Errorf("%s: readiness updates %v, want %s", c.Name, rs, want)
						}
					}
				}
			})
		})
	}
}

// TestWatchdogAfter: the watchdog fires at least inlineWatch after its batch
// started, at most inlineWatchMax, and, while the loop sleeps on its ticker,
// just after one of the ticker's ticks, so that it needs no wake-up of its
// own.
func TestWatchdogAfter(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name            string
		start, tickerAt time.Duration
		dense           bool
		want            time.Duration
	}{
		{"on a one-shot timer", 10 * ms, 0, false, inlineWatch},
		{"batch right at a tick", 8 * ms, 0, true, 4*ms + watchdogSlack},
		{"batch 1 ms into a tick", 9 * ms, 0, true, 3*ms + watchdogSlack},
		{"batch 2 ms into a tick: the next tick is exactly inlineWatch away", 10 * ms, 0, true, 2*ms + watchdogSlack},
		{"batch 2.5 ms into a tick: the tick after", 10*ms + ms/2, 0, true, 5*ms + ms/2 + watchdogSlack},
		{"a ticker created off the tick grid", 10 * ms, 7 * ms, true, 5*ms + watchdogSlack},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := watchdogAfter(tc.start, tc.dense, tc.tickerAt)
			if got != tc.want {
				t.Errorf("watchdogAfter(%v, %v, %v) = %v, want %v", tc.start, tc.dense, tc.tickerAt, got, tc.want)
			}
			if got < inlineWatch || got > inlineWatchMax {
				t.Errorf("watchdogAfter = %v, outside [inlineWatch, inlineWatchMax] = [%v, %v]", got, inlineWatch, inlineWatchMax)
			}
			if tc.dense && (tc.start+got-watchdogSlack-tc.tickerAt)%schedulerTick != 0 {
				t.Errorf("watchdog at %v is not %v after one of the ticker's ticks (created at %v)", tc.start+got, watchdogSlack, tc.tickerAt)
			}
		})
	}
}
