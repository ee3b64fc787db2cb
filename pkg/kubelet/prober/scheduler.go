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
//	unstarted  not added yet, or added after leaving workers and waiting for
//	           their exits (handOff): a trigger or a stop waits.
//	idle       in the select; the wheel holds its next tick. A trigger or a
//	           stop is taken at once, unless the tick's time has passed: then
//	           the tick was taken first (settle), and the trigger or stop waits.
//	due        its next run decided, waiting for its tick or an executor; a
//	           trigger or a stop waits, as in upstream's channels.
//	running    when the run ends, run takes what upstream's select took
//	           first, from the instant upstream's run ended (its due time
//	           plus its length): the stop, the trigger (which restarts the
//	           period there and drops a pending tick) or the tick, whichever
//	           was there first; else idle.
//	exited     after the exit, a doProbe that returned false, or dropped by
//	           handOver: upstream's AddPod skipped it.
//
// The first run is decided when the worker is added: upstream's worker sees
// its channels only after its first probe. Every run starts on the first
// tick at or after its due time, so a worker's runs all start late by the
// same offset and its intervals are its period; an exit does not wait for a
// tick.
//
// Locking: the manager calls add, leaving and stop with its workerLock held,
// and trigger without it; a run calls into its worker (execute, which may take
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

// workerSched is a worker's scheduling state, guarded by scheduler.mu.
type workerSched struct {
	timer  wheelTimer
	ticker probeTicker
	dueAt  time.Duration // when the decided run became due
	state  runState
	next   action // the decided run (state due or running)
	// A value waits in upstream's trigger or stop channel, sent at
	// triggeredAt or stoppedAt.
	triggered, stopping    bool
	triggeredAt, stoppedAt time.Duration
	handOff                *handOff // rare: kept out of line, a worker's size is per probe
}

// handOff links a worker added after workers that are leaving
// (manager.leaving) to them: it waits, unstarted, for their exits, and is
// upstream's new worker only if upstream's had all exited by addedAt.
// Otherwise upstream's AddPod found one of them and skipped the container.
type handOff struct {
	addedAt, lastExit time.Duration // lastExit: the latest of the predecessors' exits
	waiting           int           // the predecessors that have not exited
	successors        []*worker     // the workers waiting for this one
}

func (ws *workerSched) link() *handOff {
	if ws.handOff == nil {
		ws.handOff = &handOff{}
	}
	return ws.handOff
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

// add starts w: its first run is due after delay, its ticker's grid one
// period later, as upstream creates its ticker after its start-up sleep. If
// workers in after have not exited, w waits for them (handOver).
func (s *scheduler) add(w *worker, period, delay time.Duration, after []*worker) {
	s.mu.Lock()
	defer s.unlock()
	ws := &w.sched
	ws.timer.owner = w
	s.workers++
	if !s.looping {
		s.looping = true
		go s.loop()
	}
	now := s.now()
	first := now + max(delay, 0)
	ws.ticker = probeTicker{period: period, due: first + period}
	ws.dueAt = first
	waiting := 0
	for _, prev := range after {
		if ps := &prev.sched; ps.state != exited {
			h := ps.link()
			h.successors = append(h.successors, w)
			waiting++
		}
	}
	if waiting == 0 {
		s.decide(w, actProbe, first, now)
		return
	}
	h := ws.link()
	h.addedAt, h.waiting = now, waiting
}

// leaving reports whether w has a stop waiting or has exited.
func (s *scheduler) leaving(w *worker) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return w.sched.stopping || w.sched.state == exited
}

// handOver tells the workers waiting for w that upstream's w left at exitAt:
// the last of a worker's predecessors to exit starts it, if every one had
// left upstream's map by the time it was added, and drops it otherwise
// (returned: the caller removes them from the manager's map). A dropped
// worker never existed upstream, so its own successors wait for what it
// waited for.
func (s *scheduler) handOver(w *worker, exitAt, now time.Duration) (dropped []*worker) {
	h := w.sched.handOff
	if h == nil {
		return nil
	}
	w.sched.handOff = nil
	for _, next := range h.successors {
		nh := next.sched.handOff
		nh.lastExit = max(nh.lastExit, exitAt)
		if nh.waiting--; nh.waiting > 0 {
			continue
		}
		if nh.lastExit <= nh.addedAt {
			s.decide(next, actProbe, next.sched.dueAt, now)
			continue
		}
		next.sched.state = exited
		s.workers--
		dropped = append(dropped, next)
		dropped = append(dropped, s.handOver(next, nh.lastExit, now)...)
	}
	return dropped
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
		ws.triggered, ws.triggeredAt = true, now
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
	now := s.now()
	ws.stopping, ws.stoppedAt = true, now
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

// decide makes a, due at at, the worker's next run. An exit does not wait
// for a tick: upstream's worker leaves the manager's map as soon as it takes
// the stop, and an AddPod after that creates a new worker.
func (s *scheduler) decide(w *worker, a action, at, now time.Duration) {
	ws := &w.sched
	s.wheel.cancel(&ws.timer)
	ws.state, ws.next, ws.dueAt = due, a, at
	tick := ceilTick(at)
	if a == actExit {
		tick = floorTick(now)
	}
	s.file(w, tick, now)
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
	began := s.now()
	s.metrics.started(began - ws.dueAt)
	s.mu.Unlock()

	keepGoing := w.execute(a)

	s.mu.Lock()
	now := s.now()
	s.running--
	// Upstream's run began at dueAt and ended at ended.
	ended := ws.dueAt + (now - began)
	if a == actExit || !keepGoing {
		ws.state = exited
		s.workers--
		dropped := s.handOver(w, ended, now)
		if s.workers == 0 {
			s.wakeBy(math.MinInt64) // the loop ends
		}
		next := s.submit(true)
		s.mu.Unlock()
		for _, d := range dropped {
			d.probeManager.removeWorker(d)
		}
		return next
	}
	defer s.mu.Unlock()
	// From ended, upstream's worker waited in its select, and took the first
	// of the stop, the trigger and the tick to arrive (stop first on a tie,
	// as in stop and trigger).
	stopAt, triggerAt, tickAt := ended, ended, ended
	if ws.stopping {
		stopAt = max(stopAt, ws.stoppedAt)
	}
	if ws.triggered {
		triggerAt = max(triggerAt, ws.triggeredAt)
	}
	tickAt = max(tickAt, ws.ticker.due)
	switch {
	case ws.stopping && (!ws.triggered || stopAt <= triggerAt) && stopAt <= tickAt:
		s.decide(w, actExit, stopAt, now)
	case ws.triggered && triggerAt <= tickAt:
		ws.triggered = false
		ws.ticker.reset(triggerAt)
		s.decide(w, actManual, triggerAt, now)
	case tickAt <= now:
		if dropped := ws.ticker.consume(tickAt); dropped > 0 {
			s.metrics.skipped(w.probeType, dropped)
		}
		s.decide(w, actProbe, tickAt, now)
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
