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

import "time"

// The exec limit's policy: from what one window of exec runs showed
// (exec_signal.go), the next limit. It is a pure function, apart from the
// limiter that enforces it (exec_limit.go), so that every rule is a row of a
// table test.
//
// What tells a container runtime's overload from a command's own trouble is
// the probes that do not have that trouble. Each exec probe has a baseline,
// the time its command usually takes (learned from its own runs), and a
// headroom, its timeout less its baseline. A runtime past its capacity slows
// every exec on the node: the runs that come back at all come back late
// against their own baselines, having used over half their headroom, and
// healthy probes start timing out. A dependency that every probe of some pods
// checks (a database that stops answering) makes those probes hang and time
// out while the node's other exec probes come back on time; a command that
// always takes most of its timeout is on time against its own baseline. So:
//
//   - overloaded: at least execMinSamples runs came back slow, more than twice
//     as many as came back on time, and a healthy probe (one whose previous
//     run did not time out) timed out. For execLiftAfter after a verdict,
//     slowness alone is one: the limit keeps the runtime off the edge it has
//     shown, rather than find it again by failing healthy probes. Timeouts
//     alone are no such verdict (hung commands time out on an idle runtime),
//     and neither is slowness alone before one (a latency spike that meets
//     its timeouts harms nothing).
//   - flapping: probes that time out, come back on time and time out again
//     (at least execMinSamples of them in a window, each within
//     execStormQuiet of its previous timeout) are a runtime that lets runs
//     through only while fewer are in flight; a dependency that hangs keeps
//     its probes timing out, and one that degrades hangs new ones. It is a
//     verdict of overload.
//   - a storm: a runtime overloaded from its probes' first runs (a kubelet
//     that starts into one) teaches no baseline below the overload, and its
//     runs time out without coming back slow. When runs time out, more than
//     a floor of them in flight, and no exec run on the node has come back
//     on time for execStormQuiet, the limit is halved, down to the floor.
//     Any run on time within execStormQuiet (a pod's liveness probe every
//     10 s beside the hung ones) says the runtime answers. At the floor the
//     storm tests itself: a runtime with one exec per CPU that still lets
//     every run time out for execStormQuiet is not overloaded by them, so the
//     limit is lifted and no storm is judged until a run comes back on time.
//   - cut: to the runs in flight times the share that would bring the runs'
//     mean use of their headroom back to execTargetUse (the runtime's
//     latency grows with the execs in flight: Little's law), at most three
//     quarters of them (at least a quarter: a run uses at most all of its
//     headroom), never below the floor.
//   - raise, while runs wait and most of those that came back were on time:
//     by half the limit while they used under execFarUse of their headroom
//     (far from the edge: a runtime that recovered), else by one slot (near
//     it: TCP's congestion avoidance).
//   - lift: no verdict and no run waiting for execLiftAfter. A limit that
//     runs wait for is raised, never lifted: lifting it would send the whole
//     backlog to a runtime that keeps up only because of it.
//
// No verdict sets a limit while at most two floors of runs are in flight.
// Only runs that started after the limit last moved are counted, so a move
// is judged by the runs it let in. Example, two CPUs (floor 2), probes whose
// command takes 200 ms of a 1 s timeout (headroom 800 ms):
//
//	window  in flight  on time  slow  first timeouts  mean use  verdict          limit
//	0       20         20       0     0               0.02      keeps up         none
//	7       60         1        12    4               0.81      overloaded       60 × 0.25/0.81 = 18
//	8       18         (started before the cut: not counted)                      18
//	9       18         14       1     0               0.20      runs waited      19
//	25      24         2        9     0               0.55      overloaded       24 × 0.25/0.55 = 10
//	55      12         12       0     0               0.03      quiet for 30 s   none
//	                                                               (none waited)
type execWindow struct {
	// Runs that came back, of probes with a baseline: on time (using at
	// most half their headroom) or slow.
	onTime, slow int
	// Runs that timed out, of probes with a baseline whose previous run had
	// not: a probe that turns hung counts once.
	firstTimeouts int
	// Of those, the probes that had timed out within execStormQuiet before
	// that run: they flap.
	flaps int
	// Runs that timed out, every one.
	timeouts int
	// Over onTime, slow and firstTimeouts: how far past their baseline the
	// runs came back (a timeout: its whole headroom), and their headroom.
	excess, headroom time.Duration
	// The most runs counted against the limit at once, capped at the limit.
	inFlight int
	// A run waited for a slot.
	waited bool
}

