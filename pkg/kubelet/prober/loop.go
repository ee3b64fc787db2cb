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
	"time"

	"k8s.io/utils/clock"
)

// maxLoopSleep bounds the loop's sleep, as client-go's delaying queue bounds
// its wait: a wake-up that some future change forgets to arrange costs at
// most this much, not a run.
const maxLoopSleep = time.Second

// denseTicks: the loop sleeps on a periodic ticker while the wheel's next due
// slot is at most this many ticks ahead (loop.go).
const denseTicks = 3

// tickerPhaseSlack: how far past a tick boundary the loop may create its
// ticker; the timer that woke it fires about this late anyway. Runs on the
// ticker start this much after their tick at most: it is the kernel's timer
// slack, not a part of the tick.
const tickerPhaseSlack = 100 * time.Microsecond

// loopWake is whether the loop runs and until when it sleeps, guarded by
// scheduler.mu. Whoever needs the loop earlier than armed lowers armed and
// sends on kick, both under mu; the loop sets armed under mu before it
// sleeps. kick holds one token, so a kick sent between the loop's unlock and
// its select is not lost, and concurrent kicks merge into one wake-up.
type loopWake struct {
	// looping: a loop goroutine runs. It exits with the last worker, so a
	// manager without probes has none.
	looping bool
	// armed is the tick until which the loop sleeps (noWake: until kicked).
	armed int64
	kick  chan struct{}
}

// by makes sure the loop wakes up by tick.
func (lw *loopWake) by(tick int64) {
	if tick < lw.armed {
		lw.armed = tick
		select {
		case lw.kick <- struct{}{}:
		default: // a kick is already pending
		}
	}
}

// loop is the wheel's goroutine. It sleeps until the earliest of the
// wheel's next non-empty slot, the pool's next possible demotion and
// maxLoopSleep; then it dispatches what is due, moves overrun fast runs,
// executes the quick ones of the due runs itself (inline.go), and sleeps
// again. It retires, with the parked executors, when the last worker exits.
//
// How it sleeps matters at density. A one-shot timer re-armed at every sleep
// is a new entry in the runtime's timer heap, earlier than the one the idle
// netpoller sleeps towards, so every sleep also costs a write to the
// netpoller's eventfd to break its wait (a fifth of the loop's CPU at 20,000
// probes every 10 s, where a slot comes due nearly every tick). A periodic
// ticker stays in the heap: so while the next due slot is at most denseTicks
// ahead the loop sleeps on a ticker at schedulerTick, and on a one-shot timer
// otherwise (always, with a clock that has no tickers). Empty ticker
// wake-ups are bounded by denseTicks-1 per gap.
func (s *scheduler) loop() {
	if s.wheelLoop() {
		s.exec.serve(newExecutor(), false)
	}
}

// wheelLoop is the loop proper. It returns true when it handed the wheel to
// another goroutine during a run it executed itself: its goroutine then
// serves as an executor.
func (s *scheduler) wheelLoop() (handedOff bool) {
	var timer clock.Timer
	var ticker clock.Ticker
	var tickerAt time.Duration // when ticker was created: it ticks every schedulerTick after
	tc, canTick := s.clock.(clock.WithTicker)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		if ticker != nil {
			ticker.Stop()
		}
	}()
	for {
		s.mu.Lock()
		if s.workers == 0 {
			s.wake.looping = false
			s.wake.armed = noWake
			s.exec.dismissIdle()
			s.mu.Unlock()
			return false
		}
		now := s.now()
		if s.mech.exactSparse {
			if t := s.wheel.lone(); t != nil && t.owner.sched.ticker.due <= now {
				s.wheel.cancel(t)
				if w := t.owner; s.dispatch(w, now, w.sched.ticker.due) {
					s.enqueue(w)
				}
			}
		}
		s.fired = s.wheel.advance(floorTick(now), s.fired[:0])
		for i, t := range s.fired {
			// Queued without waking an executor: runInline takes them.
			if w := t.owner; s.dispatch(w, now, w.sched.ticker.due) {
				s.enqueue(w)
			}
			s.fired[i] = nil
		}
		s.startDemoted(now)
		if s.exec.queue.len() > 0 {
			if !s.runInline(ticker != nil, tickerAt) {
				s.mu.Unlock()
				return true
			}
			now = s.now()
		}
		wake := floorTick(now + maxLoopSleep)
		if tick, ok := s.wheel.next(); ok {
			wake = min(wake, tick)
		}
		if at, ok := s.pool.nextDemotion(); ok {
			wake = min(wake, ceilTick(at))
		}
		ahead := wake - floorTick(now)
		// A new ticker ticks in the phase it is created in: only where the
		// loop woke on a tick boundary (as its timer wakes it, not a kick),
		// or runs would start that much after their due tick.
		var exactAt time.Duration = -1
		if s.mech.exactSparse {
			if t := s.wheel.lone(); t != nil && ceilTick(t.owner.sched.ticker.due) == wake {
				exactAt = t.owner.sched.ticker.due
			}
		}
		dense := canTick && !s.mech.noTickerMode && exactAt < 0 && ahead > 0 && ahead <= denseTicks &&
			(ticker != nil || now%schedulerTick <= tickerPhaseSlack)
		if dense {
			// The ticker's next tick, not wake: whoever needs the loop
			// before it kicks.
			s.wake.armed = floorTick(now) + 1
		} else {
			s.wake.armed = wake
		}
		s.mu.Unlock()

		var c <-chan time.Time
		if dense {
			if ticker == nil {
				tickerAt = s.now()
				ticker = tc.NewTicker(schedulerTick)
			}
			c = ticker.C()
		} else {
			if ticker != nil {
				ticker.Stop()
				ticker = nil
			}
			d := time.Duration(wake)*schedulerTick - s.now()
			if exactAt >= 0 {
				d = exactAt - s.now()
			}
			if timer == nil {
				timer = s.clock.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			c = timer.C()
		}
		select {
		case <-c:
		case <-s.wake.kick:
		}
	}
}
