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
	"container/list"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	remote "k8s.io/cri-client/pkg"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// execLimit bounds the exec probe runs in flight in the container runtime
// once the runtime shows that it cannot keep up. Each exec costs the runtime
// a process started in the container (containerd, its shim, runc): about
// 35 ms of CPU on the kind nodes of e2e/results/kind-storm-*. Upstream starts
// every due run at once, so past the runtime's capacity every exec slows down
// together, healthy containers fail probes whose timeout their command would
// have met, and liveness restarts add load.
//
// The sign that the runtime has fallen behind, in a second: at least three
// exec runs timed out (remote.ErrCommandTimedOut) for probes whose previous
// run had not, and more than half of the runs took over three quarters of
// their timeout (a timeout counts as slow). For a minute after such a sign,
// slowness alone is one: the limit keeps the runtime off the edge it has
// shown, rather than finding it again by failing healthy probes. A runtime
// whose runs are slow but meet their timeouts keeps up, and is never bound:
// kind's containerd at 20 execs a second (e2e/results/kind-storm-*) returns
// most runs of some seconds after 750 ms of a 1 s timeout, and stock's
// kubelet fails none of them. Once a storm has every run timing out, no
// probe's previous run met its timeout: then the sign is that none returned
// within three quarters of its timeout and most runs, at least three, timed
// out for probes that began timing out in the last minute.
//
// Three kinds of run say nothing about slowness: a timeout of a probe whose
// previous run timed out too (a hung command times out however idle the
// runtime is), a run that outlasted twice its timeout without timing out (a
// runtime that does not apply timeouts gives no sign by its durations;
// kind's containerd under a storm returns runs up to 1.4 times their
// timeout), and a run that started before the limit last moved. A kubelet that
// restarts has seen no previous run: each hung probe's first timeout then
// counts once.
//
// On a sign the limit becomes three quarters of the runs counted against it,
// never below floor, one run per CPU; a first sign sets it only in a second
// with more than two floors of runs counted at once (execFirstCutPerFloor).
// What an exec costs the runtime differs by machine: 35 ms of CPU on the kind node of one storm run, about 120 ms on
// another machine of the same type on the same day (1.48 cores for 12 execs
// a second, each taking 1.3 s with 15 in flight). A floor of 8 runs per CPU,
// 16 there, never bound, so no count of runs per CPU above one holds for
// every runtime; one per CPU is no storm on any. In a second in which runs
// waited, the limit rises by one if at least three runs that started since
// it last moved came back, most of them within half their timeout, so that
// it probes for the runtime's capacity as TCP's congestion window does, and
// settles clear of the timeout: rising while most came back within three
// quarters of it, the limit climbed to the edge and was cut 9 times a
// minute and a half on kind at twice the runtime's capacity, timing runs
// out each time (kind-storm-20261129-204941, in CHANGELOG). A raise waits for the runs it let in: one a second outran
// them on a runtime past its capacity (about five execs a second at any
// concurrency: kind-storm-20261129-095500's calibration, in CHANGELOG), each
// overshoot timing runs out, 208 healthy timeouts in TestExecLimitStorm's
// model of it against 12. After a minute in which no run waited and none
// was cut the limit is lifted. Runs wait in the order
// they came (FIFO); the wait does not count against the probe's timeout,
// which the runtime applies to the command, so a run that waited is a run
// that started late, and its wait is measured.
//
// A run counts until it returns or until its hold has passed: twice its
// timeout (at least its timeout and a second), at most execHoldMax. A
// loaded runtime returns runs past their timeout, and they load it until
// then; one that never returns must not keep every other exec probe waiting.
//
// Example, two CPUs (floor 2), timeouts 1 s, two probes hung:
//
//	second 0   20 runs in flight, 14 of 20 took over 750 ms, none timed out: no limit
//	second 9   40 in flight, 9 of 12 slow, 4 timed out that had not: limit 30 (3/4 of 40)
//	second 10  runs waited; 20 of the 30 that started since the cut took under 500 ms: limit 31
//	second 11  the runs back started before the raise: no move; the hung
//	           probes time out again: left out
//	second 30  16 of 31 slow, none timed out, 21 s after the sign: limit 23
//	second 95  no run waited since second 35: the limit is lifted
type execLimit struct {
	floor   int // the adaptive limit's lowest value
	fixed   int // PROBEWHEEL_EXEC_LIMIT=N: always N, no adaptation; 0: adaptive
	metrics execLimitMetrics

	mu      sync.Mutex
	limit   int       // 0: none; else counted <= limit, except right after a cut
	counted int       // runs that count against it
	peak    int       // the most counted in the current second
	running int       // runs in flight, counted or not
	waiting list.List // of *execWaiter, oldest first
	// The current second's runs that started after the last cut: those
	// that say something about slowness, the slow ones among them, those
	// back within half their timeout, and the timeouts of probes whose
	// previous run had not timed out; all of them,
	// those back within 3/4 of their timeout, and the timeouts of probes
	// that began timing out recently.
	window                 time.Time
	samples, slow, quick   int
	newOuts                int
	runs, fast, recentOuts int
	waited                 bool // a run waited in the current second
	lastCut, lastWait      time.Time
	lastMove               time.Time // the last cut or raise
	lastBehind             time.Time // the last sign of timeouts
	lastSweep              time.Time
	// timedOut holds the probes (container ID, command and timeout: a
	// liveness and a readiness probe running one command with different
	// timeouts differ) whose last run timed out.
	timedOut map[string]timedOutSince
}

