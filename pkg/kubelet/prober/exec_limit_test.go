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
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	remote "k8s.io/cri-client/pkg"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
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

var errTimedOut = fmt.Errorf("%w: test", remote.ErrCommandTimedOut)

// durationRunner's commands take what their first word says ("150ms"), or
// never return ("hang") until stop is closed; it logs when each one starts.
type durationRunner struct {
	kubecontainer.CommandRunner
	epoch time.Time
	stop  chan struct{}

	mu      sync.Mutex
	started []string // "name@ms"
}

func (r *durationRunner) RunInContainer(_ context.Context, id kubecontainer.ContainerID, cmd []string, _ time.Duration) ([]byte, error) {
	r.mu.Lock()
	r.started = append(r.started, fmt.Sprintf("%s@%d", id.ID, time.Since(r.epoch).Milliseconds()))
	r.mu.Unlock()
	if cmd[0] == "hang" {
		<-r.stop
		return nil, nil
	}
	d, err := time.ParseDuration(cmd[0])
	if err != nil {
		panic(err)
	}
	time.Sleep(d)
	return nil, nil
}

// TestExecLimitFixed: a fixed limit's schedule of command starts, in a
// bubble. Each run arrives at its offset, with a timeout of 1 s; the log says
// when its command started.
func TestExecLimitFixed(t *testing.T) {
	type run struct {
		name string
		at   time.Duration
		cmd  string // a duration, or hang
	}
	for _, tc := range []struct {
		name    string
		limit   int
		runs    []run
		started []string
		waits   []time.Duration // in the order the runs got their slots
	}{{
		name:    "under the limit nothing waits",
		limit:   2,
		runs:    []run{{"a", 0, "100ms"}, {"b", 10 * time.Millisecond, "100ms"}, {"c", 120 * time.Millisecond, "100ms"}},
		started: []string{"a@0", "b@10", "c@120"},
		waits:   []time.Duration{0, 0, 0},
	}, {
		name:  "at the limit runs wait in order of arrival",
		limit: 2,
		runs: []run{{"a", 0, "100ms"}, {"b", 0, "200ms"}, {"c", 10 * time.Millisecond, "100ms"},
			{"d", 20 * time.Millisecond, "100ms"}},
		started: []string{"a@0", "b@0", "c@100", "d@200"},
		waits:   []time.Duration{0, 0, 90 * time.Millisecond, 180 * time.Millisecond},
	}, {
		name:    "a run the runtime never returns stops counting after twice its timeout",
		limit:   1,
		runs:    []run{{"a", 0, "hang"}, {"b", 10 * time.Millisecond, "100ms"}, {"c", 20 * time.Millisecond, "100ms"}},
		started: []string{"a@0", "b@2000", "c@2100"},
		waits:   []time.Duration{0, 1990 * time.Millisecond, 2080 * time.Millisecond},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &execLimitRecorder{}
				l := newExecLimit(tc.limit, rec)
				r := &durationRunner{epoch: time.Now(), stop: make(chan struct{})}
				lr := limitedRunner{CommandRunner: r, limit: l}
				var wg sync.WaitGroup
				for _, run := range tc.runs {
					wg.Go(func() {
						time.Sleep(run.at)
						if _, err := lr.RunInContainer(t.Context(), kubecontainer.ContainerID{ID: run.name}, []string{run.cmd}, time.Second); err != nil {
							t.Errorf("%s: %v", run.name, err)
						}
					})
					synctest.Wait() // arrivals at one instant keep the table's order
				}
				time.Sleep(10 * time.Second)
				close(r.stop)
				wg.Wait()
				if !slices.Equal(r.started, tc.started) {
					t.Errorf("commands started %v, want %v", r.started, tc.started)
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

// TestExecLimitMoves: the adaptive limit's rules, one window at a time. Each
// step is the runs that end within a second (ending in that order), then
// what the limit is when the next second's first run (one that says
// nothing) ends.
func TestExecLimitMoves(t *testing.T) {
	type end struct {
		probe    string
		took     time.Duration // timeout 1 s
		timedOut bool
	}
	fast := func(p string) end { return end{p, 200 * time.Millisecond, false} }
	slow := func(p string) end { return end{p, 800 * time.Millisecond, false} }
	out := func(p string) end { return end{p, time.Second, true} }
	type step struct {
		counted int // runs in flight as the second ends
		waiting bool
		ends    []end
		limit   int
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{{
		name:  "a runtime that keeps up: no bound",
		steps: []step{{40, false, []end{fast("a"), fast("b"), slow("c"), fast("d")}, 0}},
	}, {
		name:  "most runs slow, none timed out: the runtime keeps up, no bound",
		steps: []step{{40, false, []end{slow("a"), slow("b"), slow("c"), fast("d")}, 0}},
	}, {
		name:  "most runs slow, two timed out: no bound",
		steps: []step{{40, false, []end{slow("a"), out("b"), out("c"), fast("d")}, 0}},
	}, {
		name:  "most runs slow, three timed out: cut to three quarters of the runs in flight",
		steps: []step{{40, false, []end{out("a"), out("b"), out("c"), fast("d"), fast("e")}, 30}},
	}, {
		name:  "three timed out, half slow: no sign",
		steps: []step{{40, false, []end{out("a"), out("b"), out("c"), fast("d"), fast("e"), fast("f")}, 0}},
	}, {
		name:  "a first sign with two floors or fewer in flight: no bound, the runs timing out are commands",
		steps: []step{{4, false, []end{out("a"), out("b"), out("c"), fast("d"), fast("e")}, 0}},
	}, {
		name:  "a first sign with more than two floors in flight: cut",
		steps: []step{{5, false, []end{out("a"), out("b"), out("c"), fast("d"), fast("e")}, 3}},
	}, {
		name:  "too few runs say nothing",
		steps: []step{{40, false, []end{slow("a"), out("b")}, 0}},
	}, {
		name: "for a minute after a sign, slowness alone cuts",
		steps: []step{{40, false, []end{out("a"), out("b"), out("c")}, 30},
			{30, false, []end{fast("a")}, 30},
			{30, false, []end{slow("a"), slow("b"), slow("c")}, 22}},
	}, {
		name: "a minute after the sign, slowness alone does not",
		steps: func() []step {
			steps := []step{{40, false, []end{out("a"), out("b"), out("c")}, 30}}
			// Runs wait and come back in time: it rises, every other second, since
			// the runs that end in the second after a raise started before it.
			for i := 1; i < 60; i++ {
				steps = append(steps, step{30, true, []end{fast("a"), fast("b"), fast("c")}, 30 + i/2})
			}
			// Slow, a minute after the sign: neither a cut nor a raise.
			return append(steps, step{30, true, []end{slow("a"), slow("b"), slow("c")}, 59})
		}(),
	}, {
		name: "the cut never goes below the floor",
		steps: []step{{40, false, []end{out("a"), out("b"), out("c")}, 30},
			{2, false, []end{fast("a")}, 30},
			{2, false, []end{slow("a"), slow("b"), slow("c")}, 2}},
	}, {
		name: "the runs that end in the second after a cut do not cut again",
		steps: []step{{40, false, []end{out("a"), out("b"), out("c")}, 30},
			{30, false, []end{slow("a"), slow("b"), slow("c")}, 30},
			{30, false, []end{slow("a"), slow("b"), slow("c")}, 22}},
	}, {
		name: "a hung probe's timeouts after its first say nothing",
		steps: []step{
			{10, false, []end{out("h1"), out("h2"), fast("a"), fast("b"), fast("c")}, 0},
			{10, false, []end{out("h1"), out("h2"), out("h3"), slow("a"), slow("b"), slow("c")}, 0},
			{10, false, []end{out("h1"), out("h2"), out("h3"), slow("a"), slow("b"), slow("c"), slow("d")}, 0},
		},
	}, {
		name: "every run timing out, repeated timeouts too, with none back in time",
		steps: []step{
			{40, false, []end{out("a"), out("b"), out("c"), fast("d"), fast("e"), fast("f")}, 0},
			{40, false, []end{out("a"), out("b"), out("c")}, 30},
		},
	}, {
		name: "repeated timeouts with none back in time, but most runs back late: no storm",
		steps: []step{
			{40, false, []end{out("a"), out("b"), out("c"), fast("d"), fast("e"), fast("f")}, 0},
			{40, false, []end{out("a"), out("b"), out("c"), slow("d"), slow("e"), slow("f"), slow("g")}, 0},
		},
	}, {
		name: "a probe that succeeds again is no longer hung",
		steps: []step{
			{10, false, []end{out("a"), fast("b"), fast("c")}, 0},
			{10, false, []end{fast("a"), fast("b"), fast("c")}, 0},
			{10, false, []end{out("a"), out("b"), out("c")}, 7},
		},
	}, {
		name:  "runs that outlast their timeout without timing out say nothing",
		steps: []step{{40, false, []end{{"a", 5 * time.Second, false}, {"b", 5 * time.Second, false}, {"c", 5 * time.Second, false}, fast("d")}, 0}},
	}, {
		name: "while runs wait it rises by one once the runs started since the last move come back in time",
		steps: []step{{40, false, []end{out("a"), out("b"), out("c")}, 30},
			{30, true, []end{fast("a"), fast("b"), fast("c")}, 30}, // started before the cut
			{30, true, []end{fast("a"), fast("b"), fast("c")}, 31},
			{31, true, []end{fast("a"), fast("b"), fast("c")}, 31}, // started before the raise
			{31, true, []end{fast("a"), fast("b")}, 31},            // too few to say
			{31, true, []end{fast("a"), fast("b"), fast("c")}, 32},
			{32, true, []end{fast("a"), fast("b"), fast("c")}, 32},
			{32, true, []end{slow("a"), slow("b"), slow("c"), fast("d")}, 24}, // slow, within a minute of the sign
			{20, false, []end{fast("a"), fast("b"), fast("c")}, 24}},          // nothing waits
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newExecLimit(0, &execLimitRecorder{})
				l.floor = 2
				for i, st := range tc.steps {
					l.mu.Lock()
					for _, e := range st.ends {
						now := time.Now()
						l.adaptLocked(now, kubecontainer.ContainerID{ID: e.probe}, []string{"check"}, now.Add(-e.took), time.Second, e.timedOut)
					}
					l.counted, l.peak = st.counted, st.counted
					if st.waiting {
						l.waiting.PushBack(&execWaiter{ready: make(chan struct{})})
					}
					l.mu.Unlock()
					time.Sleep(execLimitWindow)
					l.mu.Lock()
					// A run that says nothing (past twice its timeout) moves the window.
					now := time.Now()
					l.adaptLocked(now, kubecontainer.ContainerID{ID: "next"}, []string{"check"}, now.Add(-3*time.Second), time.Second, false)
					got := l.limit
					l.waiting.Init()
					l.counted = 0
					l.mu.Unlock()
					if got != st.limit {
						t.Errorf("after second %d: limit %d, want %d", i, got, st.limit)
					}
				}
			})
		})
	}
}

// TestExecLimitLifts: a limit no run waited for and nothing cut for a minute
// is lifted.
func TestExecLimitLifts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newExecLimit(0, &execLimitRecorder{})
		l.floor = 2
		// tick ends five runs of five probes at once, of the given length
		// and result: more than two floors in flight, as a first cut needs.
		tick := func(took time.Duration, result error) {
			var wg sync.WaitGroup
			for i := range 5 {
				wg.Go(func() {
					s, err := l.acquire(t.Context(), time.Second)
					if err != nil {
						t.Error(err)
						return
					}
					time.Sleep(took)
					s.done(kubecontainer.ContainerID{ID: fmt.Sprint(i)}, []string{"check"}, result)
				})
			}
			wg.Wait()
		}
		one := func() { // one run: nothing waits
			s, err := l.acquire(t.Context(), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			s.done(kubecontainer.ContainerID{ID: "a"}, []string{"check"}, nil)
		}
		tick(0, nil) // the first window
		time.Sleep(time.Second)
		tick(time.Second, errTimedOut)
		time.Sleep(time.Second)
		one()
		if st := l.state(); st.limit != 2 {
			t.Fatalf("after a second of timeouts: %+v, want limit 2", st)
		}
		for range 58 {
			time.Sleep(time.Second)
			one()
		}
		if st := l.state(); st.limit != 2 {
			t.Fatalf("58 s after the cut: %+v, want limit 2", st)
		}
		time.Sleep(2 * time.Second)
		one()
		if st := l.state(); st.limit != 0 {
			t.Errorf("a minute after the cut, no run having waited: %+v, want no limit", st)
		}
	})
}

