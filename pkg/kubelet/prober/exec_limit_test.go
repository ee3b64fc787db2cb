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
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	remote "k8s.io/cri-client/pkg"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	execprobe "k8s.io/kubernetes/pkg/probe/exec"
)

type execLimitRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
	cuts  []int
}

func (r *execLimitRecorder) waited(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
}

func (r *execLimitRecorder) cut(limit int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cuts = append(r.cuts, limit)
}

func (r *execLimitRecorder) maxWait() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Max(append(r.waits, 0))
}

func (r *execLimitRecorder) cutCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.cuts)
}

var errTimedOut = fmt.Errorf("%w: test", remote.ErrCommandTimedOut)

// newFixedExecLimit is a limiter whose policy always answers n: the
// limiter's mechanics, apart from any policy.
func newFixedExecLimit(n int, rec execLimitMetrics) *execLimit {
	l := newExecLimit(1, rec)
	l.decide = func(int, int, execHistory, execWindow) execDecision { return execDecision{limit: n} }
	l.mu.Lock()
	l.setLimitLocked(n)
	l.mu.Unlock()
	return l
}

// startLog records when each named command started, in ms since epoch.
type startLog struct {
	epoch time.Time
	mu    sync.Mutex
	log   []string
}

// started is the log, sorted: runs that start at one instant may log in any order.
func (s *startLog) started() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(slices.Values(s.log))
}

func (s *startLog) cmd(name string, d time.Duration, stop <-chan struct{}) func() ([]byte, error) {
	return func() ([]byte, error) {
		s.mu.Lock()
		s.log = append(s.log, fmt.Sprintf("%s@%d", name, time.Since(s.epoch).Milliseconds()))
		s.mu.Unlock()
		if d < 0 { // hangs until stop
			<-stop
			return nil, nil
		}
		time.Sleep(d)
		return nil, nil
	}
}

// TestExecLimitFixed: a fixed limit's schedule of command starts, in a
// bubble. Each run arrives at its offset, from its pod, with a timeout of 1 s.
func TestExecLimitFixed(t *testing.T) {
	type run struct {
		name, pod string
		at        time.Duration
		took      time.Duration // < 0: hangs
	}
	ms := time.Millisecond
	for _, tc := range []struct {
		name    string
		limit   int
		runs    []run
		started []string
		waits   []time.Duration // in the order the runs got their slots
	}{{
		name:    "under the limit nothing waits",
		limit:   2,
		runs:    []run{{"a", "p", 0, 100 * ms}, {"b", "p", 10 * ms, 100 * ms}, {"c", "p", 120 * ms, 100 * ms}},
		started: []string{"a@0", "b@10", "c@120"},
		waits:   []time.Duration{0, 0, 0},
	}, {
		name:  "at the limit one pod's runs wait in order of arrival",
		limit: 2,
		runs: []run{{"a", "p", 0, 100 * ms}, {"b", "p", 0, 200 * ms}, {"c", "p", 10 * ms, 100 * ms},
			{"d", "p", 20 * ms, 100 * ms}},
		started: []string{"a@0", "b@0", "c@100", "d@200"},
		waits:   []time.Duration{0, 0, 90 * ms, 180 * ms},
	}, {
		name:  "a slot goes to the pod with the fewest runs counted, then to the oldest",
		limit: 2,
		runs: []run{{"busy1", "busy", 0, 100 * ms}, {"busy2", "busy", 0, 300 * ms}, {"busy3", "busy", 10 * ms, 100 * ms},
			{"busy4", "busy", 15 * ms, 100 * ms}, {"lone", "lone", 20 * ms, 100 * ms}},
		// At 100 ms busy holds one slot and lone none: lone goes first, though it came last.
		started: []string{"busy1@0", "busy2@0", "lone@100", "busy3@200", "busy4@300"},
		waits:   []time.Duration{0, 0, 80 * ms, 190 * ms, 285 * ms},
	}, {
		// The timer, armed when b began to wait, fires when each window is due
		// (every second from the first run): a's hold passes at 2 s.
		name:    "a run the runtime never returns stops counting after twice its timeout",
		limit:   1,
		runs:    []run{{"a", "p", 0, -1}, {"b", "p", 10 * ms, 100 * ms}, {"c", "p", 20 * ms, 100 * ms}},
		started: []string{"a@0", "b@2000", "c@2100"},
		waits:   []time.Duration{0, 1990 * ms, 2080 * ms},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &execLimitRecorder{}
				l := newFixedExecLimit(tc.limit, rec)
				log := &startLog{epoch: time.Now()}
				stop := make(chan struct{})
				var wg sync.WaitGroup
				for _, r := range tc.runs {
					wg.Go(func() {
						time.Sleep(r.at)
						if _, err := l.run(t.Context(), &runCache{}, uid(r.pod), time.Second, log.cmd(r.name, r.took, stop)); err != nil {
							t.Errorf("%s: %v", r.name, err)
						}
					})
					synctest.Wait() // arrivals at one instant keep the table's order
				}
				time.Sleep(10 * time.Second)
				close(stop)
				wg.Wait()
				if got := log.started(); !slices.Equal(got, slices.Sorted(slices.Values(tc.started))) {
					t.Errorf("commands started %v, want %v", got, tc.started)
				}
				if !slices.Equal(rec.waits, tc.waits) {
					t.Errorf("waits %v, want %v", rec.waits, tc.waits)
				}
				if st := l.state(); st != (execLimitState{limit: tc.limit}) {
					t.Errorf("after every run returned: %+v", st)
				}
			})
		})
	}
}

