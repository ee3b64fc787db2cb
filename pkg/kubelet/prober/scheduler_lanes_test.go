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

// The pool's rules as the scheduler applies them, on the real manager.

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/probe"
)

// TestSchedulerRejectsInvalidLimits: newScheduler panics on limits that
// poolLimits.validate rejects, rather than leave probes that never run.
func TestSchedulerRejectsInvalidLimits(t *testing.T) {
	for _, limits := range []poolLimits{{fast: 3, slow: 0, slowAfter: time.Millisecond}, {fast: 1, slow: 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newScheduler accepted %+v", limits)
				}
			}()
			newScheduler(schedulerConfig{Limits: limits})
		}()
	}
}

// laneSampler records, every tick of fake time, the most runs each lane had.
type laneSampler struct {
	s    *scheduler
	stop chan struct{}
	done chan struct{}
	max  [numLanes]int
}

func sampleLanes(s *scheduler) *laneSampler {
	ls := &laneSampler{s: s, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(ls.done)
		for {
			s.mu.Lock()
			for l := range numLanes {
				ls.max[l] = max(ls.max[l], s.pool.running[l])
			}
			s.mu.Unlock()
			select {
			case <-ls.stop:
				return
			case <-time.After(schedulerTick):
			}
		}
	}()
	return ls
}

// reset forgets what was sampled so far.
func (ls *laneSampler) reset() {
	ls.s.mu.Lock()
	defer ls.s.mu.Unlock()
	ls.max = [numLanes]int{}
}

func (ls *laneSampler) result() [numLanes]int {
	close(ls.stop)
	<-ls.done
	return ls.max
}

// TestSchedulerPoolBound: each lane holds at most its limit of runs that
// started in it, and no probe is starved while the lanes are full.
func TestSchedulerPoolBound(t *testing.T) {
	tests := []struct {
		name     string
		limits   poolLimits
		probes   int
		hang     time.Duration
		wantLane [numLanes]int // the most runs in each lane after the first period
	}{
		{"fast probes fill the fast lane", poolLimits{fast: 2, slow: 3, slowAfter: 10 * time.Millisecond}, 50, 5 * time.Millisecond, [numLanes]int{2, 0}},
		{"slow probes fill the slow lane", poolLimits{fast: 2, slow: 3, slowAfter: 10 * time.Millisecond}, 20, 50 * time.Millisecond, [numLanes]int{0, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, &tc.limits)
				afterStart(h, time.Second)
				cs := containers(tc.probes, func(c *v1.Container, _ int) {
					h.probes.set(c.Name, behaviour{result: probe.Success, hang: tc.hang})
					c.LivenessProbe = execProbe(1)
				})
				h.addPod("p", cs...)
				ls := sampleLanes(h.m.scheduler)
				time.Sleep(time.Second)
				ls.reset() // first runs start fast and may move to the slow lane above its limit
				time.Sleep(19*time.Second - time.Millisecond)
				lanes := ls.result()
				h.close()

				if lanes != tc.wantLane {
					t.Errorf("lanes held at most %v runs, want %v (limits fast=%d slow=%d)", lanes, tc.wantLane, tc.limits.fast, tc.limits.slow)
				}
				for _, c := range cs {
					if n := len(h.probes.starts(c.Name)); n != 20 {
						t.Errorf("%s ran %d times in 20 periods", c.Name, n)
					}
				}
			})
		})
	}
}

// TestSchedulerHungProbesDoNotDelayHealthyOnes hangs some probes until their
// timeout and checks that the healthy ones stay on their grid, also when
// more probes hang than the slow lane has slots. The case without demotion
// shows that the test can tell.
func TestSchedulerHungProbesDoNotDelayHealthyOnes(t *testing.T) {
	tests := []struct {
		name      string
		limits    poolLimits
		hungEvery int // every hungEvery-th of 100 probes hangs
		wantExact bool
	}{
		{"10% hang", poolLimits{fast: 4, slow: 64, slowAfter: 10 * time.Millisecond}, 10, true},
		{"more hang than the slow lane holds", poolLimits{fast: 4, slow: 8, slowAfter: 10 * time.Millisecond}, 3, true},
		{"hung runs never leave the fast lane", poolLimits{fast: 4, slow: 64, slowAfter: time.Hour}, 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, &tc.limits)
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

// TestSchedulerDemotionWakesTheLoop: when fast work waits behind a fast run
// that is not overdue yet, the loop wakes up when that run becomes overdue,
// not at the wheel's next unrelated slot. Limits fast 1 / slow 1: H fills
// the slow lane until 10.028 s, B hangs in the fast slot from 10.020 s and is
// overdue at 10.030 s, C is due at 10.025 s (its tick: 10.028 s) and moves in
// when B moves out, at the wheel's first tick from 10.030 s: 10.032 s.
func TestSchedulerDemotionWakesTheLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &poolLimits{fast: 1, slow: 1, slowAfter: 10 * time.Millisecond})
		afterStart(h, 10*time.Second)
		h.probes.set("h", behaviour{result: probe.Success, hang: 28 * time.Millisecond}) // slow from its first run on
		h.addPod("ph", v1.Container{Name: "h", LivenessProbe: execProbe(10)})
		time.Sleep(20 * time.Millisecond)
		h.addPod("pb", v1.Container{Name: "b", LivenessProbe: execProbe(10)})
		time.Sleep(5 * time.Millisecond)
		h.addPod("pc", v1.Container{Name: "c", LivenessProbe: execProbe(10)})
		time.Sleep(5 * time.Second)
		h.probes.set("b", behaviour{result: probe.Success, hang: time.Second}) // b's next run hangs
		time.Sleep(6 * time.Second)
		h.close()

		if got, want := h.probes.starts("c"), secs(0.025, 10.032); !slices.Equal(got, want) {
			t.Errorf("c ran at %v, want %v", got, want)
		}
	})
}

