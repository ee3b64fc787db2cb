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

	"k8s.io/utils/clock"
)

// scheduler decides when each worker probes and how many probe at once. A
// worker's next run sits in the timing wheel; one goroutine sleeps until the
// wheel's next non-empty slot, then hands what is due to the pool, and the
// pool runs each admitted worker on a goroutine that lives for that run (or
// for a chain of runs handed over from the queue). Runs never execute on the
// wheel's goroutine, so a slow probe cannot delay the wheel.
//
// Each worker is in exactly one state:
//
//	new ──add──▶ idle (timer in the wheel) ──due──▶ queued ──slot──▶ running
//	               ▲                          └──────────slot─────────▲  │
//	               └────────────── next due (fixed rate) ───────────────┘
//	running ──doProbe returns false, or stop──▶ exited
//
// Runs are due on a fixed grid, due += period, so periods do not drift with
// probe duration or wake-up lateness. A run that comes due while the
// previous one is still queued or running is skipped, as upstream's ticker
// drops ticks. stop and trigger are O(1): they cancel the wheel timer.
type scheduler struct {
	clock   clock.Clock
	epoch   time.Time // tick 0 of the wheel
	metrics schedulerMetrics

	mu    sync.Mutex
	wheel *timingWheel
	pool  pool
	// workers counts workers added and not yet exited; the loop goroutine
	// runs only while it is positive, so a manager without probes has none.
	workers int
	looping bool
	// armed is the tick the loop sleeps until (noWake: until kicked). An
	// earlier timer kicks the loop.
	armed int64
	kick  chan struct{}
	// idle executors, most recently parked last.
	idle    []*executor
	maxIdle int
	// Buffers the loop reuses.
	fired   []*wheelTimer
	started []*worker
}

// executor is a goroutine that runs what the scheduler hands it. Executors
// park when idle (up to maxIdle of them) instead of exiting, because a
// goroutine's stack has to grow to doProbe's depth: a fresh goroutine per
// run spent a quarter of the prober's CPU in runtime.copystack.
type executor struct {
	work chan runItem // capacity 1: a hand-over never blocks the scheduler
}

// runItem is a hand-over to an executor; the zero value retires it.
type runItem struct {
	w *worker
	a action
}

// schedulerTick is the wheel's resolution. Runs start within one tick plus
// the kernel's timer slack of their due time.
const schedulerTick = time.Millisecond

const noWake = math.MaxInt64

// workerSched is a worker's scheduling state, guarded by scheduler.mu.
type workerSched struct {
	state  runState
	timer  wheelTimer
	period time.Duration
	// Times are offsets from scheduler.epoch. due is when the current or
	// next run is due.
	due, queuedAt, startedAt time.Duration
	lane                     lane
	// slow: the last run overran, so the next one starts in the slow lane.
	slow bool
	// triggered: a manual run was asked for while a run was in flight, or
	// before the first run.
	triggered bool
	// ran: the worker has probed at least once.
	ran      bool
	stopping bool
	// Links for the pool's lists.
	prev, next *worker
	list       *workerList
}

type runState uint8

const (
	stateNew runState = iota
	stateIdle
	stateQueued
	stateRunning
	stateExited
)

// action is what a run does: probe, or clean up after the worker.
type action uint8

const (
	actProbe action = iota
	actExit
)

func newScheduler(clk clock.Clock, limits poolLimits, m schedulerMetrics) *scheduler {
	return &scheduler{
		clock:   clk,
		epoch:   clk.Now(),
		metrics: m,
		wheel:   newTimingWheel(0),
		pool:    pool{limits: limits},
		maxIdle: limits.fast,
		armed:   noWake,
		kick:    make(chan struct{}, 1),
	}
}

func (s *scheduler) now() time.Duration { return s.clock.Since(s.epoch) }

func floorTick(d time.Duration) int64 { return int64(d / schedulerTick) }
func ceilTick(d time.Duration) int64  { return int64((d + schedulerTick - 1) / schedulerTick) }

