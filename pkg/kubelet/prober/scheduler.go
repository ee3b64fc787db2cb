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
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// scheduler decides when each worker probes, in place of upstream's goroutine
// per worker: a worker's next run waits in the timing wheel, one goroutine
// (loop) sleeps until the wheel's next non-empty slot and hands what is due
// to the executors. It is upstream's worker with every run started on the
// first tick at or after the instant upstream's would start it: that worker
// takes what is ready in its select (its ticker, its one-slot trigger and stop
// channels), and a trigger or a stop that comes while the run it decided on
// waits for its tick waits in its channel. A worker is
//
//	stateUnstarted  not added yet.
//	stateIdle       in the select; the wheel holds its next tick. A trigger or
//	                a stop is taken at once, unless the tick's time has passed:
//	                then the tick was taken first (settleLocked), and the trigger or
//	                stop waits.
//	stateDue        its next run decided, waiting for its tick or an executor;
//	                a trigger or a stop waits, as in upstream's channels.
//	stateRunning    when the run ends, run takes what is there: the stop, else
//	                the trigger (which restarts the period and drops a pending
//	                tick), else a pending tick; else the worker is idle.
//	stateExited     after the exit, or a doProbe that returned false. It
//	                leaves the manager's map then, as upstream's does: until
//	                that instant an AddPod finds it and skips the container.
//
// The first run is decided when the worker is added: upstream's worker sees
// its channels only after its first probe. An exit does not wait for a tick:
// upstream's worker leaves the map as soon as it takes the stop.
//
// Locking: the manager calls add and stop with its workerLock held,
// and trigger without it; a run calls into its worker (execute, which may take
// workerLock) without s.mu. The order is workerLock, s.mu, exec.mu. A method
// whose name ends in Locked needs s.mu held; the state table is enforced:
// decideLocked and run panic on a transition it does not have.
type scheduler struct {
	epoch   time.Time // tick 0 of the wheel
	metrics schedulerMetrics
	exec    executors
	// execLimit is the manager's bound on exec runs (exec_limit.go), here for
	// stop and for the collector, which may read it as NewManager sets it.
	execLimit atomic.Pointer[execLimit]

	mu      sync.Mutex
	last    time.Duration // what nowLocked last returned
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

// workerSched is a worker's scheduling state, guarded by scheduler.mu.
type workerSched struct {
	timer  wheelTimer
	ticker probeTicker
	dueAt  time.Duration // when the decided run became due
	state  runState
	next   action // the decided run (stateDue or stateRunning)
	// A value waits in upstream's trigger or stop channel.
	triggered, stopping bool
}

type runState uint8

const (
	stateUnstarted runState = iota
	stateIdle
	stateDue
	stateRunning
	stateExited
)

type action uint8

const (
	actProbe  action = iota // the first run, or a tick's
	actManual               // a manual trigger's
	actExit                 // clean up after a stop
)

// collected is the newest scheduler, whose runs in flight the kubelet's
// metrics read when scraped.
var collected atomic.Pointer[scheduler]

// newScheduler counts its ticks from epoch, the manager's start, as the
// oracle does.
func newScheduler(metrics schedulerMetrics, epoch time.Time) *scheduler {
	s := &scheduler{
		epoch:   epoch,
		metrics: metrics,
		armed:   noWake,
	}
	s.exec = executors{run: s.run, maxIdle: maxIdleExecutors}
	collected.Store(s)
	return s
}

// nowLocked is the time since epoch, never less than it was: the wheel has
// advanced to it, and a tick it has passed must not come again. A process's
// clock never runs back, but one read in a synctest bubble other than the
// epoch's reads before the epoch, and each bubble's starts at the same instant
// (upstream's TestAddRemovePodsWithRestartableInitContainer shares one manager
// between two bubbles). add restarts the clock and the wheel with the first
// worker, so that such a clock runs on from wherever it reads.
func (s *scheduler) nowLocked() time.Duration {
	s.last = max(s.last, time.Since(s.epoch))
	return s.last
}

// add starts w: its first run is due after delay, its ticker's grid one
// period later, as upstream creates its ticker after its start-up sleep.
func (s *scheduler) add(w *worker, period, delay time.Duration) {
	s.mu.Lock()
	defer s.unlock()
	ws := &w.sched
	ws.timer.owner = w
	if s.workers == 0 {
		s.last = time.Since(s.epoch)
		s.wheel.restart(floorTick(s.last))
	}
	s.workers++
	if !s.looping {
		// A kick channel per loop, made where the loop starts: a synctest
		// bubble's loop then blocks on a channel of its bubble, durably.
		s.looping, s.kick = true, make(chan struct{}, 1)
		go s.loop(s.kick)
	}
	now := s.nowLocked()
	first := now + max(delay, 0)
	ws.ticker = probeTicker{period: period, due: first + period}
	s.decideLocked(w, actProbe, first, now)
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
	now := s.nowLocked()
	s.settleLocked(w, now)
	if ws.state == stateIdle {
		ws.ticker.reset(now)
		s.decideLocked(w, actManual, now, now)
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
	now := s.nowLocked()
	ws.stopping = true
	s.settleLocked(w, now)
	if ws.state == stateIdle {
		s.decideLocked(w, actExit, now, now)
	}
	// Upstream never starts a run after its worker took the stop: a run that
	// waits for the exec limit, or would, is dropped.
	s.execLimit.Load().abandon(&w.cache)
}

// settleLocked: an idle worker whose tick has fallen due took it then.
func (s *scheduler) settleLocked(w *worker, now time.Duration) {
	if ws := &w.sched; ws.state == stateIdle && ws.ticker.pending(now) {
		at := ws.ticker.due
		ws.ticker.consume(at)
		s.decideLocked(w, actProbe, at, now)
	}
}

// decideLocked makes a, due at at, the worker's next run. An exit does not wait
// for a tick: upstream's worker leaves the manager's map as soon as it takes
// the stop, and an AddPod after that creates a new worker.
func (s *scheduler) decideLocked(w *worker, a action, at, now time.Duration) {
	ws := &w.sched
	if st := ws.state; st != stateUnstarted && st != stateIdle && st != stateRunning {
		panic(fmt.Sprintf("prober: scheduler: a worker in state %d decided on a run: it has one, or has exited", st))
	}
	s.wheel.cancel(&ws.timer)
	ws.state, ws.next, ws.dueAt = stateDue, a, at
	tick := ceilTick(at)
	if a == actExit {
		tick = floorTick(now)
	}
	s.fileLocked(w, tick, now)
}

// fileLocked waits for tick, or readies a decided run if tick has come.
func (s *scheduler) fileLocked(w *worker, tick int64, now time.Duration) {
	if tick > floorTick(now) && s.wheel.schedule(&w.sched.timer, tick) {
		s.wakeByLocked(tick)
	} else {
		s.ready = append(s.ready, w)
	}
}

// run is an executor's: it runs w and returns a run for the same executor to
// take next, if w's next run is due at once.
func (s *scheduler) run(w *worker) *worker {
	ws := &w.sched
	s.mu.Lock()
	if ws.state != stateDue {
		panic(fmt.Sprintf("prober: scheduler: a run of a worker in state %d: two runs in flight, or a run of an exited worker", ws.state))
	}
	ws.state = stateRunning
	a := ws.next
	s.running++
	s.metrics.started(s.nowLocked() - ws.dueAt)
	s.mu.Unlock()

	keepGoing := w.execute(a)

	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.nowLocked()
	if s.running--; s.running < 0 {
		panic("prober: scheduler: more runs ended than started")
	}
	if a == actExit || !keepGoing {
		ws.state = stateExited
		if s.workers--; s.workers < 0 {
			panic("prober: scheduler: more workers exited than were added")
		}
		if s.workers == 0 {
			s.wakeByLocked(math.MinInt64) // the loop ends
		}
		return s.submitLocked(true)
	}
	// Upstream's worker is back in its select: what waits there is taken,
	// the stop first, then the trigger, then the tick (bench/oracle's pick).
	switch {
	case ws.stopping:
		s.decideLocked(w, actExit, now, now)
	case ws.triggered:
		ws.triggered = false
		ws.ticker.reset(now)
		s.decideLocked(w, actManual, now, now)
	case ws.ticker.pending(now):
		if dropped := ws.ticker.consume(now); dropped > 0 {
			s.metrics.skipped(w.probeType, dropped)
		}
		s.decideLocked(w, actProbe, now, now)
	default:
		ws.state = stateIdle
		s.fileLocked(w, ceilTick(ws.ticker.due), now) // due > now: filed
	}
	return s.submitLocked(true)
}

// submitLocked gives the ready runs to the executors, but the first if keep,
// which it returns to the caller.
func (s *scheduler) submitLocked(keep bool) (first *worker) {
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
	s.submitLocked(false)
	s.mu.Unlock()
}

// wakeByLocked makes sure the loop wakes up by tick.
func (s *scheduler) wakeByLocked(tick int64) {
	if tick < s.armed {
		s.armed = tick
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}