// execHistory is what the limiter remembers for the policy.
type execHistory struct {
	sinceOverload time.Duration // since the last verdict, overloaded or storm
	sinceWait     time.Duration // since a window in which runs waited
	sinceOnTime   time.Duration // since an exec run came back on time
	sinceMove     time.Duration // since the limit last changed
	noStorms      bool          // the floor test failed, and no run came back on time since
}

// execDecision is the policy's answer.
type execDecision struct {
	limit      int  // 0: none
	overloaded bool // a verdict: overloaded, or a storm
	notRuntime bool // the floor test failed: judge no storm until a run is on time
}

const (
	// execMinSamples: fewer runs say nothing about the runtime.
	execMinSamples = 3
	// execTargetUse: a cut aims at runs that use this share of their
	// headroom, clear of both the edge (slow: over half) and the floor of
	// what a loaded runtime returns.
	execTargetUse = 0.25
	// execFarUse: runs that use less of their headroom are at their
	// baselines, and the limit is far below what the runtime keeps up with.
	execFarUse = 0.125
	// execLiftAfter: a limit with no verdict and no run waiting for this long
	// is lifted, and for this long after a verdict slowness alone is one.
	execLiftAfter = 30 * time.Second
	// execFirstCutFloors: no verdict sets a limit with this many floors of
	// runs in flight or fewer. The slowest runtime measured (about five
	// execs a second on two CPUs) met a 1 s timeout with four in flight: so
	// few runs timing out, flapping or slow together are their commands,
	// not the runtime's overload.
	execFirstCutFloors = 2
	// execStormQuiet: a storm is judged after this long with no exec run
	// back on time, longer than the period of a node's typical liveness
	// probe (10 s), so that one such probe on time vetoes it.
	execStormQuiet = 15 * time.Second
)

// nextExecLimit is the policy: the limit after a window, from the limit in
// force (0: none), the floor, what the limiter remembers and the window.
func nextExecLimit(limit, floor int, h execHistory, w execWindow) execDecision {
	recent := h.sinceOverload < execLiftAfter
	slowNode := w.slow >= execMinSamples && w.slow > 2*w.onTime
	// At the floor the runs in flight may be fewer than execMinSamples: all of
	// them timing out is as much a storm's sign.
	storm := !h.noStorms && w.timeouts >= max(1, min(execMinSamples, w.inFlight)) && w.onTime == 0 && h.sinceOnTime >= execStormQuiet
	switch {
	case slowNode && (w.firstTimeouts > 0 || recent) || w.flaps >= execMinSamples:
		return cut(limit, floor, w, cutTo(w))
	case storm && limit == floor && h.sinceMove >= execStormQuiet:
		return execDecision{notRuntime: true}
	case storm && w.inFlight > floor:
		return cut(limit, floor, w, w.inFlight/2)
	case limit == 0:
		return execDecision{}
	case !recent && h.sinceWait >= execLiftAfter:
		return execDecision{}
	case w.waited && w.onTime >= execMinSamples && w.onTime > w.slow:
		if use(w) < execFarUse {
			return execDecision{limit: limit + max(1, limit/2)}
		}
		return execDecision{limit: limit + 1}
	}
	return execDecision{limit: limit}
}

// cut is a verdict that sets the limit to n, never below the floor; none if
// that would hold nothing back. A first verdict needs more than
// execFirstCutFloors floors of runs in flight.
func cut(limit, floor int, w execWindow, n int) execDecision {
	if limit == 0 && w.inFlight <= execFirstCutFloors*floor {
		return execDecision{}
	}
	next := max(floor, n)
	if limit == 0 && next >= w.inFlight {
		return execDecision{overloaded: true}
	}
	return execDecision{limit: next, overloaded: true} // at most limit: inFlight is capped at it, and floor <= limit
}

// cutTo is the runs in flight times execTargetUse over the mean use of
// headroom, at most three quarters of them.
func cutTo(w execWindow) int {
	n := w.inFlight
	if u := use(w); u > execTargetUse/0.75 {
		return int(float64(n) * execTargetUse / u)
	}
	return n * 3 / 4
}

// use is the mean share of their headroom the window's runs used.
func use(w execWindow) float64 {
	if w.headroom <= 0 {
		return 0
	}
	return float64(w.excess) / float64(w.headroom)
}
