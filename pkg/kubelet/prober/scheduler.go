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
	"time"

	"k8s.io/utils/clock"
)

// scheduler decides when each worker probes and how many probe at once.
//
// A worker's next run sits in the timing wheel (wheel.go). One goroutine,
// the loop (loop.go), sleeps until the wheel's next non-empty slot and
// dispatches what is due to the pool (pool.go), which admits each run to a
// slot or queues it. Executors (executor.go) run the admitted runs, except
// quick runs of the tick, which the loop runs itself, handing the wheel to a
// new goroutine if one of them blocks (inline.go): a slow probe cannot delay
// the wheel. When a run ends, whoever ran it files the worker's next run
// (ticker.go) and takes over the run that waited longest for the freed slot.
//
// Each worker is in exactly one state:
//
//	new ──add──▶ idle (timer in the wheel) ──due──▶ queued ──slot──▶ ready ──executor──▶ running
//	               ▲                          └──────────slot──────────▲                 │
//	               └─────────────── next tick; at once if a tick is pending ─────────────┘
//	running ──doProbe returns false, or stop──▶ exited
//
// queued: waiting for a slot (pool.go); ready: holding one, waiting for an
// executor (executor.go), which takes it within microseconds.
//
// Locking: the manager calls add, stop and trigger with its workerLock
// held; the scheduler calls into workers (doProbe, exit, which takes
// workerLock) only on executors and in the loop's inline runs (inline.go),
// always without s.mu. The order is therefore
// manager.workerLock → scheduler.mu, and s.mu is taken last apart from the
// metrics' own locks.
type scheduler struct {
	clock   clock.Clock
	mech    mechanisms
	epoch   time.Time // tick 0 of the wheel
	metrics schedulerMetrics

	mu    sync.Mutex
	wheel *timingWheel
	pool  pool
	// workers counts workers added and not yet exited; the loop runs only
	// while it is positive, so a manager without probes has no goroutine.
	workers int
	// wake is whether the loop runs and until when it sleeps (loop.go).
	wake loopWake
	// exec runs the runs that got a slot (executor.go).
	exec executors
	// inline is the loop's own runs of a tick (inline.go).
	inline inlineBatch
	// Buffers the loop reuses.
	fired   []*wheelTimer
	started []*worker
}

// schedulerMetrics is what the scheduler reports as runs happen; tests swap
// in a recorder. State (runs in flight, capacity) is not reported: the
// collector of scheduler_metrics.go reads it when scraped.
type schedulerMetrics interface {
	// started records a run that got a slot: how late it started against
	// the moment it was due, and how long it waited for the slot.
	started(lateness, queueWait time.Duration)
	// skipped counts ticks that fell while the previous run of the same
	// probe was in flight, beyond the one a ticker keeps.
	skipped(t probeType, ticks int64)
}

// schedulerConfig is what a scheduler is built from. Zero fields take the
// defaults: the real clock, defaultPoolLimits and the package's metrics.
type schedulerConfig struct {
	Clock   clock.Clock
	Limits  poolLimits
	Metrics schedulerMetrics
	Mech    mechanisms
}

// mechanisms switches each of the scheduler's mechanisms off, one at a time,
// for the ablation (ablation.go). The zero value is the product.
type mechanisms struct {
	noInline     bool // every run goes to an executor
	noTickerMode bool // the loop always sleeps on a one-shot timer
	goPerRun     bool // a new goroutine for every run instead of parked executors
	oneLane      bool // one bound of fast+slow slots, no demotion
	noDetach     bool // a run blocked on a full results channel keeps its slot
	randomSleep  bool // upstream's random first-run sleep instead of the spread
	exactSparse  bool // sleep to a lone run's exact due time instead of its tick
}

// schedulerTick is the wheel's resolution: a run starts at the first tick at
// or after its due time, so within one tick plus the kernel's timer slack of
// it, and never before it (ticker.go counts on that).
//
// The tick is also how runs share wake-ups, which is most of the CPU a run
// costs at density: each wake-up of the loop, and of the executor it hands
// runs to, is a trip through the Go scheduler, and a futex or netpoll break,
// that costs about as much as a no-op probe run. Runs due within one tick
// start together. Because every period is a whole number of seconds, a tick
// that divides a second moves a probe's runs by the same offset in every
// period: the intervals between runs on the grid stay exact, and only an
// interval from a run off the grid (a first, manual or post-overrun run,
// which start at once) to the grid is up to one tick longer. A shorter tick
// shares fewer wake-ups; a longer one would make every new worker's first
// interval longer than upstream's tails (docs/design.md has the measurements).
const schedulerTick = 4 * time.Millisecond

