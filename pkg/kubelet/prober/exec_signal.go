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
	"time"
)

// execSignal is what exec runs show the exec limit's policy (exec_policy.go):
// each probe's baseline, the current window's counts and what the limit
// remembers across windows. The limiter (exec_limit.go) feeds it every run
// that ends and asks it once a window; it holds no slot and no queue. Its
// times are durations since the limiter's epoch. Guarded by execLimit.mu.
type execSignal struct {
	win          execWindow
	window       time.Duration // when win began
	lastMove     time.Duration // the last change of the limit
	lastOverload time.Duration // the last verdict, if overloaded
	overloaded   bool          // there has been one
	lastWait     time.Duration // the end of the last window in which runs waited
	lastOnTime   time.Duration // the last run that came back on time
	noStorms     bool          // the floor test failed, and no run came back on time since
	carried      int           // windows whose runs win still counts (below)
}

// execBaseline is one probe's part of the signal.
type execBaseline struct {
	baseline time.Duration // what its command usually takes; 0 until a run came back
	timedOut bool          // its last run timed out
	// lastTimeout is when its last run that timed out did, in whole seconds
	// plus one (0: never): four bytes keep limitedProbe in 64.
	lastTimeout int32
}

const (
	// execLimitWindow: the policy is asked once a window.
	execLimitWindow = time.Second
	// execCarryMax: a window in which fewer than execMinSamples runs of
	// probes with a baseline came back hands its runs on to the next, for
	// up to this many windows. On a node whose probes run every 10 s the
	// runs of a second are too few to judge by, and the policy is still
	// asked every second.
	execCarryMax = 5
)

// sample learns from a run of p that started at start and took took: the
// window's counts, if it started after the limit last moved, and p's
// baseline.
func (s *execSignal) sample(p *execBaseline, start, took, timeout time.Duration, timedOut bool) {
	now := start + took
	counts := start >= s.lastMove
	if timedOut && counts {
		s.win.timeouts++
	}
	if b := p.baseline; b > 0 && b < timeout && counts {
		head := timeout - b
		switch excess := max(0, took-b); {
		case timedOut && p.timedOut: // still hung: its command's trouble
		case timedOut:
			s.win.firstTimeouts++
			if p.lastTimeout > 0 && now-time.Duration(p.lastTimeout-1)*time.Second < execStormQuiet {
				s.win.flaps++
			}
			s.win.excess += head
			s.win.headroom += head
		default:
			if 2*excess > head {
				s.win.slow++
			} else {
				s.win.onTime++
				s.lastOnTime, s.noStorms = now, false
			}
			s.win.excess += min(excess, head)
			s.win.headroom += head
		}
	}
	p.timedOut = timedOut
	if timedOut {
		p.lastTimeout = int32(min(now/time.Second, math.MaxInt32-1)) + 1
		return
	}
	// A baseline follows its command down at once and up slowly, and not up
	// at all while the runtime was lately overloaded: an overload must not
	// become what a probe's command usually takes.
	took = min(took, timeout)
	switch b := p.baseline; {
	case b == 0:
		p.baseline = max(took, 1)
	case took < b || !s.overloaded || now-s.lastOverload >= execLiftAfter:
		p.baseline = max(b+(took-b)/8, 1)
	}
}

// due: the window is execLimitWindow old at now.
func (s *execSignal) due(now time.Duration) bool { return now-s.window >= execLimitWindow }

// decide asks the policy for the next limit, from limit, at the end of the
// window, with waiting runs still waiting, and starts the next window with
// counted runs in flight.
func (s *execSignal) decide(policy func(int, int, execHistory, execWindow) execDecision, limit, floor, waiting, counted int, now time.Duration) int {
	w := s.win
	w.waited = w.waited || waiting > 0
	if limit > 0 {
		w.inFlight = min(w.inFlight, limit)
	}
	if w.waited {
		s.lastWait = now
	}
	since := time.Duration(math.MaxInt64)
	if s.overloaded {
		since = now - s.lastOverload
	}
	d := policy(limit, floor, execHistory{
		sinceOverload: since, sinceWait: now - s.lastWait, sinceOnTime: now - s.lastOnTime,
		sinceMove: now - s.lastMove, noStorms: s.noStorms,
	}, w)
	if d.limit < 0 || d.limit > 0 && d.limit < floor {
		panic("prober: execLimit: the policy set a limit below the floor")
	}
	if d.overloaded {
		s.overloaded, s.lastOverload = true, now
	}
	if d.notRuntime {
		s.noStorms = true
	}
	if d.limit != limit {
		s.lastMove = now
	}
	s.window = now
	next := execWindow{inFlight: counted}
	if d.limit == limit && !d.overloaded && w.onTime+w.slow+w.firstTimeouts < execMinSamples && s.carried < execCarryMax {
		next.onTime, next.slow, next.firstTimeouts, next.flaps = w.onTime, w.slow, w.firstTimeouts, w.flaps
		next.excess, next.headroom = w.excess, w.headroom
		s.carried++
	} else {
		s.carried = 0
	}
	s.win = next
	return d.limit
}

// counted: n runs count against the limit now.
func (s *execSignal) counted(n int) { s.win.inFlight = max(s.win.inFlight, n) }