// execWaiter is a run waiting for a slot.
type execWaiter struct {
	ready   chan struct{} // closed when granted
	granted bool          // guarded by execLimit.mu
}

// timedOutSince: when a probe's runs began timing out, and the last one did.
type timedOutSince struct{ first, last time.Time }

const (
	// execLimitFloorPerCPU: the adaptive limit never goes below this many
	// runs in flight per CPU.
	execLimitFloorPerCPU = 1
	// execFirstCutPerFloor: a limit is first set only in a second in which
	// more runs than this many floors counted at once. The slowest runtime measured here (about five
	// execs a second on two CPUs) met a 1 s timeout with four in flight, so
	// fewer runs timing out together are their commands, not the runtime:
	// the differential sweep's one cut in 10,000 sequences was three probes
	// turning hung in one second with two runs in flight, and held healthy
	// probes back. Once set, the limit is cut down to the floor.
	execFirstCutPerFloor = 2
	// execLimitWindow: the limit moves at most once a window.
	execLimitWindow = time.Second
	// execLimitLiftAfter: a limit that no run waited for and nothing cut for
	// this long is lifted.
	execLimitLiftAfter = time.Minute
	// execHoldGrace, execHoldMax: a run counts for twice its timeout, at
	// least its timeout and execHoldGrace, at most execHoldMax.
	execHoldGrace = time.Second
	execHoldMax   = 10 * time.Second
	// execStormRecent: the timeouts of probes that began timing out this
	// recently count towards a storm's sign.
	execStormRecent = time.Minute
	// timedOutForget: a hung probe not heard from for this long is forgotten
	// (its container has gone).
	timedOutForget = 10 * time.Minute

	// execLimitEnv: unset or "adaptive", the adaptive limit; "off" or 0, none;
	// a positive number, that fixed limit.
	execLimitEnv = "PROBEWHEEL_EXEC_LIMIT"
)

// execLimitFromEnv returns the fixed limit the kubelet's environment asks
// for (0: adaptive, -1: none), or adaptive with an error that says why the
// value was not taken.
func execLimitFromEnv(getenv func(string) string) (int, error) {
	switch v := getenv(execLimitEnv); v {
	case "", "adaptive":
		return 0, nil
	case "off", "0":
		return -1, nil
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%s=%q is neither adaptive, off nor a number of exec probe runs: the limit is adaptive", execLimitEnv, v)
		}
		return n, nil
	}
}

// newExecLimit returns nil for fixed < 0: no limit, as upstream.
func newExecLimit(fixed int, metrics execLimitMetrics) *execLimit {
	if fixed < 0 {
		return nil
	}
	return &execLimit{
		floor:    execLimitFloorPerCPU * runtime.NumCPU(),
		fixed:    fixed,
		limit:    fixed,
		metrics:  metrics,
		timedOut: map[string]timedOutSince{},
	}
}

