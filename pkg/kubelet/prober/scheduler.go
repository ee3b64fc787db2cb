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
	"sync"
	"time"
)

// scheduler decides when each worker probes, in place of upstream's goroutine
// per worker: a worker's next run waits in the timing wheel, one goroutine
// (loop) sleeps until the wheel's next non-empty slot and hands what is due
// to the executors, which run it.
//
// Upstream's worker waits in a select on its ticker, its one-slot trigger
// channel and its stop channel, and takes whichever is ready first, at that
// instant. Each of those decisions is made here for the instant upstream's
// worker makes it, and nothing that comes later changes it: a run that is
// due runs, however late its tick or an executor lets it start. A worker is
//
//	unstarted  not added yet: a trigger or a stop waits.
//	idle       in the select; the wheel holds its next tick. A trigger or a
//	           stop is taken at once, unless the tick's time has passed: then
//	           the tick was taken first (settle), and the trigger or stop waits.
//	due        its next run decided, waiting for its tick or an executor; a
//	           trigger or a stop waits, as in upstream's channels.
//	running    when the run ends, run takes what waits as upstream's select
//	           would: the stop, else the trigger (which restarts the period
//	           and drops a pending tick), else a pending tick, else idle.
//	exited     after the exit, or a doProbe that returned false.
//
// The first run is decided when the worker is added: upstream's worker sees
// its channels only after its first probe. Every run starts on the first
// tick at or after its due time, so a worker's runs all start late by the
// same offset and its intervals are its period.
//
// Locking: the manager calls add and stop with its workerLock held, and
// trigger without it; a run calls into its worker (execute, which may take
// workerLock) without s.mu. The order is workerLock, s.mu, exec.mu.
type scheduler struct {
	epoch   time.Time // tick 0 of the wheel
	metrics schedulerMetrics
	exec    executors

	mu      sync.Mutex
	wheel   timingWheel
	running int  // runs in flight
	workers int  // added and not exited; the loop runs while it is positive
	looping bool // a loop goroutine runs
	// armed is the tick the loop sleeps until; whoever needs it earlier
	// lowers it and sends on kick, which holds one token, so that a kick
	// between the loop's unlock and its select is not lost.
	armed int64
	kick  chan struct{}
	ready []*worker // runs that are due, handed to the executors on unlock
}

// schedulerTick is the wheel's resolution. Runs due within one tick share
// the loop's wake-up and an executor's, which is most of what the scheduler
// costs a run at density; with a tick that divides a second, a worker's runs
// keep one offset from their due times in every period (periods are whole
// seconds).
const schedulerTick = 4 * time.Millisecond

const noWake = math.MaxInt64

// workerSched is a worker's scheduling state, guarded by scheduler.mu.
type workerSched struct {
	timer  wheelTimer
	ticker probeTicker
	dueAt  time.Duration // when the decided run became due
	state  runState
	next   action // the decided run (state due or running)
	// A value waits in upstream's trigger or stop channel.
	triggered, stopping bool
}

type runState uint8

const (
	unstarted runState = iota
	idle
	due
	running
	exited
)

type action uint8

const (
	actProbe  action = iota // the first run, or a tick's
	actManual               // a manual trigger's
	actExit                 // clean up after a stop
)

func newScheduler(metrics schedulerMetrics) *scheduler {
	s := &scheduler{
		epoch:   time.Now(),
		metrics: metrics,
		armed:   noWake,
		kick:    make(chan struct{}, 1),
	}
	s.exec = executors{run: s.run, maxIdle: maxIdleExecutors}
	collected.Store(s)
	return s
}

func (s *scheduler) now() time.Duration { return time.Since(s.epoch) }

func floorTick(d time.Duration) int64 { return int64(d / schedulerTick) }
func ceilTick(d time.Duration) int64  { return int64((d + schedulerTick - 1) / schedulerTick) }

// add starts w: its first run is due after delay, its ticker's grid one
// period later, as upstream creates its ticker after its start-up sleep.
func (s *scheduler) add(w *worker, period, delay time.Duration) {
	s.mu.Lock()
	defer s.unlock()
	w.sched.timer.owner = w
	s.workers++
	if !s.looping {
		s.looping = true
		go s.loop()
	}
	now := s.now()
	first := now + max(delay, 0)
	w.sched.ticker = probeTicker{period: period, due: first + period}
	s.decide(w, actProbe, first, now)
}