const noWake = math.MaxInt64

// workerSched is a worker's scheduling state, guarded by scheduler.mu.
type workerSched struct {
	state  runState
	timer  wheelTimer
	ticker probeTicker
	// Offsets from scheduler.epoch: when the current or next run became due,
	// when it was dispatched, and when the current or last run began.
	dueAt, dispatchedAt, began time.Duration
	// busy is how long the current run has held slots so far: its time
	// without one, waiting for the kubelet to take a result, does not count.
	busy time.Duration
	// resume is closed when a detached run that waits for a slot gets one.
	resume chan struct{}
	// slow: the last run overran slowAfter, so the next one starts in the slow lane.
	slow bool
	// quick: the last run took less than inlineMaxRun, so the loop may run
	// the next one itself.
	quick bool
	// triggered: a manual run was asked for and not yet started, like a value
	// in upstream's one-slot manualTriggerCh.
	triggered bool
	// ran: the worker's first run has started.
	ran      bool
	stopping bool
	oneLane  bool // ablation
}

// startLane is the lane a run of w starts in: the slow lane if its last run
// overran, except for a stopped worker's clean-up, which is quick.
func (ws *workerSched) startLane() lane {
	if ws.slow && !(ws.stopping && ws.ran) && !ws.oneLane {
		return slowLane
	}
	return fastLane
}

type runState uint8

const (
	stateNew runState = iota
	stateIdle
	stateQueued
	stateReady
	stateRunning
	stateExited
)

// action is what a run does.
type action uint8

const (
	actProbe       action = iota
	actManualProbe        // a probe run that a manual trigger asked for
	actExit               // clean up after the worker
)

func newScheduler(cfg schedulerConfig) *scheduler {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Limits == (poolLimits{}) {
		cfg.Limits = defaultPoolLimits()
	}
	if cfg.Mech.oneLane {
		cfg.Limits.fast += cfg.Limits.slow
	}
	if err := cfg.Limits.validate(); err != nil {
		panic(fmt.Sprintf("prober: %v", err)) // a programming error: the kubelet uses the defaults
	}
	if cfg.Metrics == nil {
		cfg.Metrics = componentBaseMetrics{}
	}
	s := &scheduler{
		clock:   cfg.Clock,
		mech:    cfg.Mech,
		epoch:   cfg.Clock.Now(),
		metrics: cfg.Metrics,
		wheel:   newTimingWheel(0),
		pool:    newPool(cfg.Limits),
		wake:    loopWake{armed: noWake, kick: make(chan struct{}, 1)},
	}
	s.exec = executors{
		mu:       &s.mu,
		do:       s.runTaken,
		done:     func() bool { return s.workers == 0 },
		maxIdle:  cfg.Limits.fast,
		goPerRun: cfg.Mech.goPerRun,
	}
	registerScheduler(s)
	return s
}

func (s *scheduler) now() time.Duration { return s.clock.Since(s.epoch) }

func floorTick(d time.Duration) int64 { return int64(d / schedulerTick) }
func ceilTick(d time.Duration) int64  { return int64((d + schedulerTick - 1) / schedulerTick) }

// add starts probing with w every period, the first run after delay.
func (s *scheduler) add(w *worker, period, delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := &w.sched
	if ws.state != stateNew {
		return
	}
	ws.timer.owner = w
	ws.oneLane = s.mech.oneLane
	ws.ticker.period = period
	s.workers++
	if !s.wake.looping {
		s.wake.looping = true
		go s.loop()
	}
	now := s.now()
	ws.ticker.due = now + max(delay, 0)
	if delay <= 0 {
		s.submit(w, now, now) // not via the wheel, which would round up to the next tick
		return
	}
	s.file(w, now)
}

