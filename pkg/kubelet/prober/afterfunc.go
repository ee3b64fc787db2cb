//go:build !probewheel_export

// Module-only: the bench's AfterFunc arm (bench/impl.go), measured beside the product; never exported.

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

// The AfterFunc design is the one a reviewer proposes first: no wheel, loop
// or executors. Each worker arms a runtime timer
// (time.AfterFunc) for its next run, the runtime's per-P timer heaps do the
// scheduling, and a semaphore bounds the runs in flight. Between runs a
// worker holds a timer and no goroutine; a run's goroutine is the timer's
// callback, which exists from the moment the run is due until it ends.
//
// It is built from the same worker and doProbe, and keeps upstream's timing
// where that is cheap: the ticker's grid with its one pending tick
// (probeTicker), a manual trigger that restarts the period, a stop taken
// between runs, the random first-run sleep within a period of the manager's
// start. What it leaves out is what probewheel's scheduler adds on top:
// shared wake-ups (every run is a wake-up of its own), parked executors
// (every run is a goroutine of its own), and a stop
// or trigger reaching a timer through the manager's calls, not a channel the
// worker waits on (poke).
//
// It exists to be measured (make bench, docs/design.md "Alternatives"), so
// it is a module-only file: the kubelet never builds it.

import (
	"context"
	"math/rand"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

// afterFuncManager is the gate-off manager with its workers driven by
// timers: the Manager methods that start, stop or trigger workers are its
// own, the rest (UpdatePodStatus's readiness logic, the results managers,
// removeWorker) is the embedded manager's.
type afterFuncManager struct {
	*manager
	epoch time.Time
	// sem holds one token per run in flight.
	sem chan struct{}

	mu   sync.Mutex
	runs map[*worker]*afterFuncRun // the started workers that have not exited
}

// afterFuncRun is one worker's timer and ticker, guarded by the manager's mu.
type afterFuncRun struct {
	w      *worker
	timer  *time.Timer
	ticker probeTicker // offsets from epoch
	first  bool        // the first run has not started yet
	// running: a callback is between its first check and its last; a
	// callback that finds it set leaves again for that one to see.
	running, again bool
}

// NewAfterFuncManager turns a Manager that NewManager built with the
// ProbeTimerWheel gate off into the AfterFunc design, with slots runs in
// flight at most (slots <= 0: afterFuncSlots).
func NewAfterFuncManager(m Manager, slots int) Manager {
	pm := m.(*manager)
	if pm.scheduler != nil {
		panic("prober: NewAfterFuncManager needs a manager built with the ProbeTimerWheel gate off")
	}
	if slots <= 0 {
		slots = afterFuncSlots
	}
	return &afterFuncManager{manager: pm, epoch: time.Now(), sem: make(chan struct{}, slots), runs: map[*worker]*afterFuncRun{}}
}

// afterFuncSlots is the arm's default bound, the semaphore a reviewer adds:
// room for a tenth of the probes of a node with 10,000 pods and two probes
// each to hang at once.
const afterFuncSlots = 2048

func (a *afterFuncManager) now() time.Duration { return time.Since(a.epoch) }

// AddPod adds the workers AddPod adds, skipping the rest of a container
// whose probe worker exists as upstream's does, and arms their timers.
func (a *afterFuncManager) AddPod(ctx context.Context, pod *v1.Pod) {
	a.workerLock.Lock()
	defer a.workerLock.Unlock()
	ctx = context.WithoutCancel(ctx)
	key := probeKey{podUID: pod.UID}
containers:
	for _, c := range append(pod.Spec.Containers, getRestartableInitContainers(pod)...) {
		key.containerName = c.Name
		for _, pt := range [...]probeType{startup, readiness, liveness} {
			if probeOf(&c, pt) == nil {
				continue
			}
			key.probeType = pt
			if _, ok := a.workers[key]; ok {
				continue containers
			}
			w := newWorker(a.manager, pt, pod, c)
			a.workers[key] = w
			a.start(ctx, w)
		}
	}
}

func probeOf(c *v1.Container, pt probeType) *v1.Probe {
	switch pt {
	case startup:
		return c.StartupProbe
	case readiness:
		return c.ReadinessProbe
	default:
		return c.LivenessProbe
	}
}

func (a *afterFuncManager) start(ctx context.Context, w *worker) {
	w.ctx = ctx
	period := probePeriod(ctx, w)
	var delay time.Duration
	if period > time.Since(a.manager.start) {
		delay = time.Duration(rand.Float64() * float64(period))
	}
	r := &afterFuncRun{w: w, first: true, ticker: probeTicker{period: period, due: a.now() + delay}}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.runs[w] = r
	r.timer = time.AfterFunc(delay, func() { a.fire(r) })
}

// fire is every timer callback. It runs the worker while a run is due and
// then arms the timer for the next grid point. Upstream's order: the first
// run comes first (a stop or trigger before it is seen after it); then a
// stop, a trigger (which restarts the grid) or a pending tick.
func (a *afterFuncManager) fire(r *afterFuncRun) {
	a.mu.Lock()
	if r.running {
		r.again = true
		a.mu.Unlock()
		return
	}
	r.running = true
	a.mu.Unlock()
	w := r.w
	for {
		now := a.now()
		switch {
		case r.first:
			if now < r.ticker.due { // a poke during the first-run sleep
				if a.park(r, r.ticker.due-now) {
					return
				}
				continue
			}
			r.ticker.due += r.ticker.period // upstream creates its ticker after the sleep
			r.first = false
		case len(w.stopCh) > 0:
			<-w.stopCh
			a.exit(r)
			return
		case takeTrigger(w):
			r.ticker.reset(now)
		case r.ticker.pending(now):
			r.ticker.consume(now)
		default: // a poke that found nothing to do
			if a.park(r, r.ticker.due-now) {
				return
			}
			continue
		}
		a.sem <- struct{}{}
		keepGoing := w.doProbe(w.ctx)
		<-a.sem
		if !keepGoing {
			a.exit(r)
			return
		}
	}
}

func takeTrigger(w *worker) bool {
	select {
	case <-w.manualTriggerCh:
		return true
	default:
		return false
	}
}

// park arms the timer and ends the callback, unless a poke came while it
// ran or a stop or trigger waits (after the first run): then it reports
// false and the callback looks again. The channels are read under mu
// because a poke's Reset(0) that has not fired yet would be overwritten by
// this Reset: a trigger sent before the poke took mu is seen here, and a
// poke that takes mu after this resets the timer after this does.
func (a *afterFuncManager) park(r *afterFuncRun, d time.Duration) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r.again || (!r.first && len(r.w.stopCh)+len(r.w.manualTriggerCh) > 0) {
		r.again = false
		return false
	}
	r.running = false
	r.timer.Reset(max(d, 0))
	return true
}