// add starts scheduling w every period, the first run after delay.
func (s *scheduler) add(w *worker, period, delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := &w.sched
	if ws.state != stateNew {
		return
	}
	ws.timer.owner = w
	ws.period = period
	s.workers++
	if !s.looping {
		s.looping = true
		for l := range numLanes {
			s.metrics.capacity(l, s.pool.limit(l))
		}
		go s.loop()
	}
	now := s.now()
	ws.due = now + max(delay, 0)
	if ws.stopping || delay <= 0 {
		s.dispatch(w, now)
		return
	}
	s.file(w, now)
}

// stop ends w's probing: an idle or queued worker cleans up at once, a
// running one when its run returns. It is safe to call repeatedly.
func (s *scheduler) stop(w *worker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := &w.sched
	if ws.stopping || ws.state == stateExited {
		return
	}
	ws.stopping = true
	switch ws.state {
	case stateIdle:
		s.wheel.cancel(&ws.timer)
		s.dispatch(w, s.now())
	case stateQueued:
		// Clean-up is quick; it need not wait behind slow runs.
		if ws.lane == slowLane {
			s.pool.unqueue(w)
			s.dispatch(w, s.now())
		}
	}
	// A new worker exits when added; a running one when its run returns.
}

// trigger runs w's probe as soon as possible and restarts its period from
// now, as upstream's manual trigger does. Like upstream's one-slot trigger
// channel, it reports false when a trigger is already pending.
func (s *scheduler) trigger(w *worker) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := &w.sched
	if ws.stopping {
		return false
	}
	switch ws.state {
	case stateIdle:
		if !ws.ran {
			// Upstream's worker takes the trigger only after its first probe, so a
			// trigger does not undo the spreading of first probes after a restart.
			return ws.setTriggered()
		}
		s.wheel.cancel(&ws.timer)
		now := s.now()
		ws.due = now
		s.dispatch(w, now)
		return true
	case stateQueued:
		// The waiting run is the manual run; the period restarts now.
		ws.due = s.now()
		return true
	case stateRunning:
		return ws.setTriggered()
	}
	return false
}

// setTriggered records a manual run for after the current one, and reports
// false if one is recorded already.
func (ws *workerSched) setTriggered() bool {
	if ws.triggered {
		return false
	}
	ws.triggered = true
	return true
}

// file puts w's next run in the wheel, or dispatches it if already due.
func (s *scheduler) file(w *worker, now time.Duration) {
	ws := &w.sched
	tick := ceilTick(ws.due)
	if !s.wheel.schedule(&ws.timer, tick) {
		s.dispatch(w, now)
		return
	}
	ws.state = stateIdle
	s.wakeBy(tick)
}

// wakeBy makes sure the loop wakes up by tick.
func (s *scheduler) wakeBy(tick int64) {
	if tick < s.armed {
		s.armed = tick
		select {
		case s.kick <- struct{}{}:
		default: // a kick is already pending
		}
	}
}

// dispatch hands a due w to the pool: it starts now or waits for a slot.
func (s *scheduler) dispatch(w *worker, now time.Duration) {
	ws := &w.sched
	ws.queuedAt = now
	l := fastLane
	if ws.slow && !ws.stopping {
		l = slowLane
	}
	if s.pool.acquire(w, l, now) {
		s.spawn(w, s.begin(w, now))
		return
	}
	ws.state = stateQueued
	if at, ok := s.pool.nextDemotion(); ok {
		// The loop may be asleep until a later slot; demotion must not wait for it.
		s.wakeBy(ceilTick(at))
	}
}

// begin marks w, which holds a slot, running and says what it runs.
func (s *scheduler) begin(w *worker, now time.Duration) action {
	ws := &w.sched
	ws.state = stateRunning
	s.metrics.inFlight(ws.lane, 1)
	if ws.stopping {
		return actExit
	}
	ws.ran = true
	s.metrics.started(max(now-ws.due, 0), now-ws.queuedAt)
	return actProbe
}

// spawn runs w's action on an idle executor, or on a new one.
func (s *scheduler) spawn(w *worker, a action) {
	if n := len(s.idle); n > 0 {
		e := s.idle[n-1]
		s.idle[n-1] = nil
		s.idle = s.idle[:n-1]
		e.work <- runItem{w, a}
		return
	}
	go s.execute(&executor{work: make(chan runItem, 1)}, w, a)
}