// modelRuntime is a container runtime as the storm measured kind's
// containerd: an exec takes base plus cost times the execs in flight over
// the cores, and one that would take longer than its timeout returns
// ErrCommandTimedOut at its timeout. A "hang" command always times out.
type modelRuntime struct {
	kubecontainer.CommandRunner
	base, cost time.Duration
	cores      int

	mu             sync.Mutex
	inFlight       int
	timeouts       map[string]int // by container
	slow, finished int            // runs that met their timeout after 3/4 of it; all runs
}

func (m *modelRuntime) RunInContainer(_ context.Context, id kubecontainer.ContainerID, cmd []string, timeout time.Duration) ([]byte, error) {
	m.mu.Lock()
	m.inFlight++
	d := m.base + m.cost*time.Duration(m.inFlight)/time.Duration(m.cores)
	m.mu.Unlock()
	var err error
	if cmd[0] == "hang" || d > timeout {
		d, err = timeout, errTimedOut
	}
	time.Sleep(d)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inFlight--
	m.finished++
	if err != nil {
		m.timeouts[id.ID]++
	} else if d > timeout*3/4 {
		m.slow++
	}
	return nil, err
}

// TestExecLimitStorm: probes every second against the model runtime, their
// first runs spread over the first second, each skipping the ticks its run
// outlasts (as upstream's ticker drops them), for two minutes, with the
// adaptive limit and with none. While the runtime keeps up the limit never
// binds, at its edge too, where most runs take over three quarters of their
// timeout and none times out; past its capacity it cuts the timeouts of healthy probes at least
// five-fold; hung probes neither bind it nor keep healthy probes waiting.
func TestExecLimitStorm(t *testing.T) {
	for _, tc := range []struct {
		name         string
		probes, hung int
		base, cost   time.Duration // the model's; 0: the storm's kind node (176 ms, 35 ms)
		keepsUp      bool
		edge         bool // most runs of upstream's arm take over 3/4 of their timeout
	}{
		{name: "keeps up", probes: 20, keepsUp: true},
		{name: "keeps up, a tenth hung", probes: 20, hung: 2, keepsUp: true},
		{name: "at the edge: most runs slow, none timing out", probes: 45, keepsUp: true, edge: true},
		{name: "past capacity", probes: 80},
		{name: "past capacity, a tenth hung", probes: 80, hung: 8},
		// kind-storm-20261129-095500's calibration: 248 ms alone, 380 more per exec in
		// flight on two cores, about five execs a second at any concurrency.
		{name: "a slower runtime past capacity", probes: 12, base: 60 * time.Millisecond, cost: 380 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type arm struct {
				timeouts, runs int
				slow, finished int
				rec            *execLimitRecorder
			}
			storm := func(limited bool) (a arm) {
				synctest.Test(t, func(t *testing.T) {
					m := &modelRuntime{base: cmp.Or(tc.base, 176*time.Millisecond), cost: cmp.Or(tc.cost, 35*time.Millisecond), cores: 2, timeouts: map[string]int{}}
					var runner kubecontainer.CommandRunner = m
					a.rec = &execLimitRecorder{}
					if limited {
						l := newExecLimit(0, a.rec)
						l.floor = execLimitFloorPerCPU * m.cores
						runner = limitedRunner{CommandRunner: m, limit: l}
					}
					var mu sync.Mutex
					var wg sync.WaitGroup
					epoch := time.Now()
					for i := range tc.probes {
						name, cmd := fmt.Sprint("p", i), "check"
						if i < tc.hung {
							cmd = "hang"
						}
						wg.Go(func() {
							next := time.Duration(i) * time.Second / time.Duration(tc.probes)
							for next < 2*time.Minute {
								time.Sleep(next - time.Since(epoch))
								_, _ = runner.RunInContainer(context.Background(), kubecontainer.ContainerID{ID: name}, []string{cmd}, time.Second)
								if cmd == "check" {
									mu.Lock()
									a.runs++
									mu.Unlock()
								}
								for next <= time.Since(epoch) {
									next += time.Second
								}
							}
						})
					}
					wg.Wait()
					for i := tc.hung; i < tc.probes; i++ {
						a.timeouts += m.timeouts[fmt.Sprint("p", i)]
					}
					a.slow, a.finished = m.slow, m.finished
				})
				return a
			}
			upstream, limited := storm(false), storm(true)
			t.Logf("healthy runs %d / %d, timeouts %d / %d, slow %d / %d (upstream / limited), cuts %v, longest wait %v",
				upstream.runs, limited.runs, upstream.timeouts, limited.timeouts, upstream.slow, limited.slow, limited.rec.cuts, limited.rec.maxWait())
			if tc.edge && (upstream.timeouts > 0 || 2*upstream.slow <= upstream.finished) {
				t.Fatalf("not the edge: upstream's %d runs had %d timeouts and %d slow", upstream.finished, upstream.timeouts, upstream.slow)
			}
			if tc.keepsUp {
				if len(limited.rec.cuts) > 0 || limited.rec.maxWait() > 0 || limited.runs != upstream.runs || limited.timeouts != upstream.timeouts {
					t.Errorf("the runtime keeps up, but the limit changed something")
				}
				return
			}
			if upstream.timeouts == 0 {
				t.Fatalf("the model runtime kept up with %d probes: no storm", tc.probes)
			}
			if 5*limited.timeouts > upstream.timeouts {
				t.Errorf("timeouts of healthy probes: %d with the limit, %d without: want at least 5x fewer", limited.timeouts, upstream.timeouts)
			}
			if limited.runs-limited.timeouts <= upstream.runs-upstream.timeouts {
				t.Errorf("healthy runs that succeeded: %d with the limit, %d without", limited.runs-limited.timeouts, upstream.runs-upstream.timeouts)
			}
		})
	}
}

