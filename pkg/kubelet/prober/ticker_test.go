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
	"testing"
	"time"
)

// TestProbeTicker replays, on one ticker, the runs of upstream's worker loop
// for a probe that takes longer than its period (ticker.go's example) and a
// manual trigger, and checks the pending ticks and drops a time.Ticker gives.
func TestProbeTicker(t *testing.T) {
	s := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	type step struct {
		op          string // "consume", "reset" or "pending"
		at          time.Duration
		wantDropped int64
		wantPending bool
		wantDue     time.Duration
	}
	tests := []struct {
		name   string
		period time.Duration
		first  time.Duration // the first run's due time
		steps  []step
	}{{
		name: "runs on time keep the grid", period: s(1), first: s(0.5),
		steps: []step{
			{op: "pending", at: s(1.49), wantPending: false, wantDue: s(1.5)},
			{op: "consume", at: s(1.5), wantDue: s(2.5)},
			{op: "consume", at: s(2.5), wantDue: s(3.5)},
		},
	}, {
		name: "a run of 1.5 periods leaves one tick pending, the next drops one", period: s(1), first: 0,
		steps: []step{
			{op: "pending", at: s(1.5), wantPending: true, wantDue: s(1)},
			{op: "consume", at: s(1.5), wantDue: s(2)},
			{op: "pending", at: s(3), wantPending: true, wantDue: s(2)},
			{op: "consume", at: s(3), wantDropped: 1, wantDue: s(4)},
			{op: "consume", at: s(4), wantDue: s(5)},
		},
	}, {
		name: "a run that hangs for ten periods drops nine ticks", period: s(1), first: 0,
		steps: []step{
			{op: "consume", at: s(10.2), wantDropped: 9, wantDue: s(11)},
		},
	}, {
		name: "reset restarts the grid and drops a pending tick", period: s(10), first: 0,
		steps: []step{
			{op: "reset", at: s(12), wantDue: s(22)},
			{op: "pending", at: s(12), wantPending: false, wantDue: s(22)},
			{op: "consume", at: s(22), wantDue: s(32)},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tk := probeTicker{period: tc.period, due: tc.first + tc.period} // as add starts it
			for i, st := range tc.steps {
				switch st.op {
				case "consume":
					if got := tk.consume(st.at); got != st.wantDropped {
						t.Errorf("step %d: consume(%v) dropped %d ticks, want %d", i, st.at, got, st.wantDropped)
					}
				case "reset":
					tk.reset(st.at)
				case "pending":
					if got := tk.pending(st.at); got != st.wantPending {
						t.Errorf("step %d: pending(%v) = %v, want %v", i, st.at, got, st.wantPending)
					}
				}
				if tk.due != st.wantDue {
					t.Errorf("step %d (%s at %v): due = %v, want %v", i, st.op, st.at, tk.due, st.wantDue)
				}
			}
		})
	}
}
