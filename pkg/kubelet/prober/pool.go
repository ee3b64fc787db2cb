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
	"runtime"
	"time"
)

// pool is the bookkeeping of the executor's slots: which runs are in flight
// in which lane, and who waits for a slot. It is a plain data structure: the
// scheduler guards it with its mutex and runs what it admits on executors
// (executor.go).
//
// Runs hold a slot in one of two lanes:
//
//   - fast: every run of a probe whose previous run finished within
//     slowAfter. This is the work the bound is for: probe starts that cost
//     CPU (an HTTP dial, an ExecSync round trip), all due at once after a
//     restart or on a crowded second.
//   - slow: runs of probes whose previous run overran (hung targets, probes
//     that wait for their timeout, long CRI execs), and fast runs that
//     overran while fast work waited.
//
// A fast run that is still running slowAfter after it started, while fast
// work waits, is moved to the slow lane and its fast slot handed on. Moving
// does not wait for room in the slow lane, so runs that hang can never hold
// the fast lane for longer than slowAfter, however many hang. The slow
// lane's limit bounds the runs that start there; while moved runs keep it
// above its limit, slow runs wait.
//
// Moving runs out frees one lane's worth of fast slots per slowAfter, and
// when more probes turn slow at once than the lane has slots, the runs
// queued first take those slots and hang in turn: a healthy run queued behind
// them would wait one slowAfter per lane's worth of them. Instead, a run
// that has waited slowAfter for a fast slot, while runs were moved out of the
// fast lane, takes a slot in the slow lane if it has room. A run then waits
// for runs that block at most slowAfter, however many block, while the slow
// lane has room. Runs that merely queue behind quick ones (a crowded tick,
// pods added together) move nothing out and keep waiting for the fast lane,
// whose bound holds for them.
//
// Example, 4 fast slots and slowAfter 10 ms on 4 ms ticks; runs A1…A40 are
// due at 0 and all hang, H is due at 4 ms:
//
//	0 ms:  A1–A4 take the fast slots; A5–A40 wait
//	4 ms:  H waits behind them
//	12 ms: A1–A4 overran: moved to the slow lane; A5–A8 take their fast
//	       slots; A9–A40 have waited 12 ms, and runs were moved out: slow lane
//	16 ms: H has waited 12 ms, and runs were moved out: slow lane, starts
//
// Without the second move, A5–A40 would take the fast slots four at a time,
// every 12 ms, and H would start after them, at 120 ms.
//
// A run may also leave its lane for a while (detach): a run whose changed
// result waits for syncLoopIteration to read the results channel waits on
// the kubelet, not on its target (delivery.go). It takes a slot again
// (reattach) before it probes, and none if all it has left is to end; it
// takes it in the lane its probe's runs start in, so that a run moved to the
// slow lane because it waited does not wait there behind runs that hang.
//
// Invariants, with running counted per lane:
//
//	running[fast] <= limits.fast
//	a run starts in the slow lane only while running[slow] < limits.slow
//	a worker is in at most one list: pending[fast], firsts, pending[slow] or fastRuns
//	pending[fast] and firsts are non-empty only while every fast slot is taken
//	pending[slow] is non-empty only while running[slow] >= limits.slow
//	every list is in the order its workers joined it (queuedAt, or startedAt for fastRuns)
//
// A worker waits in a queue at most once, so the queues are bounded by the
// number of probes; runs in flight are at most limits.fast + limits.slow
// plus the runs that turned slow or detached, each a probe's only run.
//
// A fast slot goes to a probe on its grid before a worker's first run:
// pods added together (a batch from the API server, a node filling up) start
// a first run each at once, and a due run queued behind hundreds of them
// would start that many runs late. Those first runs wait instead, by at most
// the grid's own runs of that moment, which the fast lane clears in
// microseconds each; the slow lane is FIFO.
type pool struct {
	limits   poolLimits
	running  [numLanes]int
	pending  [numLanes]workerList
	firsts   workerList // first runs waiting for a fast slot, after pending[fastLane]
	fastRuns workerList // fast-lane runs, oldest start first
	detached int        // runs in flight that hold no slot
	// movedAt is when runs were last moved out of the fast lane (demote).
	movedAt time.Duration
}

