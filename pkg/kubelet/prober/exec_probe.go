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

import "k8s.io/apimachinery/pkg/types"

// The exec limit's state of one probe, in its worker's run cache: its
// baseline, which the signal keeps (exec_signal.go), and its place in the
// limiter (exec_limit.go); and the lists that hold those places.

// limitedProbe is one exec probe's state in the limit, in its worker's run
// cache; made by its first run.
type limitedProbe struct {
	pod *types.UID // its pod's, fixed for the worker's life: 8 bytes, not a string's 16
	execBaseline

	// Guarded by execLimit.mu.
	state      execState
	stopped    bool // its worker stopped: a run that would wait does not start
	prev, next *limitedProbe
	ready      chan struct{} // closed when a waiting run is granted or abandoned
	at         int64         // waiting: its arrival (execLimit.seq); counted: when its hold passes
}

type execState uint8

const (
	execIdle    execState = iota
	execWaiting           // in its pod's queue
	execCounted           // in execLimit.counted
	execOverdue           // in flight past its hold
)

// execList is a list of probes through their prev and next.
type execList struct {
	head, tail *limitedProbe
	n          int
}

func (s *execList) push(p *limitedProbe) {
	p.prev, p.next = s.tail, nil
	if s.tail != nil {
		s.tail.next = p
	} else {
		s.head = p
	}
	s.tail = p
	s.n++
}

func (s *execList) remove(p *limitedProbe) {
	if p.prev != nil {
		p.prev.next = p.next
	} else {
		s.head = p.next
	}
	if p.next != nil {
		p.next.prev = p.prev
	} else {
		s.tail = p.prev
	}
	p.prev, p.next = nil, nil
	if s.n--; s.n < 0 {
		panic("prober: execLimit: a list lost a probe it did not have")
	}
}
