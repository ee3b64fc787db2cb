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

import "sync"

// executors are the goroutines that run probes. A run that got a slot goes
// to the ready queue; executors take runs from it until it is empty, then
// park. Waking a goroutine costs about what a whole probe run of a no-op
// exec costs, so executors are woken sparingly: when runs wait in the queue
// and no executor is already on its way to take one (the "spinning" one,
// woken but not yet at the queue), one is woken, or started. An executor
// that takes a run and leaves more behind does the same, so the executors
// working grow with the backlog: a tick's ten due runs of a microsecond each
// take one or two wake-ups, ten slow ones soon run side by side. What bounds
// how many runs go at once is whoever fills the queue (the pool's slots),
// not the executors.
//
// Example, runs A, B, C queued at once, all executors parked:
//
//	queue=[A B C], nobody spinning → wake E1 (spinning=1)
//	E1:    takes A, leaves [B C] → wake E2 (spinning=1); runs A
//	E1:    finishes A, takes B (E2 is still waking: no wake-up)
//	E2:    takes C; E1 finishes B, finds nothing, parks
//
// Executors park up to maxIdle, since a fresh goroutine has to grow its
// stack to doProbe's depth.
type executors struct {
	// mu guards every field below; it is the scheduler's, which holds it
	// around every call.
	mu *sync.Mutex
	// do runs w, just taken from the queue. Called with mu held, it returns
	// with mu held and releases it while the probe runs.
	do func(w *worker)
	// done reports that no run will come any more: an executor with nothing
	// to take exits instead of parking.
	done func() bool

	queue readyQueue
	// spinning counts executors woken or started to take runs from the queue
	// that have not reached it yet. One is woken only while spinning is 0,
	// so runs that queue up together cost one wake-up, not one each.
	spinning int
	// idle holds the parked executors, most recently parked last;
	// len(idle) <= maxIdle.
	idle    []*executor
	maxIdle int
	// wakeups counts executors woken or started.
	wakeups int64
	// goPerRun (ablation): every queued run gets a goroutine of its own.
	goPerRun bool
}

// executor is a parked executor's wake-up call.
type executor struct {
	wake chan struct{} // capacity 1: a wake-up never blocks the waker
}

func newExecutor() *executor { return &executor{wake: make(chan struct{}, 1)} }

// readyQueue is a FIFO of workers whose runs wait for an executor.
type readyQueue struct {
	items []*worker
	head  int
}

func (q *readyQueue) len() int { return len(q.items) - q.head }

func (q *readyQueue) push(w *worker) { q.items = append(q.items, w) }

func (q *readyQueue) peek() *worker { return q.items[q.head] }

func (q *readyQueue) pop() *worker {
	w := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 256 && q.head > len(q.items)/2 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	return w
}

// ready queues w's run and makes sure an executor will take it.
func (x *executors) ready(w *worker) {
	x.queue.push(w)
	x.wake()
}

// wake wakes a parked executor, or starts one, if runs wait and no executor
// is already on its way to take one.
func (x *executors) wake() {
	if x.goPerRun {
		for x.queue.len() > 0 {
			w := x.queue.pop()
			go x.runOne(w)
		}
		return
	}
	if x.queue.len() == 0 || x.spinning > 0 {
		return
	}
	x.spinning++
	x.wakeups++
	if n := len(x.idle); n > 0 {
		e := x.idle[n-1]
		x.idle[n-1] = nil
		x.idle = x.idle[:n-1]
		e.wake <- struct{}{}
		return
	}
	go x.serve(newExecutor(), true)
}

// runOne is a goroutine of its own for one run (goPerRun); what the run's
// end queued gets goroutines of their own too.
func (x *executors) runOne(w *worker) {
	x.mu.Lock()
	x.do(w)
	x.wake()
	x.mu.Unlock()
}

// serve is an executor's goroutine. spinning: whoever started it counted it
// in x.spinning (a goroutine that turns executor of its own accord, like a
// loop that handed the wheel off, does not).
func (x *executors) serve(e *executor, spinning bool) {
	x.mu.Lock()
	if x.goPerRun {
		x.wake()
		x.mu.Unlock()
		return
	}
	for {
		if x.queue.len() == 0 {
			if spinning {
				x.spinning--
				spinning = false
			}
			if x.done() || len(x.idle) >= x.maxIdle {
				x.mu.Unlock()
				return
			}
			x.idle = append(x.idle, e)
			x.mu.Unlock()
			<-e.wake
			x.mu.Lock()
			spinning = true
			continue
		}
		w := x.queue.pop()
		if spinning {
			x.spinning--
			spinning = false
		}
		x.wake() // more runs wait: another executor takes them
		x.do(w)
	}
}

// dismissIdle wakes the parked executors, which exit once done reports
// true.
func (x *executors) dismissIdle() {
	for i, e := range x.idle {
		x.spinning++ // each wakes as a spinning executor, finds nothing, and exits
		e.wake <- struct{}{}
		x.idle[i] = nil
	}
	x.idle = x.idle[:0]
}