// poolEntry is a worker's place in the pool, guarded like the pool.
type poolEntry struct {
	// lane holds the run's slot, or is the lane it waits for, or detachedLane.
	lane lane
	// queuedAt is when the run last joined a queue; startedAt when it last
	// took a slot.
	queuedAt, startedAt time.Duration
	// Links for the pool's lists: a worker is in at most one.
	prev, next *worker
	list       *workerList
}

// neverMoved is pool.movedAt before any run was moved.
const neverMoved = time.Duration(math.MinInt64)

func newPool(limits poolLimits) pool {
	return pool{limits: limits, movedAt: neverMoved}
}

// lane is where a run holds its slot.
type lane uint8

const (
	fastLane lane = iota
	slowLane
	numLanes
	// detachedLane marks a run that gave its slot up; it is no lane of the pool.
	detachedLane = numLanes
)

func (l lane) String() string {
	switch l {
	case fastLane:
		return "fast"
	case slowLane:
		return "slow"
	default:
		return "detached"
	}
}

// poolLimits are the pool's bounds.
type poolLimits struct {
	// fast and slow are the lanes' slots: how many runs may start in each.
	fast, slow int
	// slowAfter is how long a run may take before it counts as slow.
	slowAfter time.Duration
}

// The default pool, sized for any node without tuning. Healthy probes take
// well under a millisecond of CPU, so the fast lane needs only a few slots
// per core. The slow lane is sized for waiting work — 10% of the probes of a
// node with 10,000 pods and two probes each hung at once — since a waiting
// run costs a parked goroutine, not CPU.
const (
	fastSlotsPerCPU  = 16
	minFastSlots     = 32
	maxFastSlots     = 256
	slowSlots        = 2048
	defaultSlowAfter = 10 * time.Millisecond
)

func defaultPoolLimits() poolLimits {
	return poolLimits{
		fast:      min(max(fastSlotsPerCPU*runtime.GOMAXPROCS(0), minFastSlots), maxFastSlots),
		slow:      slowSlots,
		slowAfter: defaultSlowAfter,
	}
}

// validate rejects limits under which some probe could never run again.
func (l poolLimits) validate() error {
	if l.fast < 1 || l.slow < 1 {
		return fmt.Errorf("prober pool limits fast=%d slow=%d: each lane needs at least one slot, or probes that turn slow never run again", l.fast, l.slow)
	}
	if l.slowAfter <= 0 {
		return fmt.Errorf("prober pool limit slowAfter=%v must be positive", l.slowAfter)
	}
	return nil
}

func (p *pool) limit(l lane) int {
	if l == slowLane {
		return p.limits.slow
	}
	return p.limits.fast
}

// acquire gives w a slot in lane l, or queues it and reports false. first
// says the run is the worker's first: it waits behind runs of the grid.
func (p *pool) acquire(w *worker, l lane, first bool, now time.Duration) bool {
	w.pool.lane = l
	if p.running[l] < p.limit(l) {
		p.take(w, now)
		return true
	}
	w.pool.queuedAt = now
	if l == fastLane && first {
		p.firsts.pushBack(w)
	} else {
		p.pending[l].pushBack(w)
	}
	return false
}

func (p *pool) take(w *worker, now time.Duration) {
	p.running[w.pool.lane]++
	w.pool.startedAt = now
	if w.pool.lane == fastLane {
		p.fastRuns.pushBack(w)
	}
}

// release frees the slot of w's run, which ended, and returns the waiting
// worker that took it over, if any.
func (p *pool) release(w *worker, now time.Duration) *worker {
	l := w.pool.lane
	if l == detachedLane {
		p.detached--
		return nil
	}
	p.running[l]--
	if l == fastLane {
		p.fastRuns.remove(w)
	}
	return p.grant(l, now)
}

// detach frees the slot of w's run, which goes on without one, and returns
// the waiting worker that took the slot over, if any.
func (p *pool) detach(w *worker, now time.Duration) *worker {
	next := p.release(w, now)
	w.pool.lane = detachedLane
	p.detached++
	return next
}

// reattach gives w's detached run a slot in lane l, or queues it there and
// reports false.
func (p *pool) reattach(w *worker, l lane, now time.Duration) bool {
	p.detached--
	return p.acquire(w, l, false, now)
}

