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
	"time"
)

// schedulerTick is the wheel's resolution. Runs due within one tick share
// the loop's wake-up and an executor's, which is most of what the scheduler
// costs a run at density; with a tick that divides a second, a worker's runs
// keep one offset from their due times in every period (periods are whole
// seconds).
const schedulerTick = 4 * time.Millisecond

// noWake: no tick to wake for, only a kick.
const noWake = math.MaxInt64

func floorTick(d time.Duration) int64 {
	t := int64(d / schedulerTick) // toward zero: one tick up for a time before the epoch
	if d%schedulerTick < 0 {
		t--
	}
	return t
}

// tickPhase is how far d is past the start of its tick, in [0, schedulerTick),
// before the epoch too (where d%schedulerTick is negative).
func tickPhase(d time.Duration) time.Duration {
	return d - time.Duration(floorTick(d))*schedulerTick
}

func ceilTick(d time.Duration) int64 {
	t := int64(d / schedulerTick)
	if d%schedulerTick > 0 {
		t++
	}
	return t
}

// loopSleep is how the scheduler's loop sleeps until a tick. While the next
// wake-up is at most denseTicks ahead it sleeps on a periodic ticker at
// schedulerTick: a one-shot timer re-armed at every sleep is a new entry in
// the runtime's timer heap, earlier than the one the idle netpoller sleeps
// towards, and breaks the netpoller's wait through its eventfd each time; a
// ticker's next tick is already in the heap. Further ahead it sleeps on a
// one-shot timer, so that an idle wheel costs no wake-ups. Empty ticker
// wake-ups are at most denseTicks-1 per gap.
type loopSleep struct {
	epoch  time.Time // the scheduler's
	timer  *time.Timer
	ticker *time.Ticker
	c      <-chan time.Time
	// woken: the last sleep ended on the timer or the ticker, at a tick's
	// start, not on a kick, which comes at any instant.
	woken bool
}

const denseTicks = 3

// tickerPhaseSlack: how far past a tick's start the loop may create its
// ticker, which ticks in the phase it is created in; the timer that woke the
// loop fires about that late anyway. Only a loop its timer woke creates one:
// a kick's instant is anyone's, and a ticker in its phase would start every
// run after it late by that much, where the oracle starts them on the tick.
const tickerPhaseSlack = 100 * time.Microsecond

// plan arranges to wake at tick wake (noWake: only when kicked), seen at now,
// and returns the tick by which the loop will wake by itself.
func (l *loopSleep) plan(now time.Duration, wake int64) int64 {
	ahead := wake - floorTick(now)
	if ahead > 0 && ahead <= denseTicks && (l.ticker != nil || l.woken && tickPhase(now) <= tickerPhaseSlack) {
		if l.ticker == nil {
			l.ticker = time.NewTicker(schedulerTick)
		}
		l.c = l.ticker.C
		return floorTick(now) + 1 // whoever needs the loop before the ticker's next tick kicks it
	}
	if l.ticker != nil {
		l.ticker.Stop()
		l.ticker = nil
	}
	if wake == noWake {
		l.c = nil
		return noWake
	}
	d := time.Duration(wake)*schedulerTick - time.Since(l.epoch)
	if l.timer == nil {
		l.timer = time.NewTimer(d)
	} else {
		l.timer.Reset(d)
	}
	l.c = l.timer.C
	return wake
}

// sleep waits for what plan arranged or a kick.
func (l *loopSleep) sleep(kick <-chan struct{}) {
	select {
	case <-l.c:
		l.woken = true
	case <-kick:
		l.woken = false
	}
}

func (l *loopSleep) stop() {
	if l.timer != nil {
		l.timer.Stop()
	}
	if l.ticker != nil {
		l.ticker.Stop()
	}
}

// loop is the wheel's goroutine: it sleeps until the wheel's next non-empty
// slot, readies what is due, and ends with the last worker.
func (s *scheduler) loop(kick <-chan struct{}) {
	sl := loopSleep{epoch: s.epoch}
	defer sl.stop()
	var fired []*wheelTimer
	for {
		s.mu.Lock()
		if s.workers == 0 {
			// The executors close under mu, so that an add that starts a new
			// loop submits after the close, whose closed mark it clears.
			s.looping, s.armed = false, noWake
			s.exec.close()
			s.mu.Unlock()
			return
		}
		now := s.nowLocked()
		fired = s.wheel.advance(floorTick(now), fired[:0])
		for i, t := range fired {
			if w := t.owner; w.sched.state == stateIdle {
				s.settleLocked(w, now)
			} else {
				s.fileLocked(w, floorTick(now), now) // a decided run whose tick came
			}
			fired[i] = nil
		}
		wake := int64(noWake)
		if tick, ok := s.wheel.next(); ok {
			wake = tick
		}
		if wake <= floorTick(now) {
			panic("prober: scheduler: the loop would wake for a tick it has handled") // wheel.go's invariant
		}
		s.armed = sl.plan(now, wake)
		s.unlock()
		sl.sleep(kick)
	}
}