// execute is an executor's goroutine: it runs w's action and whatever the
// pool hands over after it, then parks until spawn hands it more.
func (s *scheduler) execute(e *executor, w *worker, a action) {
	for {
		for w != nil {
			keepGoing := w.execute(a)
			w, a = s.finish(w, a, keepGoing)
		}
		if !s.park(e) {
			return
		}
		item := <-e.work
		if item.w == nil {
			return // retired
		}
		w, a = item.w, item.a
	}
}

// park lists e as idle, or reports false if it should exit instead.
func (s *scheduler) park(e *executor) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.workers == 0 || len(s.idle) >= s.maxIdle {
		return false
	}
	s.idle = append(s.idle, e)
	return true
}

// finish accounts for a completed run of w: it frees w's slot, files w's
// next run (or retires w), and returns the worker that takes over the slot.
func (s *scheduler) finish(w *worker, a action, keepGoing bool) (*worker, action) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	ws := &w.sched
	if a == actProbe && keepGoing && ws.stopping {
		// Stopped while probing: clean up now, in the same slot.
		return w, actExit
	}
	freed := ws.lane
	s.metrics.inFlight(freed, -1)
	next := s.pool.release(w, now)
	if a == actExit || !keepGoing {
		ws.state = stateExited
		s.workers--
		if s.workers == 0 {
			s.wakeBy(math.MinInt64) // let the loop retire
		}
	} else {
		ws.slow = now-ws.startedAt >= s.pool.limits.slowAfter
		if ws.triggered {
			ws.triggered = false
			ws.due = now
			s.dispatch(w, now)
		} else {
			s.reschedule(w, now)
		}
	}
	if freed == slowLane {
		// A slow slot came free: an overdue fast run may move over to it.
		s.startDemoted(now)
	}
	if next == nil {
		return nil, actProbe
	}
	return next, s.begin(next, now)
}

// reschedule files w's next run on its fixed-rate grid, skipping the runs
// that came due while this one was queued or running.
func (s *scheduler) reschedule(w *worker, now time.Duration) {
	ws := &w.sched
	next := ws.due + ws.period
	if next < now {
		missed := (now-next)/ws.period + 1
		next += missed * ws.period
		s.metrics.skipped(w.probeType, int(missed))
	}
	ws.due = next
	s.file(w, now)
}

// startDemoted moves overdue fast runs to the slow lane and starts the fast
// work that was waiting for their slots.
func (s *scheduler) startDemoted(now time.Duration) {
	s.started = s.pool.demote(now, s.started[:0])
	for i, w := range s.started {
		s.metrics.inFlight(fastLane, -1)
		s.metrics.inFlight(slowLane, 1)
		s.spawn(w, s.begin(w, now))
		s.started[i] = nil
	}
}

// loop is the wheel's goroutine. It sleeps on one timer until the next
// non-empty slot (or the next possible demotion), dispatches what is due,
// and retires when no worker is left.
func (s *scheduler) loop() {
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		s.mu.Lock()
		if s.workers == 0 {
			s.looping = false
			s.armed = noWake
			for i, e := range s.idle {
				e.work <- runItem{}
				s.idle[i] = nil
			}
			s.idle = s.idle[:0]
			s.mu.Unlock()
			return
		}
		now := s.now()
		s.fired = s.wheel.advance(floorTick(now), s.fired[:0])
		for i, t := range s.fired {
			s.dispatch(t.owner, now)
			s.fired[i] = nil
		}
		s.startDemoted(now)
		wake := int64(noWake)
		if tick, ok := s.wheel.next(); ok {
			wake = tick
		}
		if at, ok := s.pool.nextDemotion(); ok {
			wake = min(wake, ceilTick(at))
		}
		s.armed = wake
		s.mu.Unlock()

		var fire <-chan time.Time
		if wake != noWake {
			d := time.Duration(wake)*schedulerTick - s.now()
			if timer == nil {
				timer = s.clock.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			fire = timer.C()
		}
		select {
		case <-fire:
		case <-s.kick:
		}
	}
}