// stop ends w's probing: an idle or queued worker cleans up at once, a
// running one when its run returns. Like upstream's worker, which sees a
// stop only after doProbe, a worker probes once before it exits when it is
// stopped before its first run. stop is safe to call repeatedly.
func (s *scheduler) stop(w *worker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := &w.sched
	if ws.stopping || ws.state == stateExited {
		return
	}
	ws.stopping = true
	if !ws.ran {
		return // the first run stays due; the worker exits after it
	}
	now := s.now()
	switch ws.state {
	case stateIdle:
		s.wheel.cancel(&ws.timer)
		s.submit(w, now, now)
	case stateQueued:
		// Clean-up is quick; it need not wait behind slow runs.
		if w.pool.lane == slowLane {
			s.pool.unqueue(w)
			s.submit(w, now, now)
		}
	}
}

// trigger asks for a manual run, which starts as soon as the worker is free
// and restarts its period, as upstream's manual trigger does. Like a send on
// upstream's one-slot trigger channel, it reports false only while an
// earlier trigger waits, and a trigger on a stopped worker is accepted and
// never runs.
func (s *scheduler) trigger(w *worker) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := &w.sched
	if ws.triggered {
		return false
	}
	now := s.now()
	if ws.state == stateQueued || ws.state == stateReady {
		// The waiting run takes the trigger when it starts: it is the manual run.
		ws.triggered = true
		return true
	}
	if ws.ran && ws.began == now && !ws.stopping && ws.state != stateExited {
		// A run started at this very instant: it is the manual run. Upstream
		// may run twice here (doc.go); the period restarts with this run.
		ws.ticker.reset(now)
		if ws.state == stateIdle {
			s.wheel.cancel(&ws.timer)
			s.file(w, now)
		}
		return true
	}
	ws.triggered = true
	// Before the first run upstream's worker has not reached its select yet:
	// the trigger runs after the first probe. A queued or running worker
	// takes it when its run starts or ends.
	if ws.state == stateIdle && ws.ran && !ws.stopping {
		s.wheel.cancel(&ws.timer)
		s.submit(w, now, now)
	}
	return true
}

// detach gives up the slot of w's running run, which is about to wait for
// something other than its target (delivery.go), and reports whether it did.
// The run must reattach before it probes; it may end without.
func (s *scheduler) detach(w *worker) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := &w.sched
	if ws.state != stateRunning || w.pool.lane == detachedLane {
		return false // not a scheduled run (a test calling doProbe), or detached already
	}
	now := s.now()
	ws.busy += now - w.pool.startedAt
	if next := s.pool.detach(w, now); next != nil {
		s.admit(next, true) // this executor waits in Set: another one takes the slot's next run
	}
	if s.inline.run == w {
		s.handOff() // the loop itself waits in Set: the wheel cannot wait with it
	}
	s.rearm()
	return true
}

