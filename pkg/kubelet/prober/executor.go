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

// maxIdleExecutors bounds the executors that park: a parked goroutine keeps
// its stack, grown to doProbe's depth, so that the next wake-up need not grow
// a new one.
const maxIdleExecutors = 32

// executors are the goroutines that run probes: they take runs from a queue
// until it is empty, then park, up to maxIdle of them. Waking a goroutine
// costs about what a no-op probe run costs (a futex when it wakes a thread),
// so one is woken, or started, only when runs wait and none is on its way to
// the queue (spinning); one that takes a run and leaves more behind wakes the
// next. The executors at work grow with the backlog: a tick's quick runs take
// a wake-up or two on one executor, runs that block soon run side by side,
// each on its own, as each of upstream's workers probes in a goroutine of its
// own.
//
// Example, runs A, B, C queued at once, every executor parked:
//
//	queue [A B C], nobody spinning → wake E1 (spinning 1)
//	E1 takes A, leaves [B C]       → wake E2 (spinning 1); E1 runs A
//	E1 ends A, takes B             (E2 still waking: no wake-up)
//	E2 takes C; E1 ends B, finds nothing, parks
type executors struct {
	// run runs w and returns a run for the same executor to take next.
	run     func(w *worker) *worker
	maxIdle int

	mu       sync.Mutex
	queue    []*worker
	head     int             // queue[head:] waits
	spinning int             // woken or started, not at the queue yet
	idle     []chan struct{} // parked executors' wake-ups, most recent last
	closed   bool            // no worker is left: an executor with nothing to do exits
}

// submit queues runs and makes sure an executor will take them.
func (x *executors) submit(runs []*worker) {
	if len(runs) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = false
	x.queue = append(x.queue, runs...)
	x.wakeLocked()
}

// wakeLocked wakes a parked executor, or starts one, if runs wait and none
// is on its way.
func (x *executors) wakeLocked() {
	if x.head == len(x.queue) || x.spinning > 0 {
		return
	}
	x.spinning++
	if n := len(x.idle); n > 0 {
		c := x.idle[n-1]
		x.idle = x.idle[:n-1]
		c <- struct{}{}
		return
	}
	go x.serve()
}

// serve is an executor's goroutine; it starts spinning.
func (x *executors) serve() {
	var parked chan struct{}
	x.mu.Lock()
	for {
		if x.head == len(x.queue) {
			x.spunLocked()
			x.queue, x.head = x.queue[:0], 0
			if x.closed || len(x.idle) >= x.maxIdle {
				x.mu.Unlock()
				return
			}
			if parked == nil {
				parked = make(chan struct{}, 1)
			}
			x.idle = append(x.idle, parked)
			x.mu.Unlock()
			<-parked // a wake-up counts this executor as spinning
			x.mu.Lock()
			continue
		}
		w := x.queue[x.head]
		x.queue[x.head] = nil
		x.head++
		x.spunLocked()
		x.wakeLocked()
		x.mu.Unlock()
		for w != nil {
			w = x.run(w)
		}
		x.mu.Lock()
		x.spinning++ // back at the queue, as if woken
	}
}

// spunLocked: an executor that was woken or started reached the queue.
func (x *executors) spunLocked() {
	if x.spinning--; x.spinning < 0 {
		panic("prober: executors: more executors reached the queue than were woken")
	}
}

// close lets the parked executors go: no worker is left.
func (x *executors) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	for _, c := range x.idle {
		x.spinning++
		c <- struct{}{}
	}
	x.idle = x.idle[:0]
}
