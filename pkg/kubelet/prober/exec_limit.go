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
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	remote "k8s.io/cri-client/pkg"
	"k8s.io/klog/v2"
)

// execLimit holds exec probe runs back in the kubelet while the container
// runtime is overloaded, where upstream sends every due exec at once and,
// past the runtime's capacity, every exec slows down together until healthy
// containers fail probes their commands would have met. It is the limiter:
// the slots and the queues. What the runs show is its signal's
// (exec_signal.go); when to bind and how far, its policy's (nextExecLimit,
// exec_policy.go), asked once a window.
//
// Invariants (a panic names the one that broke):
//   - A probe has at most one run here: waiting, counted, or in flight past
//     its hold. The scheduler never runs a probe twice at once.
//   - Without a limit nothing waits. With one, a run waits only while
//     counted >= limit (a cut may leave more counted than it allows, until
//     they return).
//   - A slot goes to the waiting run whose pod has the fewest runs counted,
//     then to the oldest: one pod's many probes, hung or not, take no more
//     than their share, and a pod's single liveness probe keeps its period.
//   - A run still waiting when its worker stops never starts (abandon).
//   - Every move of the limit is followed at once by the grants it allows.
//
// A run counts until it returns or its hold passes, checked once a window:
// twice its timeout (at least its timeout and execHoldGrace, at most
// execHoldMax). A loaded
// runtime returns runs past their timeout, and they load it until then; one
// that never returns must not keep every other exec probe waiting. The wait
// is not charged to the probe's timeout, which the runtime applies to the
// command: a run that waited is a run that started late, and its wait is
// measured (prober_exec_limit_wait_seconds).
type execLimit struct {
	floor   int // the lowest limit: one run in flight per CPU
	decide  func(limit, floor int, h execHistory, w execWindow) execDecision
	metrics execLimitMetrics
	epoch   time.Time // the limiter's times are durations since epoch (monotonic)

	mu      sync.Mutex
	limit   int      // 0: none
	counted execList // runs that count against the limit
	running int      // runs whose command is in the runtime, counted or not
	waiting int      // runs in the pods' queues
	seq     int64    // arrivals, for the queues' order
	// While a limit is set: every pod with a run counted or waiting.
	pods   map[types.UID]*execPod
	signal execSignal
	// timer moves the window while runs wait and none arrives or returns.
	timer      *time.Timer
	timerArmed bool
}

// execPod is a pod's share of a set limit.
type execPod struct {
	counted int
	queue   execList
}

const (
	// execHoldGrace, execHoldMax bound a run's hold (above).
	execHoldGrace = time.Second
	execHoldMax   = 10 * time.Second
	// execLimitFloorPerCPU: the limit never goes below this many runs in
	// flight per CPU. No count of execs per CPU is safe on every runtime
	// (the runtimes measured spent 35 to 120 ms of CPU on an exec), but with
	// one per CPU a runtime's own execs cannot outnumber its cores.
	execLimitFloorPerCPU = 1
)

// errExecStopped is a waiting run's when its worker stops: its command never
// reaches the runtime, and doProbe drops the run as it drops a probe error.
var errExecStopped = errors.New("the probe's worker stopped while its exec run waited for the exec limit")

func newExecLimit(floor int, metrics execLimitMetrics) *execLimit {
	if floor < 1 {
		panic("prober: execLimit: a floor below one run would hold every run back")
	}
	return &execLimit{floor: floor, decide: nextExecLimit, metrics: metrics, epoch: time.Now()}
}

// execLimitModeLogged: the mode is logged once per process, at the first
// NewManager; the kubelet makes one manager, its tests make thousands.
var execLimitModeLogged sync.Once

// logExecLimitMode logs the effective mode of the limit l (nil: off).
func logExecLimitMode(l *execLimit) {
	execLimitModeLogged.Do(func() {
		if l == nil {
			klog.TODO().Info("Exec probe runs are not limited: the ProbeExecLimit feature gate is off")
			return
		}
		klog.TODO().Info("Exec probe runs are held back while the container runtime is overloaded (ProbeExecLimit)", "floor", l.floor)
	})
}

