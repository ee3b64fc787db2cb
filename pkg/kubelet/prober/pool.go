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

// pool bounds how many probe runs start at once, without letting a probe
// that hangs hold any other back.
//
// A run takes one of slots slots, or waits for one, first come first
// served. A slot is for work that is quick, which is what the bound is for:
// probe starts that cost CPU (a dial, an exec round trip) coming due
// together on a crowded second. So a run gives its slot up once it has taken
// slowAfter, and goes on without one; the next run of a probe whose last run
// took that long starts without one; and a run that has waited slowAfter
// starts without one. Probes that hang or wait for their timeout, and runs
// blocked on a results channel the kubelet does not read, run outside the
// bound, as each of upstream's workers runs in a goroutine of its own; a
// run waits at most slowAfter for a slot, however many probes hang at once.
//
// Example, 2 slots, slowAfter 10 ms: A and B, quick until now, hang from 0;
// C is due at 1 ms, D at 11 ms.
//
//	0 ms:  A and B take the slots
//	1 ms:  C waits
//	10 ms: A and B have taken slowAfter: they give their slots up; C takes one
//	11 ms: D takes the other; A's and B's next runs will start without a slot
//
// Invariants: held.len() <= slots; a run waits only while every slot is held;
// after expire, no run has held a slot or waited for one for slowAfter.
type pool struct {
	slots     int
	slowAfter time.Duration
	held      workerList // runs holding a slot, oldest first
	waiting   workerList // runs waiting for a slot, oldest first
	unslotted int        // runs in flight without a slot
}

// poolEntry is a worker's place in the pool, guarded like the pool.
type poolEntry struct {
	since  time.Duration // when the run took its slot, or began to wait for one
	waited time.Duration // how long the run in flight waited for its slot
	prev   *worker
	next   *worker
	list   *workerList // held, waiting, or nil: no slot
}

// The default pool, sized for any node without tuning: healthy probes take
// well under a millisecond of CPU, so a few slots per core keep the cores
// busy.
const (
	slotsPerCPU = 16
	minSlots    = 32
	maxSlots    = 256
	slowAfter   = 10 * time.Millisecond
)

func defaultPoolSlots() int {
	return min(max(slotsPerCPU*runtime.GOMAXPROCS(0), minSlots), maxSlots)
}

func newPool(slots int, slowAfter time.Duration) pool {
	if slots < 1 || slowAfter <= 0 {
		panic("prober: a pool needs a slot and a positive slowAfter")
	}
	return pool{slots: slots, slowAfter: slowAfter}
}

// start gives w's run a slot, or none if slow, and reports true; or queues
// it and reports false.
func (p *pool) start(w *worker, slow bool, now time.Duration) bool {
	w.pool.waited = 0
	switch {
	case slow:
		p.unslotted++
	case p.held.len() < p.slots:
		w.pool.since = now
		p.held.pushBack(w)
	default:
		w.pool.since = now
		p.waiting.pushBack(w)
		return false
	}
	return true
}

// release ends w's run and returns the waiting run that took its slot, if
// any.
func (p *pool) release(w *worker, now time.Duration) *worker {
	if w.pool.list == nil {
		p.unslotted--
		return nil
	}
	p.held.remove(w)
	return p.grant(now)
}

// grant gives a free slot to the run that waited longest.
func (p *pool) grant(now time.Duration) *worker {
	w := p.waiting.front()
	if w == nil || p.held.len() >= p.slots {
		return nil
	}
	p.waiting.remove(w)
	w.pool.waited = now - w.pool.since
	w.pool.since = now
	p.held.pushBack(w)
	return w
}

// expire lets the runs that have held a slot for slowAfter go on without it,
// gives the freed slots away, starts the runs that have waited slowAfter
// without one, and appends the runs it started to started.
func (p *pool) expire(now time.Duration, started []*worker) []*worker {
	for w := p.held.front(); w != nil && now-w.pool.since >= p.slowAfter; w = p.held.front() {
		p.held.remove(w)
		p.unslotted++
		if next := p.grant(now); next != nil {
			started = append(started, next)
		}
	}
	for w := p.waiting.front(); w != nil && now-w.pool.since >= p.slowAfter; w = p.waiting.front() {
		p.waiting.remove(w)
		w.pool.waited = now - w.pool.since
		p.unslotted++
		started = append(started, w)
	}
	return started
}

// nextExpiry is when expire can next start a run: only while runs wait.
func (p *pool) nextExpiry() (time.Duration, bool) {
	w := p.waiting.front()
	if w == nil {
		return 0, false
	}
	return min(p.held.front().pool.since, w.pool.since) + p.slowAfter, true
}

// workerList is an intrusive FIFO of workers, linked through worker.pool.
type workerList struct {
	head, tail *worker
	n          int
}

func (l *workerList) len() int       { return l.n }
func (l *workerList) front() *worker { return l.head }

func (l *workerList) pushBack(w *worker) {
	e := &w.pool
	e.prev, e.next, e.list = l.tail, nil, l
	if l.tail != nil {
		l.tail.pool.next = w
	} else {
		l.head = w
	}
	l.tail = w
	l.n++
}

func (l *workerList) remove(w *worker) {
	e := &w.pool
	if e.list != l {
		panic("prober: pool: a worker removed from a list it is not in")
	}
	if e.prev != nil {
		e.prev.pool.next = e.next
	} else {
		l.head = e.next
	}
	if e.next != nil {
		e.next.pool.prev = e.prev
	} else {
		l.tail = e.prev
	}
	e.prev, e.next, e.list = nil, nil, nil
	l.n--
}