// TestSchedulerLoopSleepIsBounded: however far the next due run is, the
// loop sleeps at most maxLoopSleep, so a wake-up that nothing arranged is
// late by at most that.
func TestSchedulerLoopSleepIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		afterStart(h, time.Hour)
		h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(3600)})
		time.Sleep(10 * time.Second)
		synctest.Wait()
		s := h.m.scheduler
		s.mu.Lock()
		armed, now := s.wake.armed, s.now()
		s.mu.Unlock()
		if limit := floorTick(now + maxLoopSleep); armed > limit {
			t.Errorf("loop sleeps until tick %d, more than %v after now (tick %d)", armed, maxLoopSleep, floorTick(now))
		}
		h.close()
	})
}

// TestSchedulerGridRunsGoBeforeFirstRuns: a pod's containers added together
// start their first runs at once, more than the fast lane holds; a probe that
// comes due on its grid meanwhile takes the next free fast slot instead of
// waiting behind all of them (pool.go). One fast slot: the 20 first runs of
// 3 ms each hold it from 0.990 s to 1.050 s; g is due at 1.000 s and starts
// when the run in flight ends, at 1.002 s, where a FIFO would start it after
// all of them, at 1.050 s.
func TestSchedulerGridRunsGoBeforeFirstRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &poolLimits{fast: 1, slow: 1, slowAfter: 10 * time.Millisecond})
		afterStart(h, 10*time.Second)
		h.addPod("pg", v1.Container{Name: "g", LivenessProbe: execProbe(1)})
		time.Sleep(990 * time.Millisecond)
		batch := containers(20, func(c *v1.Container, _ int) {
			h.probes.set(c.Name, behaviour{result: probe.Success, hang: 3 * time.Millisecond})
			c.LivenessProbe = execProbe(10)
		})
		h.addPod("batch", batch...)
		time.Sleep(1500 * time.Millisecond)
		h.close()

		if got, want := h.probes.starts("g"), secs(0, 1.002, 2); !slices.Equal(got, want) {
			t.Errorf("g ran at %v, want %v", got, want)
		}
		for i, c := range batch {
			want := 990*time.Millisecond + time.Duration(i)*3*time.Millisecond // g's run takes no time
			if got := h.probes.starts(c.Name); len(got) != 1 || got[0] != want {
				t.Errorf("%s ran at %v, want once at %v", c.Name, got, want)
			}
		}
	})
}

// TestSchedulerManyProbesTurnSlowTogether: when more probes of one grid turn
// slow at once than the fast lane has slots (a node-local dependency of many
// pods hangs), the hung runs queued ahead of a healthy probe must not hold it
// up for one slowAfter per lane's worth of them: a run that has waited
// slowAfter for a fast slot while overrun runs were moved out takes a slow
// slot instead. The healthy probe h, due one tick after the hung ones, starts
// at most slowAfter (rounded up to the wheel's tick) late, once: from their
// next run on the hung probes start in the slow lane.
func TestSchedulerManyProbesTurnSlowTogether(t *testing.T) {
	def := defaultPoolLimits()
	tests := []struct {
		name   string
		limits poolLimits
		hung   int
	}{
		{"4 fast slots, 14 turn slow", poolLimits{fast: 4, slow: 2048, slowAfter: 10 * time.Millisecond}, 14},
		{"4 fast slots, 10 times as many turn slow", poolLimits{fast: 4, slow: 2048, slowAfter: 10 * time.Millisecond}, 40},
		{"default pool, 10 times its fast lane turn slow", def, 10 * def.fast},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, &tc.limits)
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
				bound := time.Duration(ceilTick(tc.limits.slowAfter))*schedulerTick + tickerPhaseSlack
				starts := h.probes.starts("h")
				if len(starts) != 3 || starts[0] != schedulerTick || starts[2] != 20*time.Second+schedulerTick {
					t.Fatalf("h ran at %v, want at 4ms, by 10.004s + %v, and at 20.004s", starts, bound)
				}
				if late := starts[1] - (10*time.Second + schedulerTick); late < 0 || late > bound {
					t.Errorf("h started %v late behind %d runs that hang, want at most %v (slowAfter %v on %v ticks)",
						late, tc.hung, bound, tc.limits.slowAfter, schedulerTick)
				}
			})
		})
	}
}