// limitedRunner runs exec probes' commands within the limit.
type limitedRunner struct {
	kubecontainer.CommandRunner
	limit *execLimit
}

func (r limitedRunner) RunInContainer(ctx context.Context, id kubecontainer.ContainerID, cmd []string, timeout time.Duration) (_ []byte, err error) {
	slot, err := r.limit.acquire(ctx, timeout)
	if err != nil {
		return nil, err
	}
	defer func() { slot.done(id, cmd, err) }() // a panicking runner ends its run too
	return r.CommandRunner.RunInContainer(ctx, id, cmd, timeout)
}

// execSlot is one exec run's place.
type execSlot struct {
	l       *execLimit
	hold    *time.Timer
	start   time.Time
	timeout time.Duration
	counted bool // guarded by l.mu
	ended   bool // guarded by l.mu
}

// acquire waits for a slot, in order of arrival, or for ctx.
func (l *execLimit) acquire(ctx context.Context, timeout time.Duration) (*execSlot, error) {
	arrived := time.Now()
	l.mu.Lock()
	l.tickLocked(arrived)
	if l.waiting.Len() == 0 && l.roomLocked() {
		l.countLocked()
		s := l.startLocked(timeout)
		l.mu.Unlock()
		l.metrics.waited(0)
		return s, nil
	}
	l.lastWait, l.waited = arrived, true
	w := &execWaiter{ready: make(chan struct{})}
	e := l.waiting.PushBack(w)
	l.mu.Unlock()

	select {
	case <-w.ready:
		l.mu.Lock()
		s := l.startLocked(timeout)
		l.lastWait = time.Now()
		l.mu.Unlock()
		l.metrics.waited(time.Since(arrived))
		return s, nil
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		if !w.granted {
			l.waiting.Remove(e)
		} else {
			l.freeLocked() // given a slot as ctx ended: pass it on
		}
		return nil, ctx.Err()
	}
}

// startLocked starts a run that has been counted.
func (l *execLimit) startLocked(timeout time.Duration) *execSlot {
	s := &execSlot{l: l, counted: true, start: time.Now(), timeout: timeout}
	s.hold = time.AfterFunc(min(max(timeout+execHoldGrace, 2*timeout), execHoldMax), s.uncount)
	l.running++
	return s
}

// freeLocked frees a counted slot: the oldest waiting run takes it, if the
// limit has room (a cut may have left more counted than it allows).
func (l *execLimit) freeLocked() {
	if l.counted--; l.counted < 0 {
		panic("prober: execLimit: a slot was freed twice")
	}
	l.grantLocked()
}

// countLocked counts one more run against the limit.
func (l *execLimit) countLocked() {
	l.counted++
	l.peak = max(l.peak, l.counted)
}

// roomLocked: one more run may count.
func (l *execLimit) roomLocked() bool { return l.limit == 0 || l.counted < l.limit }

func (l *execLimit) grantLocked() {
	for l.waiting.Len() > 0 && l.roomLocked() {
		l.countLocked()
		w := l.waiting.Remove(l.waiting.Front()).(*execWaiter)
		w.granted = true
		close(w.ready)
	}
}

// uncount: the run outlived its hold.
func (s *execSlot) uncount() {
	s.l.mu.Lock()
	defer s.l.mu.Unlock()
	s.l.tickLocked(time.Now())
	s.uncountLocked()
}

func (s *execSlot) uncountLocked() {
	if s.counted {
		s.counted = false
		s.l.freeLocked()
	}
}

// done: the run returned err.
func (s *execSlot) done(id kubecontainer.ContainerID, cmd []string, err error) {
	l := s.l
	s.hold.Stop()
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.ended {
		panic("prober: execLimit: a run returned twice")
	}
	s.ended = true
	l.running--
	if l.fixed == 0 {
		l.adaptLocked(now, id, cmd, s.start, s.timeout, errors.Is(err, remote.ErrCommandTimedOut))
	}
	s.uncountLocked()
	l.grantLocked() // a raise makes room
}

