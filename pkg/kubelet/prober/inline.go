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

// The loop runs quick runs itself. Handing a tick's due runs to an executor
// costs a goroutine wake-up on top of the loop's own — a trip through the Go
// scheduler and a futex, about what a whole no-op probe run costs — so at
// density the hand-off would be most of what the scheduler adds to a run.
// Instead the goroutine that woke for a tick executes that tick's runs, one
// after the other, as long as each is known to be quick (its probe's last run
// took less than inlineMaxRun) and the batch has not used up inlineBudget;
// whatever is left goes to executors.
//
// The wheel must never wait behind a run (Netty #11724: a slow task run on
// the wheel's thread makes every timer late). So the loop's goroutine is the
// wheel's only while it is not in a run for long: a watchdog timer armed for
// the batch hands the wheel to a new goroutine when a run is still going
// inlineWatch after the batch started (at the loop's first tick after that:
// watchdogAfter), and a run about to block on a full
// results channel (delivery.go) hands it off at once. The old goroutine
// finishes its run and serves as an executor from then on. This is the
// leader/follower pattern, with the follower started only when needed.
//
// Example, tick 250 with runs A, B, C due, all quick, B's target has just
// started to hang:
//
//	loop (G1) wakes for tick 250, arms the watchdog for tick 251, runs A (12 µs)
//	G1 runs B, which hangs
//	at tick 251, 4 ms after the batch started, the watchdog fires: G2 becomes
//	the loop, an executor takes C
//	G1: B times out, so its probe is not quick; G1 serves as an executor.
//
// So a quick probe that turns slow delays the runs queued behind it on its
// tick by at most inlineWatchMax, once, and the wheel by no more.

// inlineBatch is the loop's own runs of its tick, guarded by scheduler.mu.
// run is non-nil only while the loop's goroutine is in that run, and
// handOff clears it: that is how the goroutine learns, when the run ends,
// that it is no longer the loop. The watchdog is armed only while a batch
// runs.
type inlineBatch struct {
	run      *worker
	start    time.Duration // when the batch started
	watchdog clock.Timer
	// handOffs counts the loops started while the loop's goroutine was in a
	// run.
	handOffs int64
}

// inlineMaxRun: the loop runs a probe itself only if its last run took less.
// No-op and loopback probes take tens to hundreds of microseconds.
const inlineMaxRun = time.Millisecond

// inlineBudget: the loop stops taking runs itself once a batch has taken
// this long, and wakes an executor for the rest, so that a crowded tick
// still spreads over the cores.
const inlineBudget = time.Millisecond

// inlineWatch: a batch still running this long after it started hands the
// wheel to a new goroutine. A batch of quick runs ends within inlineBudget
// plus one run under inlineMaxRun, so only a run that is not quick any more
// lasts until then; the wheel is never more than that behind because of a run.
const inlineWatch = inlineBudget + inlineMaxRun

// watchdogSlack puts the watchdog just after the loop's ticker tick it is
// aligned with (watchdogAfter), so that one wake-up of the runtime's timers
// serves both.
const watchdogSlack = 50 * time.Microsecond

// inlineWatchMax bounds how long after a batch started the watchdog fires.
const inlineWatchMax = inlineWatch + schedulerTick + watchdogSlack

// watchdogAfter is how long after start the watchdog of a batch fires: at
// least inlineWatch, and, while the loop sleeps on its ticker (created at
// tickerAt), with the first tick after that. A watchdog of its own, 2 ms
// after every batch, would be the earliest timer in the runtime's heap at
// each tick: the idle P's netpoll would be broken to re-arm for it, and woken
// once more after the batch had stopped it, three times the wake-ups at 110
// pods, where most ticks carry one run.
func watchdogAfter(start time.Duration, dense bool, tickerAt time.Duration) time.Duration {
	if !dense {
		return inlineWatch
	}
	ticks := (start + inlineWatch - tickerAt + schedulerTick - 1) / schedulerTick
	return tickerAt + ticks*schedulerTick + watchdogSlack - start
}

// runInline executes the ready runs on the loop's goroutine, as long as each
// is a quick fast-lane probe run and the batch is within inlineBudget, and
// wakes an executor for the rest. It reports false if the wheel was handed
// to another goroutine meanwhile: the caller is then no longer the loop.
// dense and tickerAt say whether the loop sleeps on its ticker and when it
// created it (watchdogAfter). Called with s.mu held; it releases it during
// each run.
func (s *scheduler) runInline(dense bool, tickerAt time.Duration) bool {
	dc, ok := s.clock.(clock.WithDelayedExecution)
	if !ok || s.mech.noInline {
		s.exec.wake() // no watchdog, no inline runs
		return true
	}
	start := s.now()
	s.inline.start = start
	d := watchdogAfter(start, dense, tickerAt)
	if s.inline.watchdog == nil {
		s.inline.watchdog = dc.AfterFunc(d, s.takeOver)
	} else {
		s.inline.watchdog.Reset(d)
	}
	for s.exec.queue.len() > 0 {
		w := s.exec.queue.peek()
		ws := &w.sched
		// Manual and clean-up runs come through other paths; a worker
		// stopped or triggered meanwhile goes to an executor as well.
		if !ws.quick || w.pool.lane != fastLane || ws.stopping || ws.triggered || s.now()-start >= inlineBudget {
			break
		}
		s.exec.queue.pop()
		s.inline.run = w
		a := s.begin(w, s.now())
		s.mu.Unlock()
		keepGoing := w.execute(a)
		s.mu.Lock()
		handedOff := s.inline.run != w
		if !handedOff {
			s.inline.run = nil
		}
		s.finish(w, a, keepGoing)
		if handedOff {
			return false
		}
	}
	s.inline.watchdog.Stop()
	s.exec.wake()
	return true
}

// takeOver is the watchdog's: the loop's goroutine is still in a run,
// unless the watchdog fired for an earlier batch while this one was starting.
func (s *scheduler) takeOver() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inline.run != nil && s.now()-s.inline.start >= inlineWatch {
		s.handOff()
	}
}

// handOff makes a new goroutine the loop while the current one is in a run,
// and wakes an executor for the runs it left in the ready queue. Called with
// s.mu held.
func (s *scheduler) handOff() {
	s.inline.run = nil // how the old loop learns, when its run ends, that it is no longer the loop
	s.inline.watchdog.Stop()
	s.inline.handOffs++
	go s.loop()
	s.exec.wake()
}