// TestExecLimitGrantsOnEveryMove: a raise decided when a run arrives, or by
// the timer while runs wait and none arrives or returns, grants at once.
func TestExecLimitGrantsOnEveryMove(t *testing.T) {
	for _, tc := range []struct {
		name   string
		arrive bool // c arrives at 1 s, as the window is due and the timer fires
		want   []string
	}{
		{name: "a run arrives", arrive: true, want: []string{"a@1000", "b@1000", "c@1010", "hung@0"}},
		{name: "the timer", want: []string{"a@1000", "b@1000", "hung@0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newFixedExecLimit(1, &execLimitRecorder{})
				var mu sync.Mutex
				limit := 1
				l.decide = func(int, int, execHistory, execWindow) execDecision {
					mu.Lock()
					defer mu.Unlock()
					return execDecision{limit: limit}
				}
				log := &startLog{epoch: time.Now()}
				stop := make(chan struct{})
				var wg sync.WaitGroup
				start := func(name string, d time.Duration) {
					wg.Go(func() {
						_, _ = l.run(t.Context(), &runCache{}, uid(name), time.Minute, log.cmd(name, d, stop))
					})
					synctest.Wait()
				}
				start("hung", -1)
				time.Sleep(600 * time.Millisecond) // the timer, armed by the first wait, moves the window when it is due, at 1 s
				start("a", 10*time.Millisecond)
				start("b", 10*time.Millisecond)
				time.Sleep(300 * time.Millisecond)
				mu.Lock()
				limit = 3
				mu.Unlock()
				time.Sleep(100 * time.Millisecond)
				if tc.arrive {
					start("c", 10*time.Millisecond)
				}
				time.Sleep(time.Second)
				if got := log.started(); !slices.Equal(got, tc.want) {
					t.Errorf("started %v, want %v", got, tc.want)
				}
				close(stop)
				wg.Wait()
			})
		})
	}
}

// TestExecLimitCancel: a run whose context ends while it waits returns the
// context's error and leaves the queue; the runs behind it keep their order.
func TestExecLimitCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newFixedExecLimit(1, &execLimitRecorder{})
		release := make(chan struct{})
		go func() {
			_, _ = l.run(t.Context(), &runCache{}, uid("a"), time.Minute, func() ([]byte, error) { <-release; return nil, nil })
		}()
		synctest.Wait()
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() {
			_, err := l.run(ctx, &runCache{}, uid("b"), time.Minute, func() ([]byte, error) { return nil, nil })
			errc <- err
		}()
		synctest.Wait()
		ran := make(chan struct{})
		go func() {
			_, _ = l.run(t.Context(), &runCache{}, uid("c"), time.Minute, func() ([]byte, error) { close(ran); return nil, nil })
		}()
		synctest.Wait()
		if st := l.state(); st.waiting != 2 {
			t.Fatalf("waiting %d, want 2", st.waiting)
		}
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled wait returned %v", err)
		}
		if st := l.state(); st.waiting != 1 || st.counted != 1 {
			t.Errorf("after the cancel: %+v, want 1 waiting, 1 counted", st)
		}
		close(release)
		<-ran
		synctest.Wait()
		if st := l.state(); st != (execLimitState{limit: 1}) {
			t.Errorf("at the end: %+v", st)
		}
	})
}