// TestExecLimitCancel: a run whose context ends while it waits returns the
// context's error and leaves the queue; the runs behind it keep their order.
func TestExecLimitCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newExecLimit(1, &execLimitRecorder{})
		first, err := l.acquire(t.Context(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() {
			_, err := l.acquire(ctx, time.Second)
			errc <- err
		}()
		synctest.Wait()
		got := make(chan *execSlot, 1)
		go func() {
			s, _ := l.acquire(t.Context(), time.Second)
			got <- s
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
		id := kubecontainer.ContainerID{ID: "a"}
		first.done(id, nil, nil)
		(<-got).done(id, nil, nil)
		if st := l.state(); st != (execLimitState{limit: 1}) {
			t.Errorf("at the end: %+v", st)
		}
	})
}

// TestExecLimitCancelAsGranted: a run whose context ends as it is given a
// slot either runs or passes the slot on; the run behind it gets one either
// way. Both cases come up: select picks at random between ready channels.
func TestExecLimitCancelAsGranted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for range 50 {
			l := newExecLimit(1, &execLimitRecorder{})
			first, err := l.acquire(t.Context(), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			second := make(chan *execSlot, 1)
			go func() {
				s, _ := l.acquire(ctx, time.Second)
				second <- s // nil if it gave the slot up
			}()
			synctest.Wait()
			third := make(chan *execSlot, 1)
			go func() {
				s, _ := l.acquire(t.Context(), time.Second)
				third <- s
			}()
			synctest.Wait()
			l.mu.Lock()
			first.ended = true // done's bookkeeping, with the grant and the cancel under one lock
			l.running--
			first.hold.Stop()
			first.uncountLocked() // the second is given the slot ...
			cancel()              // ... as its context ends
			l.mu.Unlock()
			if s := <-second; s != nil {
				s.done(kubecontainer.ContainerID{}, nil, nil)
			}
			(<-third).done(kubecontainer.ContainerID{}, nil, nil)
			if st := l.state(); st != (execLimitState{limit: 1}) {
				t.Fatalf("at the end: %+v", st)
			}
		}
	})
}

