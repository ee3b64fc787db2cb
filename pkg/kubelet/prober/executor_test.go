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
	"bytes"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// executorHarness drives executors whose runs take fake time and may hand a
// follow-up run back to their executor.
type executorHarness struct {
	x executors

	mu   sync.Mutex
	ran  map[*worker]int
	hang map[*worker]time.Duration
	then map[*worker]*worker // the run an executor takes next after this one
}

func newExecutorHarness(maxIdle int) *executorHarness {
	h := &executorHarness{ran: map[*worker]int{}, hang: map[*worker]time.Duration{}, then: map[*worker]*worker{}}
	h.x = executors{maxIdle: maxIdle, run: func(w *worker) *worker {
		h.mu.Lock()
		d, next := h.hang[w], h.then[w]
		h.mu.Unlock()
		time.Sleep(d)
		h.mu.Lock()
		h.ran[w]++
		h.mu.Unlock()
		return next
	}}
	return h
}

// runs makes n runs of hang each, chained ones each handing the next back.
func (h *executorHarness) runs(n int, hang time.Duration, chained bool) []*worker {
	h.mu.Lock()
	defer h.mu.Unlock()
	ws := make([]*worker, n)
	for i := range ws {
		ws[i] = &worker{}
		h.hang[ws[i]] = hang
		if chained && i > 0 {
			h.then[ws[i-1]] = ws[i]
		}
	}
	return ws
}

// state reads the executors' bookkeeping at rest.
func (h *executorHarness) state() (queued, spinning, idle int) {
	h.x.mu.Lock()
	defer h.x.mu.Unlock()
	return len(h.x.queue) - h.x.head, h.x.spinning, len(h.x.idle)
}

func TestExecutors(t *testing.T) {
	tests := []struct {
		name    string
		maxIdle int
		// runs submitted at once, each taking hang; chained: one run is
		// submitted and each hands the next back to its executor.
		n       int
		hang    time.Duration
		chained bool
		// wantBusy: executors while the runs are in flight (hang > 0);
		// wantIdle: executors parked once every run ended.
		wantBusy, wantIdle int
		// a quick run submitted once the first ended wakes a parked executor
		// rather than starting one.
		again int
	}{
		{"runs that block run side by side, one executor each", 8, 5, time.Second, false, 5, 5, 0},
		{"idle executors beyond maxIdle exit", 2, 5, time.Second, false, 5, 2, 0},
		{"maxIdle 0 keeps none", 0, 3, time.Second, false, 3, 0, 0},
		{"a run handed back stays on its executor", 4, 6, time.Second, true, 1, 1, 0},
		{"a parked executor is woken, not a new one started", 8, 2, time.Second, false, 2, 2, 1},
		{"nothing submitted starts nothing", 2, 0, 0, false, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before := bubbleGoroutines()
				h := newExecutorHarness(tc.maxIdle)
				ws := h.runs(tc.n, tc.hang, tc.chained)
				if tc.chained {
					h.x.submit(ws[:1])
				} else {
					h.x.submit(ws)
				}
				synctest.Wait()
				if got := bubbleGoroutines() - before; got != tc.wantBusy {
					t.Errorf("%d executors while the runs are in flight, want %d", got, tc.wantBusy)
				}
				time.Sleep(time.Duration(tc.n+1) * tc.hang)
				synctest.Wait()
				if queued, spinning, idle := h.state(); queued != 0 || spinning != 0 || idle != tc.wantIdle {
					t.Errorf("at rest: %d queued, %d spinning, %d parked; want 0, 0, %d", queued, spinning, idle, tc.wantIdle)
				}
				if got := bubbleGoroutines() - before; got != tc.wantIdle {
					t.Errorf("%d executor goroutines at rest, want the %d parked", got, tc.wantIdle)
				}
				if tc.again > 0 {
					ws = append(ws, h.runs(tc.again, 0, false)...)
					h.x.submit(ws[tc.n:])
					synctest.Wait()
					if got := bubbleGoroutines() - before; got != tc.wantIdle {
						t.Errorf("%d executor goroutines after %d quick runs on %d parked ones, want them", got, tc.again, tc.wantIdle)
					}
				}
				for _, w := range ws {
					if n := h.ran[w]; n != 1 {
						t.Errorf("a run ran %d times, want once", n)
					}
				}
				h.x.close() // no worker is left: parked executors leave
				synctest.Wait()
				if got := bubbleGoroutines() - before; got != 0 {
					t.Errorf("%d executor goroutines after close, want 0", got)
				}
				if _, spinning, idle := h.state(); spinning != 0 || idle != 0 {
					t.Errorf("after close: %d spinning, %d parked", spinning, idle)
				}
			})
		})
	}
}

// bubbleGoroutines counts the goroutines of the caller's synctest bubble.
// runtime.NumGoroutine would also count goroutines of other tests (upstream's
// per-probe worker loops, with the gate off) that are still ending.
func bubbleGoroutines() int {
	self := make([]byte, 256)
	self = self[:runtime.Stack(self, false)]
	header, _, _ := bytes.Cut(self, []byte("\n")) // goroutine 9 [running, synctest bubble 1]:
	i := bytes.Index(header, []byte(", synctest bubble "))
	if i < 0 {
		panic("bubbleGoroutines called outside a synctest bubble")
	}
	tag := header[i : len(header)-1] // ", synctest bubble 1]"
	all := make([]byte, 1<<20)
	for {
		n := runtime.Stack(all, true)
		if n < len(all) {
			all = all[:n]
			break
		}
		all = make([]byte, 2*len(all))
	}
	count := 0
	for line := range bytes.Lines(all) {
		if bytes.HasPrefix(line, []byte("goroutine ")) && bytes.Contains(line, tag) {
			count++
		}
	}
	return count
}