// TestExecLimitCancelAsGranted: a run whose context ends as it is given a
// slot passes the slot on, or runs; the run behind it gets one either way.
// Both come up: select picks at random between ready channels.
func TestExecLimitCancelAsGranted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for range 50 {
			l := newFixedExecLimit(1, &execLimitRecorder{})
			first := &runCache{}
			p, start, err := l.acquire(t.Context(), first, uid("a"), time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			second, third := make(chan error, 1), make(chan error, 1)
			go func() {
				_, err := l.run(ctx, &runCache{}, uid("b"), time.Minute, func() ([]byte, error) { return nil, nil })
				second <- err
			}()
			synctest.Wait()
			go func() {
				_, err := l.run(t.Context(), &runCache{}, uid("c"), time.Minute, func() ([]byte, error) { return nil, nil })
				third <- err
			}()
			synctest.Wait()
			l.mu.Lock()
			l.running-- // done's bookkeeping, with the grant and the cancel under one lock
			l.uncountLocked(p)
			p.state = execIdle
			l.grantLocked() // the second is given the slot ...
			cancel()        // ... as its context ends
			l.mu.Unlock()
			_ = start
			if err := <-second; err != nil && !errors.Is(err, context.Canceled) {
				t.Fatal(err)
			}
			if err := <-third; err != nil {
				t.Fatal(err)
			}
			if st := l.state(); st != (execLimitState{limit: 1}) {
				t.Fatalf("at the end: %+v", st)
			}
		}
	})
}

// TestExecLimitAbandon: a run that waits when its worker stops never starts;
// a stopped probe's later run that would wait does not start either, and one
// with room does, as upstream's would.
func TestExecLimitAbandon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newFixedExecLimit(1, &execLimitRecorder{})
		release := make(chan struct{})
		go func() {
			_, _ = l.run(t.Context(), &runCache{}, uid("a"), time.Minute, func() ([]byte, error) { <-release; return nil, nil })
		}()
		synctest.Wait()
		stopped := &runCache{}
		started := false
		errc := make(chan error, 1)
		cmd := func() ([]byte, error) { started = true; return nil, nil }
		go func() {
			_, err := l.run(t.Context(), stopped, uid("b"), time.Minute, cmd)
			errc <- err
		}()
		synctest.Wait()
		l.abandon(stopped)
		if err := <-errc; !errors.Is(err, errExecStopped) {
			t.Errorf("abandoned wait returned %v", err)
		}
		if _, err := l.run(t.Context(), stopped, uid("b"), time.Minute, cmd); !errors.Is(err, errExecStopped) {
			t.Errorf("a stopped probe's run that would wait returned %v", err)
		}
		if st := l.state(); st.waiting != 0 || st.counted != 1 {
			t.Errorf("after the stop: %+v", st)
		}
		close(release)
		synctest.Wait()
		if started {
			t.Error("a stopped probe's run started while it would have waited")
		}
		if _, err := l.run(t.Context(), stopped, uid("b"), time.Minute, cmd); err != nil || !started {
			t.Errorf("with room, a stopped probe's run: %v, started %v", err, started)
		}
		l.abandon(&runCache{}) // a worker with no exec run yet
	})
}

// TestExecLimitPanickingRunner: a runner that panics frees its slot and
// teaches its probe's baseline nothing.
func TestExecLimitPanickingRunner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newFixedExecLimit(1, &execLimitRecorder{})
		cache := &runCache{}
		func() {
			defer func() {
				if recover() == nil {
					t.Error("the runner's panic was lost")
				}
			}()
			_, _ = l.run(t.Context(), cache, uid("a"), time.Second, func() ([]byte, error) {
				time.Sleep(10 * time.Millisecond)
				panic("runner")
			})
		}()
		if st := l.state(); st != (execLimitState{limit: 1}) {
			t.Errorf("after the panic: %+v", st)
		}
		if b := cache.exec.baseline; b != 0 {
			t.Errorf("a panicking run taught the baseline %v", b)
		}
	})
}

func TestExecLimitSecondRunOfAProbePanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newFixedExecLimit(2, &execLimitRecorder{})
		cache := &runCache{}
		if _, _, err := l.acquire(t.Context(), cache, uid("a"), time.Second); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "second run") {
				t.Errorf("a second run of one probe: %v", r)
			}
		}()
		_, _, _ = l.acquire(t.Context(), cache, uid("a"), time.Second)
	})
}

func TestExecLimitFloorBelowOnePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a floor of 0 was taken")
		}
	}()
	newExecLimit(0, &execLimitRecorder{})
}

