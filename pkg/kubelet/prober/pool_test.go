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
	"strings"
	"testing"
	"time"
)

// TestPool replays pool.go's example and the pool's other paths step by step
// on two slots, checking the pool's invariants after every step.
func TestPool(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	type step struct {
		at   time.Duration
		op   string // "start", "start slow", "release", "expire"
		run  string // start, release: the run
		want string // start: "slot", "none" or "wait"; release, expire: the runs started, space-separated
		// The pool after the step: held, waiting, without a slot.
		held, waiting string
		unslotted     int
	}
	tests := []struct {
		name  string
		steps []step
	}{{
		name: "pool.go's example: hung runs give their slots up, nobody waits more than slowAfter",
		steps: []step{
			{at: 0, op: "start", run: "A", want: "slot", held: "A"},
			{at: 0, op: "start", run: "B", want: "slot", held: "A B"},
			{at: ms(1), op: "start", run: "C", want: "wait", held: "A B", waiting: "C"},
			{at: ms(9), op: "expire", held: "A B", waiting: "C"},
			{at: ms(10), op: "expire", want: "C", held: "C", unslotted: 2},
			{at: ms(11), op: "start", run: "D", want: "slot", held: "C D", unslotted: 2},
			{at: ms(12), op: "start slow", run: "A2", want: "none", held: "C D", unslotted: 3},
		},
	}, {
		name: "a released slot goes to the run that waited longest",
		steps: []step{
			{at: 0, op: "start", run: "A", want: "slot", held: "A"},
			{at: 0, op: "start", run: "B", want: "slot", held: "A B"},
			{at: ms(1), op: "start", run: "C", want: "wait", held: "A B", waiting: "C"},
			{at: ms(2), op: "start", run: "D", want: "wait", held: "A B", waiting: "C D"},
			{at: ms(3), op: "release", run: "B", want: "C", held: "A C", waiting: "D"},
			{at: ms(4), op: "release", run: "A", want: "D", held: "C D"},
			{at: ms(5), op: "release", run: "C", held: "D"},
		},
	}, {
		name: "a run that waited slowAfter starts without a slot",
		steps: []step{
			{at: 0, op: "start", run: "A", want: "slot", held: "A"},
			{at: 0, op: "start", run: "B", want: "slot", held: "A B"},
			{at: ms(1), op: "start", run: "C", want: "wait", held: "A B", waiting: "C"},
			{at: ms(2), op: "start", run: "D", want: "wait", held: "A B", waiting: "C D"},
			{at: ms(3), op: "start", run: "E", want: "wait", held: "A B", waiting: "C D E"},
			{at: ms(5), op: "release", run: "B", want: "C", held: "A C", waiting: "D E"},
			{at: ms(10), op: "expire", want: "D", held: "C D", waiting: "E", unslotted: 1},
			{at: ms(12), op: "expire", held: "C D", waiting: "E", unslotted: 1},
			{at: ms(13), op: "expire", want: "E", held: "C D", unslotted: 2},
			{at: ms(14), op: "release", run: "A", held: "C D", unslotted: 1},
			{at: ms(14), op: "release", run: "E", held: "C D"},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(2, 10*time.Millisecond)
			runs := map[string]*worker{}
			name := map[*worker]string{}
			get := func(n string) *worker {
				if runs[n] == nil {
					runs[n] = &worker{}
					name[runs[n]] = n
				}
				return runs[n]
			}
			names := func(ws []*worker) string {
				var out []string
				for _, w := range ws {
					out = append(out, name[w])
				}
				return strings.Join(out, " ")
			}
			list := func(l *workerList) string {
				var ws []*worker
				for w := l.front(); w != nil; w = w.pool.next {
					ws = append(ws, w)
				}
				return names(ws)
			}
			for i, st := range tc.steps {
				var got string
				switch st.op {
				case "start", "start slow":
					w := get(st.run)
					switch ok := p.start(w, st.op == "start slow", st.at); {
					case !ok:
						got = "wait"
					case w.pool.list == &p.held:
						got = "slot"
					default:
						got = "none"
					}
				case "release":
					if w := p.release(get(st.run), st.at); w != nil {
						got = name[w]
					}
				case "expire":
					got = names(p.expire(st.at, nil))
				}
				if got != st.want {
					t.Errorf("step %d (%s %s at %v): got %q, want %q", i, st.op, st.run, st.at, got, st.want)
				}
				if h, w := list(&p.held), list(&p.waiting); h != st.held || w != st.waiting || p.unslotted != st.unslotted {
					t.Errorf("step %d (%s %s at %v): held [%s] waiting [%s] unslotted %d, want [%s] [%s] %d",
						i, st.op, st.run, st.at, h, w, p.unslotted, st.held, st.waiting, st.unslotted)
				}
				if err := p.check(); err != nil {
					t.Errorf("step %d: %v", i, err)
				}
			}
		})
	}
}

// check verifies the pool's invariants (pool.go).
func (p *pool) check() error {
	if p.held.len() > p.slots {
		return fmt.Errorf("%d runs hold %d slots", p.held.len(), p.slots)
	}
	if p.waiting.len() > 0 && p.held.len() < p.slots {
		return fmt.Errorf("%d runs wait while %d of %d slots are held", p.waiting.len(), p.held.len(), p.slots)
	}
	for _, l := range []*workerList{&p.held, &p.waiting} {
		n := 0
		for w := l.front(); w != nil; w = w.pool.next {
			if w.pool.list != l {
				return fmt.Errorf("a run in a list that it does not name")
			}
			n++
		}
		if n != l.len() {
			return fmt.Errorf("a list holds %d runs and counts %d", n, l.len())
		}
	}
	return nil
}
