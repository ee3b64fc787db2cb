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

// The pool's bookkeeping alone, on workers that only hold a place in it.

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPoolLimitsValidate(t *testing.T) {
	tests := []struct {
		limits  poolLimits
		wantErr string
	}{
		{defaultPoolLimits(), ""},
		{poolLimits{fast: 1, slow: 1, slowAfter: time.Nanosecond}, ""},
		{poolLimits{fast: 3, slow: 0, slowAfter: 10 * time.Millisecond}, "never run again"},
		{poolLimits{fast: 0, slow: 3, slowAfter: 10 * time.Millisecond}, "never run again"},
		{poolLimits{fast: 1, slow: 1}, "slowAfter"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%+v", tc.limits), func(t *testing.T) {
			err := tc.limits.validate()
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("validate() = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

// poolOp is one step of a pool scenario; want is the worker that got a slot
// ("" for none, "ok"/"queued" for acquire and reattach).
type poolOp struct {
	op    string // acquire, release, detach, reattach, unqueue, demote
	w     string
	lane  lane
	first bool
	at    time.Duration
	want  string
}

func TestPool(t *testing.T) {
	ms := time.Millisecond
	limits := poolLimits{fast: 2, slow: 1, slowAfter: 10 * ms}
	tests := []struct {
		name        string
		ops         []poolOp
		wantRunning [numLanes]int
		wantNext    time.Duration // nextDemotion after the ops; 0 for none
	}{{
		name: "each lane holds its limit; slots go to waiting runs in order",
		ops: []poolOp{
			{op: "acquire", w: "a", want: "ok"}, {op: "acquire", w: "b", want: "ok"},
			{op: "acquire", w: "c", at: 1 * ms, want: "queued"}, {op: "acquire", w: "d", at: 2 * ms, want: "queued"},
			{op: "acquire", w: "s", lane: slowLane, want: "ok"}, {op: "acquire", w: "t", lane: slowLane, want: "queued"},
			{op: "release", w: "a", at: 3 * ms, want: "c"}, {op: "release", w: "s", at: 3 * ms, want: "t"},
		},
		wantRunning: [numLanes]int{2, 1},
		wantNext:    10 * ms, // d waits and b started at 0
	}, {
		name: "a run of the grid takes a fast slot before a worker's first run",
		ops: []poolOp{
			{op: "acquire", w: "a", want: "ok"}, {op: "acquire", w: "b", want: "ok"},
			{op: "acquire", w: "first", first: true, want: "queued"},
			{op: "acquire", w: "grid", at: 1 * ms, want: "queued"},
			{op: "release", w: "a", at: 2 * ms, want: "grid"},
			{op: "release", w: "b", at: 2 * ms, want: "first"},
		},
		wantRunning: [numLanes]int{2, 0},
	}, {
		name: "nothing moves while no fast work waits",
		ops: []poolOp{
			{op: "acquire", w: "a", want: "ok"}, {op: "acquire", w: "b", want: "ok"},
			{op: "demote", at: time.Hour, want: ""},
		},
		wantRunning: [numLanes]int{2, 0},
	}, {
		name: "an overrun fast run moves to the slow lane and hands its slot on",
		ops: []poolOp{
			{op: "acquire", w: "a", want: "ok"}, {op: "acquire", w: "b", at: 5 * ms, want: "ok"},
			{op: "acquire", w: "c", at: 6 * ms, want: "queued"},
			{op: "demote", at: 9 * ms, want: ""},
			{op: "demote", at: 10 * ms, want: "c"},
		},
		wantRunning: [numLanes]int{2, 1},
	}, {
		name: "moving does not wait for room in the slow lane",
		ops: []poolOp{
			{op: "acquire", w: "s", lane: slowLane, want: "ok"},
			{op: "acquire", w: "a", want: "ok"}, {op: "acquire", w: "b", want: "ok"},
			{op: "acquire", w: "c", at: 1 * ms, want: "queued"}, {op: "acquire", w: "d", at: 1 * ms, want: "queued"},
			{op: "demote", at: 10 * ms, want: "c,d"},
			// The slow lane holds 3 runs on 1 slot: a freed slow slot goes to no one.
			{op: "acquire", w: "t", lane: slowLane, at: 11 * ms, want: "queued"},
			{op: "release", w: "s", at: 12 * ms, want: ""},
			{op: "release", w: "a", at: 13 * ms, want: ""},
			{op: "release", w: "b", at: 14 * ms, want: "t"},
		},
		wantRunning: [numLanes]int{2, 1},
	}, {
		name: "a run that waited slowAfter while runs were moved out takes a slow slot",
		ops: []poolOp{
			{op: "acquire", w: "a", want: "ok"}, {op: "acquire", w: "b", want: "ok"},
			{op: "acquire", w: "c", want: "queued"}, {op: "acquire", w: "d", want: "queued"},
			{op: "acquire", w: "h", at: 4 * ms, want: "queued"},
			{op: "demote", at: 10 * ms, want: "c,d"}, // a, b moved (slow lane over its limit)
			{op: "release", w: "a", at: 11 * ms, want: ""},
			{op: "release", w: "b", at: 12 * ms, want: ""}, // the slow lane has room again
			{op: "demote", at: 13 * ms, want: ""},          // h has waited 9 ms
			{op: "demote", at: 14 * ms, want: "h"},         // 10 ms, queued before the move: slow slot
		},
		wantRunning: [numLanes]int{2, 1},
	}, {
		name: "runs that only queue behind quick ones move nothing and keep waiting",
		ops: []poolOp{
			{op: "acquire", w: "a", want: "ok"}, {op: "acquire", w: "b", want: "ok"},
			{op: "acquire", w: "c", want: "queued"},
			{op: "release", w: "a", at: 1 * ms, want: "c"},
			{op: "acquire", w: "d", at: 1 * ms, want: "queued"},
			{op: "demote", at: 10 * ms, want: "d"}, // b overran: moved, d takes its fast slot
		},
		wantRunning: [numLanes]int{2, 1},
	}, {
		name: "a detached run frees its slot and queues again to reattach",
		ops: []poolOp{
			{op: "acquire", w: "a", want: "ok"}, {op: "acquire", w: "b", want: "ok"},
			{op: "acquire", w: "c", want: "queued"},
			{op: "detach", w: "a", at: 1 * ms, want: "c"},
			{op: "reattach", w: "a", at: 2 * ms, want: "queued"},
			{op: "release", w: "b", at: 3 * ms, want: "a"},
			{op: "detach", w: "c", at: 4 * ms, want: ""},
			{op: "release", w: "c", at: 5 * ms, want: ""}, // a detached run ends without a slot
		},
		wantRunning: [numLanes]int{1, 0},
	}, {
		name: "an unqueued run gets no slot",
		ops: []poolOp{
			{op: "acquire", w: "a", want: "ok"}, {op: "acquire", w: "b", want: "ok"},
			{op: "acquire", w: "c", want: "queued"}, {op: "acquire", w: "first", first: true, want: "queued"},
			{op: "unqueue", w: "c"}, {op: "unqueue", w: "first"},
			{op: "release", w: "a", at: 1 * ms, want: ""},
		},
		wantRunning: [numLanes]int{1, 0},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(limits)
			workers := map[string]*worker{}
			names := map[*worker]string{}
			w := func(name string) *worker {
				if workers[name] == nil {
					workers[name] = &worker{}
					names[workers[name]] = name
				}
				return workers[name]
			}
			for i, op := range tc.ops {
				var got string
				switch op.op {
				case "acquire", "reattach":
					var ok bool
					if op.op == "acquire" {
						ok = p.acquire(w(op.w), op.lane, op.first, op.at)
					} else {
						ok = p.reattach(w(op.w), op.lane, op.at)
					}
					got = map[bool]string{true: "ok", false: "queued"}[ok]
				case "release", "detach":
					release := p.release
					if op.op == "detach" {
						release = p.detach
					}
					if next := release(w(op.w), op.at); next != nil {
						got = names[next]
					}
				case "unqueue":
					p.unqueue(w(op.w))
				case "demote":
					var started []string
					for _, s := range p.demote(op.at, nil) {
						started = append(started, names[s])
					}
					got = strings.Join(started, ",")
				}
				if got != op.want {
					t.Errorf("step %d, %s %s at %v: got %q, want %q", i, op.op, op.w, op.at, got, op.want)
				}
				if err := poolInvariants(&p); err != nil {
					t.Fatalf("step %d, %s %s at %v: %v", i, op.op, op.w, op.at, err)
				}
			}
			if p.running != tc.wantRunning {
				t.Errorf("running %v, want %v", p.running, tc.wantRunning)
			}
			if at, ok := p.nextDemotion(); ok != (tc.wantNext != 0) || at != tc.wantNext && ok {
				t.Errorf("nextDemotion() = %v, %v; want %v", at, ok, tc.wantNext)
			}
		})
	}
}

// poolInvariants checks pool.go's invariants.
func poolInvariants(p *pool) error {
	if p.running[fastLane] > p.limits.fast {
		return fmt.Errorf("%d fast runs, limit %d", p.running[fastLane], p.limits.fast)
	}
	if p.fastWaiting() && p.running[fastLane] < p.limits.fast {
		return fmt.Errorf("runs wait for a fast slot while %d of %d are taken", p.running[fastLane], p.limits.fast)
	}
	if p.pending[slowLane].len() > 0 && p.running[slowLane] < p.limits.slow {
		return fmt.Errorf("runs wait for a slow slot while %d of %d are taken", p.running[slowLane], p.limits.slow)
	}
	for _, l := range []*workerList{&p.pending[fastLane], &p.pending[slowLane], &p.firsts, &p.fastRuns} {
		n := 0
		for w, prev := l.front(), (*worker)(nil); w != nil; prev, w = w, w.pool.next {
			n++
			if w.pool.list != l {
				return fmt.Errorf("a worker in a list links to another")
			}
			at := func(w *worker) time.Duration {
				if l == &p.fastRuns {
					return w.pool.startedAt
				}
				return w.pool.queuedAt
			}
			if prev != nil && at(prev) > at(w) {
				return fmt.Errorf("a list is out of order: %v before %v", at(prev), at(w))
			}
		}
		if n != l.len() {
			return fmt.Errorf("a list holds %d workers and counts %d", n, l.len())
		}
	}
	return nil
}
