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
	"testing"
	"testing/synctest"
	"time"
)

// TestTicks: a time falls in the tick whose start is at or before it, on both
// sides of the epoch; a time before the epoch is a manager's whose clock
// started later than the one it is read with.
func TestTicks(t *testing.T) {
	const tick = schedulerTick
	tests := []struct {
		d           time.Duration
		floor, ceil int64
		phase       time.Duration
	}{
		{d: 0, floor: 0, ceil: 0, phase: 0},
		{d: 1, floor: 0, ceil: 1, phase: 1},
		{d: tick, floor: 1, ceil: 1, phase: 0},
		{d: 2*tick + tick/2, floor: 2, ceil: 3, phase: tick / 2},
		{d: -1, floor: -1, ceil: 0, phase: tick - 1},
		{d: -tick, floor: -1, ceil: -1, phase: 0},
		{d: -2*tick - tick/4, floor: -3, ceil: -2, phase: 3 * tick / 4},
	}
	for _, tc := range tests {
		if got := floorTick(tc.d); got != tc.floor {
			t.Errorf("floorTick(%v) = %d, want %d", tc.d, got, tc.floor)
		}
		if got := ceilTick(tc.d); got != tc.ceil {
			t.Errorf("ceilTick(%v) = %d, want %d", tc.d, got, tc.ceil)
		}
		if got := tickPhase(tc.d); got != tc.phase {
			t.Errorf("tickPhase(%v) = %v, want %v", tc.d, got, tc.phase)
		}
	}
}

// TestLoopSleep: the loop sleeps on its ticker while the next wake-up is at
// most denseTicks ahead, on a one-shot timer further ahead, and on nothing
// when nothing is due; each mode wakes it at the tick plan returns, and a
// ticker is created only by a loop its timer woke on a tick's start, so that
// its ticks fall there.
func TestLoopSleep(t *testing.T) {
	const tick = schedulerTick
	type step struct {
		now        time.Duration // since the epoch
		kicked     bool          // the loop was kicked at now, not woken by its timer
		wake       int64         // the tick the loop wants
		wantTicker bool
		wantArmed  int64         // the tick plan returns
		wantWoken  time.Duration // when the sleep ends, since the epoch (0: not within a second)
	}
	tests := []struct {
		name       string
		epochAhead time.Duration // the epoch is this far after the test's start
		steps      []step
	}{
		{"dense: the ticker, which ticks every tick", 0, []step{
			{now: 10 * tick, wake: 12, wantTicker: true, wantArmed: 11, wantWoken: 11 * tick},
			{now: 11 * tick, wake: 12, wantTicker: true, wantArmed: 12, wantWoken: 12 * tick},
		}},
		{"sparse: a one-shot timer to the tick", 0, []step{
			{now: 10 * tick, wake: 10 + denseTicks + 1, wantArmed: 10 + denseTicks + 1, wantWoken: (10 + denseTicks + 1) * tick},
		}},
		{"dense then sparse: the ticker stops", 0, []step{
			{now: 10 * tick, wake: 11, wantTicker: true, wantArmed: 11, wantWoken: 11 * tick},
			{now: 11 * tick, wake: 100, wantArmed: 100, wantWoken: 100 * tick},
		}},
		{"woken off a tick's start: no ticker, whose ticks would fall there", 0, []step{
			{now: 10*tick + tick/2, wake: 12, wantArmed: 12, wantWoken: 12 * tick},
		}},
		{"kicked just after a tick's start: no ticker, whose ticks would fall there", 0, []step{
			{now: 10*tick + tick/50, kicked: true, wake: 12, wantArmed: 12, wantWoken: 12 * tick},
		}},
		{"a running ticker stays off a tick's start", 0, []step{
			{now: 10 * tick, wake: 11, wantTicker: true, wantArmed: 11, wantWoken: 11 * tick},
			{now: 11*tick + tick/2, wake: 13, wantTicker: true, wantArmed: 12, wantWoken: 12 * tick},
		}},
		{"nothing due: no timer", 0, []step{
			{now: 10 * tick, wake: noWake, wantArmed: noWake},
		}},
		{"woken off a tick's start before the epoch: no ticker", 20 * tick, []step{
			{now: -10*tick + tick/2, wake: -8, wantArmed: -8, wantWoken: -8 * tick},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := loopSleep{epoch: time.Now().Add(tc.epochAhead)}
				defer l.stop()
				kick := make(chan struct{})
				for i, st := range tc.steps {
					time.Sleep(st.now - time.Since(l.epoch))
					l.woken = !st.kicked
					if got := l.plan(st.now, st.wake); got != st.wantArmed {
						t.Errorf("step %d: plan armed tick %d, want %d", i, got, st.wantArmed)
					}
					if ticker := l.ticker != nil; ticker != st.wantTicker {
						t.Errorf("step %d: sleeps on the ticker: %v, want %v", i, ticker, st.wantTicker)
					}
					woken := make(chan time.Duration)
					go func() {
						l.sleep(kick)
						woken <- time.Since(l.epoch)
					}()
					select {
					case at := <-woken:
						if at != st.wantWoken {
							t.Errorf("step %d: woke at %v, want %v", i, at, st.wantWoken)
						}
					case <-time.After(time.Second):
						if st.wantWoken != 0 {
							t.Errorf("step %d: not woken within a second, want at %v", i, st.wantWoken)
						}
						kick <- struct{}{}
						<-woken
					}
				}
			})
		})
	}
}
