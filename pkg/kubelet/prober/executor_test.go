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

// The executors alone, on runs that block until the test releases them.

import (
	"bytes"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
)

// executorHarness drives executors whose runs block until released.
type executorHarness struct {
	mu      sync.Mutex
	x       executors
	release map[*worker]chan struct{}
	ran     []*worker
	done    bool
}

func newExecutorHarness(maxIdle int) *executorHarness {
	h := &executorHarness{release: map[*worker]chan struct{}{}}
	h.x = executors{
		mu: &h.mu,
		do: func(w *worker) {
			ch := h.release[w]
			h.mu.Unlock()
			if ch != nil {
				<-ch
			}
			h.mu.Lock()
			h.ran = append(h.ran, w)
		},
		done:    func() bool { return h.done },
		maxIdle: maxIdle,
	}
	return h
}

// queue makes n runs ready at once; blocking ones wait for finish.
func (h *executorHarness) queue(n int, blocking bool) []*worker {
	h.mu.Lock()
	defer h.mu.Unlock()
	ws := make([]*worker, n)
	for i := range ws {
		ws[i] = &worker{}
		if blocking {
			h.release[ws[i]] = make(chan struct{})
		}
		h.x.queue.push(ws[i])
	}
	h.x.wake()
	return ws
}

func (h *executorHarness) finish(ws []*worker) {
	for _, w := range ws {
		close(h.release[w])
	}
	synctest.Wait()
}

// state reads the executors' bookkeeping at rest.
func (h *executorHarness) state() (queued, spinning, idle int, wakeups int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.x.queue.len(), h.x.spinning, len(h.x.idle), h.x.wakeups
}

func TestExecutors(t *testing.T) {
	tests := []struct {
		name     string
		maxIdle  int
		blocking int // runs that block until released, queued at once
		// then, once they ended and the executors rest:
		wantWakeups int64 // executors woken or started
		wantIdle    int   // executors parked
		// a second batch of quick runs, queued after the rest
		again          int
		wantMoreWakeup bool
	}{
		// Each taken run leaves the rest behind and wakes one more executor:
		// blocked runs get an executor each, one wake-up each.
		{"blocking runs run side by side", 4, 5, 5, 4, 0, false},
		{"idle executors beyond maxIdle exit", 2, 5, 5, 2, 0, false},
		{"maxIdle 0 keeps none", 0, 3, 3, 0, 0, false},
		{"one run, one wake-up", 4, 1, 1, 1, 0, false},
		// A parked executor is woken, not a new one started.
		{"parked executors are reused", 2, 2, 2, 2, 3, true},
		{"nothing queued wakes nobody", 2, 0, 0, 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before := bubbleGoroutines()
				h := newExecutorHarness(tc.maxIdle)
				ws := h.queue(tc.blocking, true)
				synctest.Wait()
				if got := bubbleGoroutines() - before; got != tc.blocking {
					t.Errorf("%d executors for %d blocked runs, want one each", got, tc.blocking)
				}
				h.finish(ws)
				queued, spinning, idle, wakeups := h.state()
				if queued != 0 || spinning != 0 || wakeups != tc.wantWakeups || idle != tc.wantIdle {
					t.Errorf("at rest: %d queued, %d spinning, %d wake-ups, %d parked; want 0, 0, %d, %d",
						queued, spinning, wakeups, idle, tc.wantWakeups, tc.wantIdle)
				}
				if got := bubbleGoroutines() - before; got != tc.wantIdle {
					t.Errorf("%d executor goroutines at rest, want the %d parked", got, tc.wantIdle)
				}
				all := ws
				if tc.again > 0 {
					all = append(all, h.queue(tc.again, false)...)
					synctest.Wait()
					_, spinning, idle2, wakeups2 := h.state()
					if spinning != 0 || (wakeups2 > wakeups) != tc.wantMoreWakeup || wakeups2-wakeups > int64(tc.again) {
						t.Errorf("%d quick runs took %d wake-ups (%d spinning after), want 1..%d", tc.again, wakeups2-wakeups, spinning, tc.again)
					}
					if got := bubbleGoroutines() - before; got > tc.wantIdle || idle2 != got {
						t.Errorf("%d executor goroutines, %d parked, after quick runs on %d parked ones", got, idle2, tc.wantIdle)
					}
				}
				if !sameSet(h.ran, all) {
					t.Errorf("%d runs ran, want each of the %d once", len(h.ran), tc.blocking+tc.again)
				}
				// The last worker has exited: parked executors leave.
				h.mu.Lock()
				h.done = true
				h.x.dismissIdle()
				h.mu.Unlock()
				synctest.Wait()
				if got := bubbleGoroutines() - before; got != 0 {
					t.Errorf("%d executor goroutines after dismissIdle, want 0", got)
				}
				if _, spinning, idle, _ := h.state(); spinning != 0 || idle != 0 {
					t.Errorf("after dismissIdle: %d spinning, %d parked", spinning, idle)
				}
			})
		})
	}
}

// sameSet: every worker of want ran exactly once.
func sameSet(got, want []*worker) bool {
	seen := map[*worker]int{}
	for _, w := range got {
		seen[w]++
	}
	for _, w := range want {
		if seen[w] != 1 {
			return false
		}
	}
	return len(seen) == len(want)
}

func TestReadyQueue(t *testing.T) {
	var q readyQueue
	ws := make([]*worker, 1000)
	for i := range ws {
		ws[i] = &worker{}
	}
	var got []*worker
	// Interleaved pushes and pops, enough to compact the slice.
	for i, w := range ws {
		q.push(w)
		if i%3 == 2 {
			got = append(got, q.pop(), q.pop())
		}
	}
	for q.len() > 0 {
		if q.peek() != q.items[q.head] {
			t.Fatal("peek is not the next pop")
		}
		got = append(got, q.pop())
	}
	if !slices.Equal(got, ws) {
		t.Error("the queue did not keep first-in first-out order")
	}
	if q.head != 0 || len(q.items) != 0 {
		t.Errorf("an empty queue holds head %d and %d items", q.head, len(q.items))
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