// TestExecLimitTimeoutsThroughDone: runs whose runner reports the runtime's
// timeout are slow samples, through limitedRunner and done.
func TestExecLimitTimeoutsThroughDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &execLimitRecorder{}
		l := newExecLimit(0, rec)
		l.floor = 2
		r := timeoutRunner{}
		lr := limitedRunner{CommandRunner: r, limit: l}
		var wg sync.WaitGroup
		for i := range 5 { // more than two floors, as a first cut needs
			wg.Go(func() {
				_, err := lr.RunInContainer(t.Context(), kubecontainer.ContainerID{ID: fmt.Sprint(i)}, []string{"check"}, time.Second)
				if !errors.Is(err, remote.ErrCommandTimedOut) {
					t.Errorf("run %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		time.Sleep(time.Second)
		wg.Go(func() {
			_, _ = lr.RunInContainer(t.Context(), kubecontainer.ContainerID{ID: "next"}, []string{"check"}, time.Second)
		})
		wg.Wait()
		if !slices.Equal(rec.cuts, []int{2}) {
			t.Errorf("cuts %v, want one to the floor", rec.cuts)
		}
	})
}

// timeoutRunner's commands time out in the runtime after their timeout.
type timeoutRunner struct{ kubecontainer.CommandRunner }

func (timeoutRunner) RunInContainer(_ context.Context, _ kubecontainer.ContainerID, _ []string, timeout time.Duration) ([]byte, error) {
	time.Sleep(timeout)
	return nil, errTimedOut
}

func TestExecLimitDoneTwicePanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newExecLimit(1, &execLimitRecorder{})
		s, err := l.acquire(t.Context(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		s.done(kubecontainer.ContainerID{}, nil, nil)
		defer func() {
			if recover() == nil {
				t.Error("a second done did not panic")
			}
		}()
		s.done(kubecontainer.ContainerID{}, nil, nil)
	})
}

func TestExecLimitFromEnv(t *testing.T) {
	for _, tc := range []struct {
		value   string
		want    int
		wantErr bool
	}{
		{"", 0, false},
		{"adaptive", 0, false},
		{"16", 16, false},
		{"0", -1, false},
		{"off", -1, false},
		{"-1", 0, true},
		{"many", 0, true},
		{"1.5", 0, true},
	} {
		got, err := execLimitFromEnv(func(k string) string {
			if k != execLimitEnv {
				t.Errorf("read %s", k)
			}
			return tc.value
		})
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("%s=%q: %d, %v; want %d, error %v", execLimitEnv, tc.value, got, err, tc.want, tc.wantErr)
		}
	}
	if newExecLimit(-1, &execLimitRecorder{}) != nil {
		t.Error("no limit made a limit")
	}
}