func (a *afterFuncManager) exit(r *afterFuncRun) {
	r.timer.Stop()
	a.mu.Lock()
	delete(a.runs, r.w)
	a.mu.Unlock()
	r.w.exit()
}

// poke fires the worker's timer now if a stop or trigger waits in its
// channels: nothing else would look at them before its next run.
func (a *afterFuncManager) poke(w *worker) {
	if len(w.stopCh)+len(w.manualTriggerCh) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := a.runs[w]; r != nil {
		r.timer.Reset(0)
	}
}

// pokePod pokes the workers of the pod's containers of the given types.
func (a *afterFuncManager) pokePod(pod *v1.Pod, pts ...probeType) {
	for _, c := range append(pod.Spec.Containers, getRestartableInitContainers(pod)...) {
		for _, pt := range pts {
			if w, ok := a.getWorker(pod.UID, c.Name, pt); ok {
				a.poke(w)
			}
		}
	}
}

func (a *afterFuncManager) StopLivenessAndStartup(pod *v1.Pod) {
	a.manager.StopLivenessAndStartup(pod)
	a.pokePod(pod, liveness, startup)
}

func (a *afterFuncManager) RemovePod(pod *v1.Pod) {
	a.manager.RemovePod(pod)
	a.pokePod(pod, readiness, liveness, startup)
}

// CleanupPods pokes every worker under the read lock, as AddPod takes mu
// under workerLock: a worker that exits takes the two one after the other.
func (a *afterFuncManager) CleanupPods(desiredPods map[types.UID]sets.Empty) {
	a.manager.CleanupPods(desiredPods)
	a.workerLock.RLock()
	defer a.workerLock.RUnlock()
	for _, w := range a.workers {
		a.poke(w)
	}
}

func (a *afterFuncManager) UpdatePodStatus(ctx context.Context, pod *v1.Pod, podStatus *v1.PodStatus) {
	a.manager.UpdatePodStatus(ctx, pod, podStatus)
	a.pokePod(pod, readiness)
}