// grant gives a free slot of lane l to the worker waiting longest for one,
// a worker's first run only when no run of the grid waits.
func (p *pool) grant(l lane, now time.Duration) *worker {
	if p.running[l] >= p.limit(l) {
		return nil // moved runs still fill the slow lane
	}
	next := p.pending[l].popFront()
	if next == nil && l == fastLane {
		next = p.firsts.popFront()
	}
	if next != nil {
		p.take(next, now)
	}
	return next
}

// unqueue removes a waiting w from its lane's queue.
func (p *pool) unqueue(w *worker) {
	p.pending[w.pool.lane].remove(w)
	p.firsts.remove(w)
}

// fastWaiting reports whether runs wait for a fast slot.
func (p *pool) fastWaiting() bool { return p.pending[fastLane].len()+p.firsts.len() > 0 }

// fastQueues are the queues of runs waiting for a fast slot, grid runs first.
func (p *pool) fastQueues() [2]*workerList { return [...]*workerList{&p.pending[fastLane], &p.firsts} }

// demote moves fast runs that have overrun to the slow lane while fast work
// waits, then the fast work that has waited slowAfter while runs were moved
// out, and appends the workers that got a slot to started: those admitted to
// the freed fast slots and those that found room in the slow lane.
func (p *pool) demote(now time.Duration, started []*worker) []*worker {
	for p.fastWaiting() {
		oldest := p.fastRuns.front()
		if oldest == nil || now-oldest.pool.startedAt < p.limits.slowAfter {
			break
		}
		p.fastRuns.remove(oldest)
		p.running[fastLane]--
		p.running[slowLane]++
		oldest.pool.lane = slowLane
		p.movedAt = now
		started = append(started, p.grant(fastLane, now))
	}
	for _, q := range p.fastQueues() {
		for w := q.front(); w != nil && p.stuck(w, now) && p.running[slowLane] < p.limits.slow; w = q.front() {
			q.remove(w)
			p.acquire(w, slowLane, false, now)
			started = append(started, w)
		}
	}
	return started
}

// stuck reports whether w, waiting for a fast slot, has waited slowAfter
// while runs were moved out of the fast lane. It then takes a slot in the
// slow lane when there is one; it does not queue there, where runs wait for
// runs that block, while fast slots free up within slowAfter.
func (p *pool) stuck(w *worker, now time.Duration) bool {
	return now-w.pool.queuedAt >= p.limits.slowAfter && w.pool.queuedAt <= p.movedAt
}

// nextDemotion is when demote could next move a run: the oldest fast run's
// overrun if fast work waits, or, while the slow lane has room, the moment
// the first waiting run of a fast queue has waited slowAfter if runs were
// moved out since it joined. (While the slow lane is full, a slot freed
// there is a change of the pool, after which the scheduler asks again.)
func (p *pool) nextDemotion() (time.Duration, bool) {
	if !p.fastWaiting() {
		return 0, false
	}
	at, ok := time.Duration(math.MaxInt64), false
	if oldest := p.fastRuns.front(); oldest != nil {
		at, ok = oldest.pool.startedAt+p.limits.slowAfter, true
	}
	if p.running[slowLane] < p.limits.slow {
		for _, q := range p.fastQueues() {
			if w := q.front(); w != nil && w.pool.queuedAt <= p.movedAt {
				at, ok = min(at, w.pool.queuedAt+p.limits.slowAfter), true
			}
		}
	}
	return at, ok
}

// workerList is an intrusive FIFO of workers, linked through worker.pool.
type workerList struct {
	head, tail *worker
	n          int
}

func (l *workerList) len() int       { return l.n }
func (l *workerList) front() *worker { return l.head }

func (l *workerList) pushBack(w *worker) {
	s := &w.pool
	s.prev, s.next, s.list = l.tail, nil, l
	if l.tail != nil {
		l.tail.pool.next = w
	} else {
		l.head = w
	}
	l.tail = w
	l.n++
}

func (l *workerList) remove(w *worker) {
	s := &w.pool
	if s.list != l {
		return
	}
	if s.prev != nil {
		s.prev.pool.next = s.next
	} else {
		l.head = s.next
	}
	if s.next != nil {
		s.next.pool.prev = s.prev
	} else {
		l.tail = s.prev
	}
	s.prev, s.next, s.list = nil, nil, nil
	l.n--
}

func (l *workerList) popFront() *worker {
	w := l.head
	if w != nil {
		l.remove(w)
	}
	return w
}
