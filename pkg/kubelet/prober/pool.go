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
// A run may also leave its lane for a while (detach): a run whose changed
// result waits for syncLoopIteration to read the results channel waits on
// the kubelet, not on its target (delivery.go). It takes a slot in its lane
// again (reattach) before it goes on.
//
// Invariants, with running counted per lane:
//
//	running[fast] <= limits.fast
//	a run starts in the slow lane only while running[slow] < limits.slow
//	a worker is in at most one list: pending[fast], firsts, pending[slow] or fastRuns
//	pending[fast] and firsts are non-empty only while every fast slot is taken
//	pending[slow] is non-empty only while running[slow] >= limits.slow
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

// defaultPoolLimits sizes the pool for any node without tuning. Healthy
// probes take well under a millisecond of CPU, so the fast lane needs only a
// few slots per core. The slow lane is sized for waiting work — 10% of the
// probes of a node with 10,000 pods and two probes each hung at once — since
// a waiting run costs a parked goroutine, not CPU.
func defaultPoolLimits() poolLimits {
	return poolLimits{
		fast:      min(max(16*runtime.GOMAXPROCS(0), 32), 256),
		slow:      2048,
		slowAfter: 10 * time.Millisecond,
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

// acquire gives w a slot in lane l, or queues it and reports false.
func (p *pool) acquire(w *worker, l lane, now time.Duration) bool {
	w.sched.lane = l
	if p.running[l] < p.limit(l) {
		p.take(w, now)
		return true
	}
	if l == fastLane && !w.sched.ran {
		p.firsts.pushBack(w)
	} else {
		p.pending[l].pushBack(w)
	}
	return false
}

func (p *pool) take(w *worker, now time.Duration) {
	p.running[w.sched.lane]++
	w.sched.startedAt = now
	if w.sched.lane == fastLane {
		p.fastRuns.pushBack(w)
	}
}

// release frees the slot of w's run, which ended, and returns the waiting
// worker that took it over, if any.
func (p *pool) release(w *worker, now time.Duration) *worker {
	l := w.sched.lane
	if l == detachedLane {
		p.detached--
		return nil
	}
	p.running[l]--
	if l == fastLane {
		p.fastRuns.remove(w)
	}
	return p.handOn(l, now)
}

// detach frees the slot of w's run, which goes on without one, and returns
// the waiting worker that took the slot over, if any.
func (p *pool) detach(w *worker, now time.Duration) *worker {
	next := p.release(w, now)
	w.sched.detachedFrom = w.sched.lane
	w.sched.lane = detachedLane
	p.detached++
	return next
}

// reattach gives w's detached run a slot in the lane it left, or queues it
// there and reports false.
func (p *pool) reattach(w *worker, now time.Duration) bool {
	p.detached--
	return p.acquire(w, w.sched.detachedFrom, now)
}

// handOn gives a free slot of lane l to the worker waiting longest for one,
// a worker's first run only when no run of the grid waits.
func (p *pool) handOn(l lane, now time.Duration) *worker {
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
	p.pending[w.sched.lane].remove(w)
	p.firsts.remove(w)
}

// fastWaiting reports whether runs wait for a fast slot.
func (p *pool) fastWaiting() bool { return p.pending[fastLane].len()+p.firsts.len() > 0 }

// demote moves fast runs that have overrun to the slow lane while fast work
// waits, and appends the workers admitted to the freed fast slots to
// started: one per run moved.
func (p *pool) demote(now time.Duration, started []*worker) []*worker {
	for p.fastWaiting() {
		oldest := p.fastRuns.front()
		if oldest == nil || now-oldest.sched.startedAt < p.limits.slowAfter {
			break
		}
		p.fastRuns.remove(oldest)
		p.running[fastLane]--
		p.running[slowLane]++
		oldest.sched.lane = slowLane
		started = append(started, p.handOn(fastLane, now))
	}
	return started
}

// nextDemotion is when demote could next move a run, if fast work waits.
func (p *pool) nextDemotion() (time.Duration, bool) {
	oldest := p.fastRuns.front()
	if !p.fastWaiting() || oldest == nil {
		return 0, false
	}
	return oldest.sched.startedAt + p.limits.slowAfter, true
}

// workerList is an intrusive FIFO of workers, linked through worker.sched.
type workerList struct {
	head, tail *worker
	n          int
}

func (l *workerList) len() int       { return l.n }
func (l *workerList) front() *worker { return l.head }

func (l *workerList) pushBack(w *worker) {
	s := &w.sched
	s.prev, s.next, s.list = l.tail, nil, l
	if l.tail != nil {
		l.tail.sched.next = w
	} else {
		l.head = w
	}
	l.tail = w
	l.n++
}

func (l *workerList) remove(w *worker) {
	s := &w.sched
	if s.list != l {
		return
	}
	if s.prev != nil {
		s.prev.sched.next = s.next
	} else {
		l.head = s.next
	}
	if s.next != nil {
		s.next.sched.prev = s.prev
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
