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

import "time"

// probeTicker is upstream's per-worker time.Ticker, reduced to arithmetic on
// one due time, so that a worker needs no runtime timer and no goroutine.
//
// Upstream's worker loop is
//
//	[sleep]; ticker := NewTicker(period); for doProbe() { select { tick | trigger: Reset | stop } }
//
// and a Go ticker (since Go 1.23 as before) holds at most one pending tick for
// a receiver that is busy: a tick that falls while doProbe runs is received as
// soon as doProbe returns, and further ticks that fall meanwhile are dropped.
// Receiving a tick moves the ticker to its first grid point after the moment
// of receipt. So with a probe that takes 1.5 s on a 1 s period:
//
//	run at 0    ticks 1 (pending), 2 (not yet)        → ends 1.5, tick 1 is received
//	run at 1.5  tick 2 falls during the run (pending) → ends 3.0, tick 2 is received
//	                                                   and tick 3 (due at the same
//	                                                   moment) is dropped
//	run at 3    tick 4 pending                        → 4.5, 6, 7.5, ...
//
// due is the next grid point not yet received. The tick is received (consume)
// when the worker takes it: at due itself if the worker waits then, or when
// the run in flight ends if due falls during it (a pending tick). A manual
// trigger is Reset(period): the grid restarts at the trigger and a pending
// tick is discarded, as Go 1.23's Reset discards it. The grid starts one
// period after the first run's due time, where upstream creates its ticker,
// after the start-up sleep.
//
// All times are offsets from the scheduler's epoch; the scheduler's mutex
// guards the fields.
type probeTicker struct {
	period time.Duration
	due    time.Duration
}

// consume receives the tick due at or before now, and returns how many
// ticks fell since beyond the one a ticker keeps: upstream's ticker dropped
// those. Called only when pending(now).
func (t *probeTicker) consume(now time.Duration) (dropped int64) {
	dropped = int64((now - t.due) / t.period)
	t.due += time.Duration(dropped+1) * t.period
	return dropped
}

// reset restarts the grid at now, as upstream's probeTicker.Reset(period)
// after a manual trigger.
func (t *probeTicker) reset(now time.Duration) { t.due = now + t.period }

// pending reports whether a tick fell due at or before now and was not
// received yet.
func (t *probeTicker) pending(now time.Duration) bool { return t.due <= now }