// TestExecLimitBaseline: a probe's baseline follows its command down at
// once-ish and up slowly, not up while the runtime was lately overloaded,
// and learns nothing from timeouts.
func TestExecLimitBaseline(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name       string
		took       []time.Duration // < 0: timed out at the timeout
		overloaded bool
		want       time.Duration
	}{
		{name: "the first run back sets it", took: []time.Duration{200 * ms}, want: 200 * ms},
		{name: "an eighth of the way each run", took: []time.Duration{200 * ms, 600 * ms}, want: 250 * ms},
		{name: "down by an eighth too", took: []time.Duration{200 * ms, 40 * ms}, want: 180 * ms},
		{name: "timeouts teach nothing", took: []time.Duration{200 * ms, -1, -1}, want: 200 * ms},
		{name: "not up after an overload verdict", took: []time.Duration{200 * ms, 600 * ms}, overloaded: true, want: 200 * ms},
		{name: "down after one", took: []time.Duration{200 * ms, 40 * ms}, overloaded: true, want: 180 * ms},
		{name: "capped at the timeout", took: []time.Duration{200 * ms, 5 * time.Second}, want: 300 * ms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newExecLimit(1, &execLimitRecorder{})
				l.decide = func(int, int, execHistory, execWindow) execDecision { return execDecision{overloaded: tc.overloaded} }
				time.Sleep(execLimitWindow)
				cache := &runCache{}
				for _, d := range tc.took {
					_, _ = l.run(t.Context(), cache, uid("a"), time.Second, func() ([]byte, error) {
						if d < 0 {
							time.Sleep(time.Second)
							return nil, errTimedOut
						}
						time.Sleep(d)
						return nil, nil
					})
				}
				if got := cache.exec.baseline; got != tc.want {
					t.Errorf("baseline %v, want %v", got, tc.want)
				}
			})
		})
	}
}

// runnerFunc is a CommandRunner.
type runnerFunc func(ctx context.Context, id kubecontainer.ContainerID, cmd []string, timeout time.Duration) ([]byte, error)

func (f runnerFunc) RunInContainer(ctx context.Context, id kubecontainer.ContainerID, cmd []string, timeout time.Duration) ([]byte, error) {
	return f(ctx, id, cmd, timeout)
}

// TestExecLimitRemovedPodsRunsNeverStart: through the manager, RemovePod
// while a pod's exec runs wait for the limit: none of them starts after
// RemovePod returns, as none would after upstream's workers took their stop;
// the runs in flight end as upstream's do.
func TestExecLimitRemovedPodsRunsNeverStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		l := newFixedExecLimit(2, &execLimitRecorder{})
		h.m.prober.execLimit = l
		h.m.scheduler.execLimit.Store(l)
		h.m.prober.exec = execprobe.New()
		var mu sync.Mutex
		var started []time.Duration
		h.m.prober.runner = runnerFunc(func(context.Context, kubecontainer.ContainerID, []string, time.Duration) ([]byte, error) {
			mu.Lock()
			started = append(started, time.Since(h.probes.t0))
			mu.Unlock()
			time.Sleep(500 * time.Millisecond)
			return nil, nil
		})
		afterStart(h, time.Second)
		pod := h.addPod("busy", containers(40, func(c *v1.Container, _ int) { c.ReadinessProbe = execProbe(1) })...)
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		if st := l.state(); st.counted != 2 || st.waiting != 38 {
			t.Fatalf("before RemovePod: %+v, want 2 counted and 38 waiting", st)
		}
		h.m.RemovePod(pod)
		removed := time.Since(h.probes.t0)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, at := range started {
			if at >= removed {
				t.Errorf("a run started at %v, after RemovePod returned at %v", at, removed)
			}
		}
		if st := l.state(); st != (execLimitState{limit: 2}) {
			t.Errorf("after RemovePod: %+v", st)
		}
		if n := h.m.workerCount(); n != 0 {
			t.Errorf("%d workers left", n)
		}
	})
}

// uid is a pod UID, as the prober passes it: its pod's.
func uid(s string) *types.UID {
	u := types.UID(s)
	return &u
}

// TestLimitedProbeSize: an exec probe's place in the limit stays in the
// 64-byte size class, the memory per probe's budget.
func TestLimitedProbeSize(t *testing.T) {
	if n := unsafe.Sizeof(limitedProbe{}); n > 64 {
		t.Errorf("limitedProbe is %d bytes: each exec probe's allocation leaves the 64-byte size class", n)
	}
}