func (l *execLimit) now() time.Duration { return time.Since(l.epoch) }

// run runs cmd, the exec probe's command with the given timeout, within the
// limit; cache is the worker's.
func (l *execLimit) run(ctx context.Context, cache *runCache, pod *types.UID, timeout time.Duration, cmd func() ([]byte, error)) (out []byte, err error) {
	p, start, err := l.acquire(ctx, cache, pod, timeout)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() { l.done(p, start, timeout, err, ok) }() // a panicking runner ends its run too
	out, err = cmd()
	ok = true
	return out, err
}

// acquire returns when the run may start, at start; or the reason it may not.
func (l *execLimit) acquire(ctx context.Context, cache *runCache, pod *types.UID, timeout time.Duration) (p *limitedProbe, start time.Duration, err error) {
	l.mu.Lock()
	now := l.now()
	l.tickLocked(now)
	if cache.exec == nil {
		cache.exec = &limitedProbe{pod: pod}
	}
	p = cache.exec
	if p.state != execIdle {
		panic("prober: execLimit: a second run of one probe")
	}
	if l.waiting == 0 && l.roomLocked() {
		l.countLocked(p, now+hold(timeout))
		l.running++
		l.mu.Unlock()
		l.metrics.waited(0)
		return p, now, nil
	}
	if p.stopped {
		l.mu.Unlock()
		return nil, 0, errExecStopped
	}
	p.ready, p.at = make(chan struct{}), l.seq
	l.seq++
	p.state = execWaiting
	l.podLocked(*pod).queue.push(p)
	l.waiting++
	l.signal.win.waited = true
	l.armLocked()
	ready := p.ready
	l.mu.Unlock()

	select {
	case <-ready:
	case <-ctx.Done():
	}
	l.mu.Lock()
	start = l.now()
	switch {
	case p.state == execWaiting: // ctx ended
		l.dequeueLocked(p)
		err = ctx.Err()
	case p.state == execIdle: // abandoned
		err = errExecStopped
	case ctx.Err() != nil: // granted as ctx ended: pass the slot on
		l.uncountLocked(p)
		p.state = execIdle
		l.grantLocked()
		err = ctx.Err()
	default:
		p.at = int64(start + hold(timeout))
		l.running++
	}
	l.mu.Unlock()
	if err != nil {
		return nil, 0, err
	}
	l.metrics.waited(start - now)
	return p, start, nil
}

// hold is how long a run counts at most.
func hold(timeout time.Duration) time.Duration {
	return min(max(timeout+execHoldGrace, 2*timeout), execHoldMax)
}

// done ends a run that started at start. ok is false when the runner
// panicked: such a run says nothing of the runtime.
func (l *execLimit) done(p *limitedProbe, start, timeout time.Duration, err error, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.tickLocked(now)
	if l.running--; l.running < 0 {
		panic("prober: execLimit: more runs ended than started")
	}
	switch p.state {
	case execCounted:
		l.uncountLocked(p)
	case execOverdue:
	default:
		panic("prober: execLimit: a run ended that was not in flight")
	}
	p.state = execIdle
	if ok {
		l.signal.sample(&p.execBaseline, start, now-start, timeout, errors.Is(err, remote.ErrCommandTimedOut))
	}
	l.grantLocked()
}

// tickLocked asks the policy once a window: the runs that arrive or end, and
// the timer while runs wait, move it.
func (l *execLimit) tickLocked(now time.Duration) {
	if !l.signal.due(now) {
		return
	}
	l.sweepLocked(now)
	if next := l.signal.decide(l.decide, l.limit, l.floor, l.waiting, l.counted.n, now); next != l.limit {
		if next > 0 && (l.limit == 0 || next < l.limit) {
			l.metrics.cut(next)
		}
		l.setLimitLocked(next)
	}
	l.grantLocked()
}