// reattach takes a slot again for w's detached run before it probes, in the
// lane a run of w starts in, not the one it left: a run moved to the slow
// lane because it waited (pool.go) would otherwise wait behind runs that
// hang. If the lane has no slot free, it waits for one in the lane's queue,
// as a due run does.
func (s *scheduler) reattach(w *worker) {
	s.mu.Lock()
	ws := &w.sched
	now := s.now()
	if s.pool.reattach(w, ws.startLane(), now) {
		s.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	ws.resume = ch
	s.rearm()
	s.mu.Unlock()
	<-ch
}

// admit hands w, which just got a slot, on: to the ready queue, or back to
// its own executor if w is a detached run waiting in reattach. wake: an
// executor must be woken for it (the caller is not one that takes runs next).
func (s *scheduler) admit(w *worker, wake bool) {
	if ch := w.sched.resume; ch != nil {
		w.sched.resume = nil
		close(ch)
		return
	}
	if wake {
		s.ready(w)
	} else {
		s.enqueue(w)
	}
}

// ready queues w's run, which holds a slot, and makes sure an executor will
// take it.
func (s *scheduler) ready(w *worker) {
	w.sched.state = stateReady
	s.exec.ready(w)
}

// enqueue queues w's run, which holds a slot, without waking an executor:
// the caller is an executor or the loop, and takes it next or wakes one for
// it.
func (s *scheduler) enqueue(w *worker) {
	w.sched.state = stateReady
	s.exec.queue.push(w)
}

// runTaken runs w, which an executor has taken from the ready queue. Called
// with s.mu held; it releases it during the run.
func (s *scheduler) runTaken(w *worker) {
	a := s.begin(w, s.now())
	s.mu.Unlock()
	keepGoing := w.execute(a)
	s.mu.Lock()
	s.finish(w, a, keepGoing)
}

// file puts w's next run, due at ws.ticker.due, in the wheel, or runs it if
// it is due already.
func (s *scheduler) file(w *worker, now time.Duration) {
	ws := &w.sched
	tick := ceilTick(ws.ticker.due)
	if !s.wheel.schedule(&ws.timer, tick) {
		s.submit(w, now, ws.ticker.due)
		return
	}
	ws.state = stateIdle
	s.wake.by(tick)
}

// submit dispatches w and, if it got a slot, queues it for an executor.
func (s *scheduler) submit(w *worker, now, dueAt time.Duration) {
	if s.dispatch(w, now, dueAt) {
		s.ready(w)
	}
}

// dispatch hands w, due since dueAt, to the pool and reports whether it got
// a slot; otherwise w waits in its lane's queue.
func (s *scheduler) dispatch(w *worker, now, dueAt time.Duration) bool {
	ws := &w.sched
	ws.dispatchedAt, ws.dueAt = now, dueAt
	if s.pool.acquire(w, ws.startLane(), !ws.ran, now) {
		return true
	}
	ws.state = stateQueued
	s.rearm()
	return false
}

// begin marks w, which holds a slot and was taken by an executor, running and
// says what the run does.
func (s *scheduler) begin(w *worker, now time.Duration) action {
	ws := &w.sched
	ws.state = stateRunning
	ws.busy = 0
	ws.began = now
	if ws.stopping && ws.ran {
		return actExit
	}
	a := actProbe
	switch {
	case !ws.ran:
		ws.ran = true
		ws.ticker.start()
	case ws.triggered:
		ws.triggered = false
		ws.ticker.reset(now)
		a = actManualProbe
	default:
		if dropped := ws.ticker.consume(now); dropped > 0 {
			s.metrics.skipped(w.probeType, dropped)
		}
	}
	s.metrics.started(now-ws.dueAt, now-ws.dispatchedAt)
	return a
}

// finish accounts for a completed run of w. The run that waited longest
// for the freed slot, and w's own next run if that is due already and got a
// slot, go to the ready queue, where the executor that ran w takes the first
// of them. Called with s.mu held.
func (s *scheduler) finish(w *worker, a action, keepGoing bool) {
	now := s.now()
	ws := &w.sched
	if a != actExit && keepGoing && ws.stopping {
		s.enqueue(w) // stopped while probing: clean up next, in the same slot
		return
	}
	if w.pool.lane != detachedLane {
		ws.busy += now - w.pool.startedAt
	}
	ws.slow = ws.busy >= s.pool.limits.slowAfter
	ws.quick = ws.busy < inlineMaxRun
	if next := s.pool.release(w, now); next != nil {
		s.admit(next, false)
	}
	switch {
	case a == actExit || !keepGoing:
		s.retire(w)
	case ws.triggered || ws.ticker.pending(now):
		// A manual trigger or a tick came while the run was in flight.
		if s.dispatch(w, now, now) {
			s.enqueue(w)
		}
	default:
		s.file(w, now)
	}
	s.rearm()
}

// retire forgets an exited worker; the loop ends with the last one.
func (s *scheduler) retire(w *worker) {
	w.sched.state = stateExited
	s.workers--
	if s.workers == 0 {
		s.wake.by(math.MinInt64)
	}
}

// startDemoted moves overrun fast runs to the slow lane and starts the fast
// work that was waiting for their slots.
func (s *scheduler) startDemoted(now time.Duration) {
	if s.mech.oneLane {
		return
	}
	s.started = s.pool.demote(now, s.started[:0])
	for i, w := range s.started {
		s.admit(w, true)
		s.started[i] = nil
	}
}

// rearm makes sure the loop wakes up when the pool can next demote a run.
// Every change of the pool may create such a point, so every path that
// changes the pool ends here (or in the loop, which computes it anyway).
func (s *scheduler) rearm() {
	if s.mech.oneLane {
		return
	}
	if at, ok := s.pool.nextDemotion(); ok {
		s.wake.by(ceilTick(at))
	}
}