// adaptLocked counts a run that started at start and ended at now, after
// moving the adaptive limit if a second has passed.
func (l *execLimit) adaptLocked(now time.Time, id kubecontainer.ContainerID, cmd []string, start time.Time, timeout time.Duration, timedOut bool) {
	l.tickLocked(now)
	took := now.Sub(start)
	afterMove := !start.Before(l.lastMove)
	sample := took <= 2*timeout && afterMove
	recent := false
	if timedOut || len(l.timedOut) > 0 {
		key := id.ID + "\x00" + strings.Join(cmd, "\x00") + "\x00" + strconv.FormatInt(int64(timeout), 10)
		since, hung := l.timedOut[key]
		if timedOut {
			if !hung {
				since.first = now
			}
			since.last = now
			l.timedOut[key] = since
			sample = sample && !hung
			recent = now.Sub(since.first) < execStormRecent && afterMove
		} else {
			delete(l.timedOut, key)
		}
		if now.Sub(l.lastSweep) > timedOutForget {
			l.lastSweep = now
			for k, at := range l.timedOut {
				if now.Sub(at.last) > timedOutForget {
					delete(l.timedOut, k)
				}
			}
		}
	}
	if sample {
		l.samples++
		if timedOut {
			l.slow++
			l.newOuts++
		} else if took > timeout*3/4 {
			l.slow++
		} else if took <= timeout/2 {
			l.quick++
		}
	}
	if afterMove {
		l.runs++
	}
	if recent {
		l.recentOuts++
	} else if !timedOut && took <= timeout*3/4 {
		l.fast++
	}
}

// tickLocked ends the window if a second has passed: runs that end, arrive
// or outlast their hold move it, so that it moves while runs wait even if
// none returns.
func (l *execLimit) tickLocked(now time.Time) {
	if l.fixed == 0 && now.Sub(l.window) >= execLimitWindow {
		l.moveLocked(now)
	}
}

// moveLocked ends the current window: a cut, a raise, a lift or nothing.
func (l *execLimit) moveLocked(now time.Time) {
	slow := l.samples >= 3 && 2*l.slow > l.samples
	storm := l.fast == 0 && l.recentOuts >= 3 && 2*l.recentOuts > l.runs
	if slow && l.newOuts >= 3 || storm {
		l.lastBehind = now
	}
	inFlight := l.counted
	if l.limit > 0 {
		inFlight = min(inFlight, l.limit)
	}
	behind := storm || slow && !l.lastBehind.IsZero() && now.Sub(l.lastBehind) < execStormRecent
	switch {
	case behind && (l.limit > 0 || l.peak > execFirstCutPerFloor*l.floor):
		l.limit = max(l.floor, inFlight*3/4)
		l.lastCut, l.lastMove = now, now
		l.metrics.cut(l.limit)
	case l.limit == 0:
	case l.waited || l.waiting.Len() > 0:
		// Only runs that started after the last move judge it: a raise
		// waits for them, so that it does not outrun what it shows.
		if l.samples >= 3 && 2*l.quick > l.samples {
			l.limit++
			l.lastMove = now
		}
	case now.Sub(l.lastWait) >= execLimitLiftAfter && now.Sub(l.lastCut) >= execLimitLiftAfter:
		l.limit = 0
	}
	l.window, l.waited, l.peak = now, false, l.counted
	l.samples, l.slow, l.quick, l.newOuts, l.runs, l.fast, l.recentOuts = 0, 0, 0, 0, 0, 0, 0
}

// execLimitState is what the collector reports; limit 0 is none.
type execLimitState struct {
	limit, counted, running, waiting int
}

func (l *execLimit) state() execLimitState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return execLimitState{limit: l.limit, counted: l.counted, running: l.running, waiting: l.waiting.Len()}
}

// execLimitMetrics is what the limit reports as runs happen; tests swap in a
// recorder.
type execLimitMetrics interface {
	waited(d time.Duration) // an exec run was given a slot after waiting d
	cut(limit int)          // a timeout cut the limit to limit
}