// trigger is a send on upstream's one-slot trigger channel: false while an
// earlier trigger waits.
func (s *scheduler) trigger(w *worker) bool {
	s.mu.Lock()
	defer s.unlock()
	ws := &w.sched
	if ws.triggered {
		return false
	}
	now := s.now()
	s.settle(w, now)
	if ws.state == idle {
		ws.ticker.reset(now)
		s.decide(w, actManual, now, now)
	} else {
		ws.triggered = true
	}
	return true
}

// stop is a send on upstream's stop channel; repeated stops do nothing.
func (s *scheduler) stop(w *worker) {
	s.mu.Lock()
	defer s.unlock()
	ws := &w.sched
	if ws.stopping {
		return
	}
	ws.stopping = true
	now := s.now()
	s.settle(w, now)
	if ws.state == idle {
		s.decide(w, actExit, now, now)
	}
}

// settle: an idle worker whose tick has fallen due took it then.
func (s *scheduler) settle(w *worker, now time.Duration) {
	if ws := &w.sched; ws.state == idle && ws.ticker.pending(now) {
		at := ws.ticker.due
		ws.ticker.consume(at)
		s.decide(w, actProbe, at, now)
	}
}

// decide makes a, due at at, the worker's next run.
func (s *scheduler) decide(w *worker, a action, at, now time.Duration) {
	ws := &w.sched
	s.wheel.cancel(&ws.timer)
	ws.state, ws.next, ws.dueAt = due, a, at
	s.file(w, ceilTick(at), now)
}

// file waits for tick, or readies a decided run if tick has come.
func (s *scheduler) file(w *worker, tick int64, now time.Duration) {
	if tick > floorTick(now) && s.wheel.schedule(&w.sched.timer, tick) {
		s.wakeBy(tick)
	} else {
		s.ready = append(s.ready, w)
	}
}

// run is an executor's: it runs w and returns a run for the same executor to
// take next, if w's next run is due at once.
func (s *scheduler) run(w *worker) *worker {
	ws := &w.sched
	s.mu.Lock()
	ws.state = running
	a := ws.next
	s.running++
	s.metrics.started(s.now() - ws.dueAt)
	s.mu.Unlock()

	keepGoing := w.execute(a)

	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.running--
	switch {
	case a == actExit || !keepGoing:
		ws.state = exited
		if s.workers--; s.workers == 0 {
			s.wakeBy(math.MinInt64) // the loop ends
		}
	case ws.stopping:
		s.decide(w, actExit, now, now)
	case ws.triggered:
		ws.triggered = false
		ws.ticker.reset(now)
		s.decide(w, actManual, now, now)
	case ws.ticker.pending(now):
		if dropped := ws.ticker.consume(now); dropped > 0 {
			s.metrics.skipped(w.probeType, dropped)
		}
		s.decide(w, actProbe, now, now)
	default:
		ws.state = idle
		s.file(w, ceilTick(ws.ticker.due), now) // due > now: filed
	}
	return s.submit(true)
}

// submit gives the ready runs to the executors, but the first if keep, which
// it returns to the caller. Called with mu held.
func (s *scheduler) submit(keep bool) (first *worker) {
	runs := s.ready
	if keep && len(runs) > 0 {
		first, runs = runs[0], runs[1:]
	}
	s.exec.submit(runs)
	clear(s.ready)
	s.ready = s.ready[:0]
	return first
}

// unlock releases mu after a call that may have readied runs.
func (s *scheduler) unlock() {
	s.submit(false)
	s.mu.Unlock()
}

// wakeBy makes sure the loop wakes up by tick.
func (s *scheduler) wakeBy(tick int64) {
	if tick < s.armed {
		s.armed = tick
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// loop is the wheel's goroutine: it sleeps until the wheel's next non-empty
// slot, readies what is due, and ends with the last worker.
func (s *scheduler) loop() {
	sl := loopSleep{epoch: s.epoch}
	defer sl.stop()
	var fired []*wheelTimer
	for {
		s.mu.Lock()
		if s.workers == 0 {
			s.looping, s.armed = false, noWake
			s.mu.Unlock()
			s.exec.close()
			return
		}
		now := s.now()
		fired = s.wheel.advance(floorTick(now), fired[:0])
		for i, t := range fired {
			if w := t.owner; w.sched.state == idle {
				s.settle(w, now)
			} else {
				s.file(w, floorTick(now), now) // a decided run whose tick came
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
		sl.sleep(s.kick)
	}
}
