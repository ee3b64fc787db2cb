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

// Executors are the goroutines that run probes. A run that got a slot goes
// to the ready queue; executors take runs from it until it is empty, then
// park. Waking a goroutine costs about what a whole probe run of a no-op
// exec costs, so executors are woken sparingly: when runs wait in the queue
// and no executor is already on its way to take one (the "spinning" one,
// woken but not yet at the queue), one is woken, or started. An executor
// that takes a run and leaves more behind does the same, so the executors
// working grow with the backlog: a tick's ten due runs of a microsecond each
// take one or two wake-ups, ten slow ones soon run side by side. Quick runs
// of the loop's own tick need no executor at all: the loop takes them itself
// (inline.go). The pool's slots, not the executors, bound how many run at
// once: every run in the queue, on an executor or on the loop holds one (or
// gave it up, delivery.go).
//
// Example, runs A, B, C due at one tick, all executors parked:
//
//	loop:  ready=[A B C], nobody spinning → wake E1 (spinning=1)
//	E1:    takes A, leaves [B C] → wake E2 (spinning=1); runs A
//	E1:    finishes A, takes B (E2 is still waking: no wake-up)
//	E2:    takes C; E1 finishes B, finds nothing, parks
//
// Executors park up to maxIdle, since a fresh goroutine has to grow its
// stack to doProbe's depth.
type executor struct {
	wake chan struct{} // capacity 1: a wake-up never blocks the scheduler
}

// readyQueue is a FIFO of workers whose runs hold a slot and wait for an
// executor.
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

// ready queues w's run, which holds a slot, and makes sure an executor will
// take it. Called with s.mu held.
func (s *scheduler) ready(w *worker) {
	s.enqueue(w)
	s.wakeExecutor()
}

// enqueue queues w's run, which holds a slot, for the calling executor to
// take next (or to wake another for, if it leaves more behind).
func (s *scheduler) enqueue(w *worker) {
	w.sched.state = stateReady
	s.readyQ.push(w)
}

// wakeExecutor wakes a parked executor, or starts one, if runs wait and no
// executor is already on its way to take one. Called with s.mu held.
func (s *scheduler) wakeExecutor() {
	if s.readyQ.len() == 0 || s.spinning > 0 {
		return
	}
	s.spinning++
	s.wakeups++
	if n := len(s.idle); n > 0 {
		e := s.idle[n-1]
		s.idle[n-1] = nil
		s.idle = s.idle[:n-1]
		e.wake <- struct{}{}
		return
	}
	go s.serve(&executor{wake: make(chan struct{}, 1)}, true)
}

// serve is an executor's goroutine. spinning: whoever started it counted it
// in s.spinning (a loop that handed the wheel off did not).
func (s *scheduler) serve(e *executor, spinning bool) {
	s.mu.Lock()
	for {
		if s.readyQ.len() == 0 {
			if spinning {
				s.spinning--
				spinning = false
			}
			if s.workers == 0 || len(s.idle) >= s.maxIdle {
				s.mu.Unlock()
				return
			}
			s.idle = append(s.idle, e)
			s.mu.Unlock()
			<-e.wake
			s.mu.Lock()
			spinning = true
			continue
		}
		w := s.readyQ.pop()
		if spinning {
			s.spinning--
			spinning = false
		}
		s.wakeExecutor() // more runs wait: another executor takes them
		a := s.begin(w, s.now())
		s.mu.Unlock()
		keepGoing := w.execute(a)
		s.mu.Lock()
		s.finish(w, a, keepGoing)
	}
}

// dismissIdle wakes the parked executors, which exit: the last worker
// has exited. Called with s.mu held.
func (s *scheduler) dismissIdle() {
	for i, e := range s.idle {
		s.spinning++ // each wakes as a spinning executor, finds nothing, and exits
		e.wake <- struct{}{}
		s.idle[i] = nil
	}
	s.idle = s.idle[:0]
}