// setLimitLocked sets the limit; the pods' shares are kept while it is set.
func (l *execLimit) setLimitLocked(next int) {
	if l.limit == 0 && next > 0 {
		l.pods = map[types.UID]*execPod{}
		for p := l.counted.head; p != nil; p = p.next {
			l.podLocked(*p.pod).counted++
		}
	}
	l.limit = next
	if next == 0 {
		l.grantLocked()
		if l.waiting != 0 {
			panic("prober: execLimit: runs wait with no limit")
		}
		l.pods = nil
	}
}

// sweepLocked stops counting the runs whose hold has passed.
func (l *execLimit) sweepLocked(now time.Duration) {
	for p := l.counted.head; p != nil; {
		next := p.next
		if p.at <= int64(now) {
			l.uncountLocked(p)
			p.state = execOverdue
		}
		p = next
	}
}

func (l *execLimit) roomLocked() bool { return l.limit == 0 || l.counted.n < l.limit }

// countLocked counts p against the limit until holdUntil.
func (l *execLimit) countLocked(p *limitedProbe, holdUntil time.Duration) {
	p.state, p.at = execCounted, int64(holdUntil)
	l.counted.push(p)
	l.signal.counted(l.counted.n)
	if l.pods != nil {
		l.podLocked(*p.pod).counted++
	}
}

func (l *execLimit) uncountLocked(p *limitedProbe) {
	l.counted.remove(p)
	if l.pods == nil {
		return
	}
	q := l.pods[*p.pod]
	if q == nil || q.counted <= 0 {
		panic("prober: execLimit: a pod's share went below zero")
	}
	q.counted--
	l.forgetLocked(*p.pod, q)
}

func (l *execLimit) podLocked(uid types.UID) *execPod {
	q := l.pods[uid]
	if q == nil {
		q = &execPod{}
		l.pods[uid] = q
	}
	return q
}

func (l *execLimit) forgetLocked(uid types.UID, q *execPod) {
	if q.counted == 0 && q.queue.n == 0 {
		delete(l.pods, uid)
	}
}

func (l *execLimit) dequeueLocked(p *limitedProbe) {
	q := l.pods[*p.pod]
	q.queue.remove(p)
	l.waiting--
	p.state = execIdle
	l.forgetLocked(*p.pod, q)
}

// grantLocked gives the free slots to the waiting runs, fairly (above).
func (l *execLimit) grantLocked() {
	for l.waiting > 0 && l.roomLocked() {
		var best *execPod
		var bestUID types.UID
		for uid, q := range l.pods {
			if h := q.queue.head; h != nil && (best == nil || q.counted < best.counted ||
				q.counted == best.counted && h.at < best.queue.head.at) {
				best, bestUID = q, uid
			}
		}
		p := best.queue.head
		best.queue.remove(p)
		l.waiting--
		l.countLocked(p, math.MaxInt64) // its hold starts when it wakes
		l.forgetLocked(bestUID, best)
		close(p.ready)
	}
}

// abandon: cache's worker stopped. A run of it that waits never starts.
func (l *execLimit) abandon(cache *runCache) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	p := cache.exec
	if p == nil {
		return
	}
	p.stopped = true
	if p.state == execWaiting {
		l.dequeueLocked(p)
		close(p.ready)
	}
}

// armLocked keeps the windows moving while runs wait.
func (l *execLimit) armLocked() {
	if l.timerArmed || l.waiting == 0 {
		return
	}
	l.timerArmed = true
	d := max(l.signal.window+execLimitWindow-l.now(), 0) // when the window is due
	if l.timer == nil {
		l.timer = time.AfterFunc(d, l.onTimer)
	} else {
		l.timer.Reset(d)
	}
}

func (l *execLimit) onTimer() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timerArmed = false
	l.tickLocked(l.now())
	l.armLocked()
}

// execLimitState is what the collector reports; limit 0 is none.
type execLimitState struct {
	limit, counted, running, waiting int
}

func (l *execLimit) state() execLimitState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return execLimitState{limit: l.limit, counted: l.counted.n, running: l.running, waiting: l.waiting}
}

// execLimitMetrics is what the limit reports as runs happen; tests swap in a
// recorder.
type execLimitMetrics interface {
	waited(d time.Duration) // an exec run was given a slot after waiting d
	cut(limit int)          // the limit was set or cut to limit
}
