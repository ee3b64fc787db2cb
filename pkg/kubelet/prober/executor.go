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

// executor is a goroutine that runs what the scheduler admits: a run, then
// whatever run its end hands over (scheduler.finish), until there is none;
// then it parks. Parked executors are reused, at most maxIdle of them, since
// a fresh goroutine has to grow its stack to doProbe's depth on every run.
// An executor holds no slot of its own: the runs it executes do.
type executor struct {
	work chan runItem // capacity 1: a hand-over never blocks the scheduler
}

// runItem is a hand-over to an executor; the zero value retires it.
type runItem struct {
	w *worker
	a action
}

// spawn runs w's action on a parked executor, or on a new one. Called with
// s.mu held.
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

// execute is an executor's goroutine.
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

// retireExecutors ends the parked executors. Called with s.mu held.
func (s *scheduler) retireExecutors() {
	for i, e := range s.idle {
		e.work <- runItem{}
		s.idle[i] = nil
	}
	s.idle = s.idle[:0]
}
