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

// TestExecSignalSample: how a run that ends counts in the window, by what its
// probe's baseline and previous runs were. Timeouts 1 s, baseline 200 ms
// (headroom 800 ms) where there is one.
func TestExecSignalSample(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name     string
		probe    execBaseline
		start    time.Duration // the limit last moved at 10 s
		took     time.Duration
		timedOut bool
		want     execWindow
	}{
		{name: "on time: at most half the headroom past the baseline", probe: execBaseline{baseline: 200 * ms}, start: 20 * time.Second, took: 600 * ms,
			want: execWindow{onTime: 1, excess: 400 * ms, headroom: 800 * ms}},
		{name: "slow: over half", probe: execBaseline{baseline: 200 * ms}, start: 20 * time.Second, took: 601 * ms,
			want: execWindow{slow: 1, excess: 401 * ms, headroom: 800 * ms}},
		{name: "a first timeout uses the whole headroom", probe: execBaseline{baseline: 200 * ms}, start: 20 * time.Second, took: time.Second, timedOut: true,
			want: execWindow{firstTimeouts: 1, timeouts: 1, excess: 800 * ms, headroom: 800 * ms}},
		{name: "a timeout after a timeout is the command's: only counted as a timeout", probe: execBaseline{baseline: 200 * ms, timedOut: true}, start: 20 * time.Second, took: time.Second, timedOut: true,
			want: execWindow{timeouts: 1}},
		{name: "a first timeout within execStormQuiet of the last one flaps", probe: execBaseline{baseline: 200 * ms, lastTimeout: 11}, start: 20 * time.Second, took: time.Second, timedOut: true,
			want: execWindow{firstTimeouts: 1, flaps: 1, timeouts: 1, excess: 800 * ms, headroom: 800 * ms}},
		{name: "one longer ago does not", probe: execBaseline{baseline: 200 * ms, lastTimeout: 2}, start: 20 * time.Second, took: time.Second, timedOut: true,
			want: execWindow{firstTimeouts: 1, timeouts: 1, excess: 800 * ms, headroom: 800 * ms}},
		{name: "no baseline: only a timeout counts", start: 20 * time.Second, took: time.Second, timedOut: true, want: execWindow{timeouts: 1}},
		{name: "no headroom: nothing", probe: execBaseline{baseline: time.Second}, start: 20 * time.Second, took: 900 * ms},
		{name: "started before the limit moved: nothing", probe: execBaseline{baseline: 200 * ms}, start: 9 * time.Second, took: time.Second, timedOut: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := execSignal{lastMove: 10 * time.Second}
			p := tc.probe
			s.sample(&p, tc.start, tc.took, time.Second, tc.timedOut)
			if s.win != tc.want {
				t.Errorf("window %+v, want %+v", s.win, tc.want)
			}
		})
	}
}

// TestExecSignalCarry: a window with too few runs to judge by hands them on,
// up to execCarryMax windows; a move, a verdict or enough runs start afresh.
func TestExecSignalCarry(t *testing.T) {
	keep := func(limit int) func(int, int, execHistory, execWindow) execDecision {
		return func(int, int, execHistory, execWindow) execDecision { return execDecision{limit: limit} }
	}
	two := execWindow{onTime: 1, slow: 1, excess: time.Second, headroom: 2 * time.Second}
	for _, tc := range []struct {
		name    string
		win     execWindow
		carried int
		policy  func(int, int, execHistory, execWindow) execDecision
		want    execWindow
	}{
		{name: "too few: carried", win: two, policy: keep(0), want: execWindow{onTime: 1, slow: 1, excess: time.Second, headroom: 2 * time.Second, inFlight: 4}},
		{name: "enough: afresh", win: execWindow{onTime: 3}, policy: keep(0), want: execWindow{inFlight: 4}},
		{name: "carried execCarryMax times already: afresh", win: two, carried: execCarryMax, policy: keep(0), want: execWindow{inFlight: 4}},
		{name: "the limit moved: afresh", win: two, policy: keep(5), want: execWindow{inFlight: 4}},
		{name: "a verdict: afresh", win: two, policy: func(int, int, execHistory, execWindow) execDecision { return execDecision{overloaded: true} }, want: execWindow{inFlight: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := execSignal{win: tc.win, carried: tc.carried}
			s.decide(tc.policy, 0, 2, 0, 4, 10*time.Second)
			if s.win != tc.want {
				t.Errorf("next window %+v, want %+v", s.win, tc.want)
			}
		})
	}
}
