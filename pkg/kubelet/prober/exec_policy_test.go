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
	"math"
	"testing"
	"time"
)

func TestNextExecLimit(t *testing.T) {
	const never = time.Duration(math.MaxInt64)
	// runs returns a window of on-time, slow and first-timeout runs of probes
	// with 800 ms of headroom, each on-time run 100 ms past its baseline and
	// each slow one 600 ms.
	runs := func(onTime, slow, firstTimeouts, inFlight int, waited bool) execWindow {
		ms := time.Millisecond
		return execWindow{
			onTime: onTime, slow: slow, firstTimeouts: firstTimeouts,
			excess:   time.Duration(onTime)*100*ms + time.Duration(slow)*600*ms + time.Duration(firstTimeouts)*800*ms,
			headroom: time.Duration(onTime+slow+firstTimeouts) * 800 * ms,
			inFlight: inFlight, waited: waited,
		}
	}
	// calm: no verdict, no wait and no move ever; a run on time just now.
	calm := execHistory{sinceOverload: never, sinceWait: never, sinceMove: never}
	with := func(f func(h *execHistory)) execHistory {
		h := calm
		f(&h)
		return h
	}
	afterVerdict := func(d time.Duration) execHistory {
		return with(func(h *execHistory) { h.sinceOverload, h.sinceWait = d, 0 })
	}
	quiet := with(func(h *execHistory) { h.sinceOnTime = execStormQuiet })
	storm := func(timeouts, inFlight int) execWindow { return execWindow{timeouts: timeouts, inFlight: inFlight} }
	for _, tc := range []struct {
		name  string
		limit int
		h     execHistory
		w     execWindow
		want  execDecision
	}{
		{name: "a runtime that keeps up", h: calm, w: runs(20, 0, 0, 20, false)},
		{name: "a latency spike that meets its timeouts: slowness alone is no verdict", h: calm, w: runs(0, 30, 0, 30, false)},
		{name: "a dependency outage: timeouts while the rest come back on time", h: calm, w: runs(5, 0, 40, 45, false)},
		{name: "a dependency outage with no run back: timeouts alone are no verdict", h: calm, w: runs(0, 0, 40, 40, false)},
		{name: "overloaded: most back slow and a healthy probe timed out",
			h: calm, w: runs(1, 12, 4, 60, false), want: execDecision{limit: 19, overloaded: true}},
		{name: "slow must outnumber on time twice over", h: calm, w: runs(6, 12, 4, 60, false)},
		{name: "too few slow runs say nothing", h: calm, w: runs(0, 2, 4, 60, false)},
		{name: "a cut is at most three quarters of the runs in flight",
			h: calm, w: execWindow{slow: 3, firstTimeouts: 1, excess: time.Second, headroom: 4 * time.Second, inFlight: 40}, want: execDecision{limit: 30, overloaded: true}},
		{name: "runs that all used their whole headroom: a quarter of the runs in flight",
			h: calm, w: execWindow{slow: 3, firstTimeouts: 3, excess: 6 * time.Second, headroom: 6 * time.Second, inFlight: 40}, want: execDecision{limit: 10, overloaded: true}},
		{name: "a cut never goes below the floor",
			h: calm, w: runs(0, 3, 40, 5, false), want: execDecision{limit: 2, overloaded: true}},
		{name: "no first verdict with two floors in flight or fewer",
			h: calm, w: runs(0, 3, 3, 4, false)},
		{name: "a first verdict with more than two floors in flight",
			h: calm, w: runs(0, 3, 3, 5, false), want: execDecision{limit: 2, overloaded: true}},
		{name: "no first flapping verdict with two floors in flight or fewer",
			h: calm, w: execWindow{firstTimeouts: 3, flaps: 3, excess: 3 * time.Second, headroom: 3 * time.Second, inFlight: 4}},
		{name: "no first storm with two floors in flight or fewer", h: quiet, w: storm(4, 4)},
		{name: "within execLiftAfter of a verdict, slowness alone is one",
			limit: 20, h: afterVerdict(5 * time.Second), w: runs(1, 10, 0, 20, true), want: execDecision{limit: 7, overloaded: true}},
		{name: "execLiftAfter with no verdict and no wait: lifted, slow or not",
			limit: 20, h: with(func(h *execHistory) { h.sinceOverload, h.sinceWait = execLiftAfter, execLiftAfter }), w: runs(1, 10, 0, 20, false)},
		{name: "execLiftAfter with no verdict, but runs waited since: not lifted",
			limit: 20, h: with(func(h *execHistory) { h.sinceOverload, h.sinceWait = execLiftAfter, time.Second }), w: runs(1, 10, 0, 20, false), want: execDecision{limit: 20}},
		{name: "runs wait, no verdict for long, back on time: raised, not lifted",
			limit: 20, h: with(func(h *execHistory) { h.sinceWait = 0 }), w: runs(10, 2, 0, 20, true), want: execDecision{limit: 21}},
		{name: "runs waited, most on time, near the edge: one more slot",
			limit: 20, h: afterVerdict(time.Second), w: runs(10, 2, 0, 20, true), want: execDecision{limit: 21}},
		{name: "runs waited, all at their baselines: half again",
			limit: 20, h: afterVerdict(time.Second), w: execWindow{onTime: 10, excess: 50 * time.Millisecond * 10, headroom: 800 * time.Millisecond * 10, inFlight: 20, waited: true}, want: execDecision{limit: 30}},
		{name: "half again is at least one slot",
			limit: 1, h: afterVerdict(time.Second), w: execWindow{onTime: 10, headroom: time.Second, inFlight: 1, waited: true}, want: execDecision{limit: 2}},
		{name: "nothing waited: no raise", limit: 20, h: afterVerdict(time.Second), w: runs(10, 0, 0, 12, false), want: execDecision{limit: 20}},
		{name: "too few back to raise", limit: 20, h: afterVerdict(time.Second), w: runs(2, 0, 0, 20, true), want: execDecision{limit: 20}},
		{name: "as many slow as on time: no raise", limit: 20, h: afterVerdict(time.Second), w: runs(3, 3, 0, 20, true), want: execDecision{limit: 20}},
		{name: "no limit and no verdict: none", h: afterVerdict(time.Second), w: runs(3, 3, 0, 20, true)},
		{name: "flapping: probes timing out again soon after they came back on time",
			h: calm, w: execWindow{onTime: 4, firstTimeouts: 3, flaps: 3, excess: 3 * time.Second, headroom: 7 * time.Second, inFlight: 12},
			want: execDecision{limit: 7, overloaded: true}},
		{name: "too few flaps", h: calm, w: execWindow{onTime: 4, firstTimeouts: 3, flaps: 2, excess: 3 * time.Second, headroom: 7 * time.Second, inFlight: 12}},
		{name: "a storm: timeouts, nothing on time on the node for execStormQuiet: halved",
			h: quiet, w: storm(12, 40), want: execDecision{limit: 20, overloaded: true}},
		{name: "a storm, halved again, down to the floor",
			limit: 3, h: quiet, w: storm(3, 3), want: execDecision{limit: 2, overloaded: true}},
		{name: "a run on time within execStormQuiet: no storm",
			h: with(func(h *execHistory) { h.sinceOnTime = execStormQuiet - time.Second }), w: storm(12, 40)},
		{name: "a run on time in the window: no storm",
			h: quiet, w: execWindow{onTime: 1, timeouts: 12, inFlight: 40}},
		{name: "too few timeouts: no storm", h: quiet, w: storm(2, 40)},
		{name: "at the floor, as many timeouts as runs in flight are a storm's sign",
			limit: 2, h: with(func(h *execHistory) {
				h.sinceOnTime, h.sinceMove, h.sinceOverload = execStormQuiet, execStormQuiet, time.Second
			}),
			w: storm(2, 2), want: execDecision{notRuntime: true}},
		{name: "at the floor with no timeout: no storm",
			limit: 2, h: with(func(h *execHistory) {
				h.sinceOnTime, h.sinceMove, h.sinceOverload = execStormQuiet, execStormQuiet, time.Second
			}),
			w: storm(0, 2), want: execDecision{limit: 2}},
		{name: "no more than a floor in flight: no storm", h: quiet, w: storm(12, 2)},
		{name: "at the floor for execStormQuiet, still a storm: not the runtime, lifted",
			limit: 2, h: with(func(h *execHistory) {
				h.sinceOnTime, h.sinceMove, h.sinceOverload = execStormQuiet, execStormQuiet, time.Second
			}),
			w: storm(3, 2), want: execDecision{notRuntime: true}},
		{name: "at the floor for less: kept",
			limit: 2, h: with(func(h *execHistory) {
				h.sinceOnTime, h.sinceMove, h.sinceOverload = execStormQuiet, time.Second, time.Second
			}),
			w: storm(3, 2), want: execDecision{limit: 2}},
		{name: "after a failed floor test no storm is judged",
			h: with(func(h *execHistory) { h.sinceOnTime, h.noStorms = time.Minute, true }), w: storm(12, 40)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nextExecLimit(tc.limit, 2, tc.h, tc.w); got != tc.want {
				t.Errorf("nextExecLimit(%d, 2, %+v, %+v) = %+v; want %+v", tc.limit, tc.h, tc.w, got, tc.want)
			}
		})
	}
}
