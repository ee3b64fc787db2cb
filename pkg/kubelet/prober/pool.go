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
	"runtime"
	"time"
)

// pool accounts for the executor's slots: how many probe runs may be in
// flight, and who waits for a slot. It owns no goroutines; the scheduler
// starts one for each run it admits and guards the pool with its mutex.
//
// Slots come in two lanes with separate budgets:
//
//   - fast: runs expected to finish quickly. Every probe starts here unless
//     its previous run overran.
//   - slow: runs that overran (took slowAfter or more) and runs of probes
//     whose previous run overran: hung targets, probes stuck until their
//     timeout, long CRI execs, a Set blocked on a full results channel.
//
// While fast-lane work waits, a fast run older than slowAfter is moved to
// the slow lane and its fast slot handed on; so one hung probe holds a fast
// slot for at most slowAfter, and after that it only ever competes with
// other slow work. Invariants, with runs counted per lane:
//
//	running[fast] <= limits.fast, running[slow] <= limits.slow
//	a worker is in at most one list: pending[fast], pending[slow] or fastRuns
//	pending[l] is non-empty only while running[l] == limits[l] (the slow
//	lane) or no fast run can be demoted (the fast lane)
//
// pending is bounded by the number of probes: a worker waits at most once.
type pool struct {
	limits   poolLimits
	running  [numLanes]int
	pending  [numLanes]workerList
	fastRuns workerList // fast-lane runs, oldest start first
}

type lane uint8

const (
	fastLane lane = iota
	slowLane
	numLanes
)

func (l lane) String() string {
	if l == slowLane {
		return "slow"
	}
	return "fast"
}

// poolLimits are the pool's bounds. limits.fast+limits.slow is the hard
// bound on probe runs in flight.
type poolLimits struct {
	fast, slow int
	// slowAfter is how long a run may take before it counts as slow.
	slowAfter time.Duration
}

// defaultPoolLimits sizes the pool for any node without tuning. Healthy
// probes take well under a millisecond of CPU (an HTTP dial, an ExecSync
// round trip), so the fast lane needs only a few slots per core; the slow
// lane is sized for the waiting kind of work — 10% of the probes on a node
// with 10,000 pods and two probes each hanging at once — since a waiting
// run costs a parked goroutine, not CPU.
func defaultPoolLimits() poolLimits {
	return poolLimits{
		fast:      min(max(16*runtime.GOMAXPROCS(0), 32), 256),
		slow:      2048,
		slowAfter: 10 * time.Millisecond,
	}
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
	p.pending[l].pushBack(w)
	return false
}

func (p *pool) take(w *worker, now time.Duration) {
	p.running[w.sched.lane]++
	w.sched.startedAt = now
	if w.sched.lane == fastLane {
		p.fastRuns.pushBack(w)
	}
}

// release frees w's slot and hands it to the next worker waiting in the
// same lane, which it returns (nil if none waits).
func (p *pool) release(w *worker, now time.Duration) *worker {
	l := w.sched.lane
	p.running[l]--
	if l == fastLane {
		p.fastRuns.remove(w)
	}
	next := p.pending[l].popFront()
	if next != nil {
		p.take(next, now)
	}
	return next
}

// unqueue removes a waiting w from its lane's queue.
func (p *pool) unqueue(w *worker) {
	p.pending[w.sched.lane].remove(w)
}

// demote moves fast runs that have overrun to the slow lane while fast work
// waits and the slow lane has room, and appends the workers admitted to the
// freed fast slots to started: one per run moved.
func (p *pool) demote(now time.Duration, started []*worker) []*worker {
	for p.pending[fastLane].len() > 0 && p.running[slowLane] < p.limits.slow {
		oldest := p.fastRuns.front()
		if oldest == nil || now-oldest.sched.startedAt < p.limits.slowAfter {
			break
		}
		p.fastRuns.remove(oldest)
		p.running[fastLane]--
		p.running[slowLane]++
		oldest.sched.lane = slowLane
		next := p.pending[fastLane].popFront()
		p.take(next, now)
		started = append(started, next)
	}
	return started
}

// nextDemotion is when demote could next move a run, if fast work waits.
func (p *pool) nextDemotion() (time.Duration, bool) {
	oldest := p.fastRuns.front()
	if p.pending[fastLane].len() == 0 || oldest == nil || p.running[slowLane] >= p.limits.slow {
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
