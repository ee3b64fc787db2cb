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

// Package prober runs the kubelet's liveness, readiness and startup probes.
//
// This is probewheel's drop-in for upstream's package. Everything the rest of
// the kubelet sees is unchanged: the Manager interface, NewManager, the
// results managers whose Updates() syncLoopIteration reads, the prober (all
// four handlers), the worker state machine in doProbe, and the metrics
// prober_probe_total and prober_probe_duration_seconds. What changes is how
// probes are scheduled and executed.
//
// Upstream gives every probe a goroutine and a time.Ticker. probewheel keeps
// one worker struct per probe (the same worker, doProbe, probeKey) but no
// goroutine: a hierarchical timing wheel (wheel.go) holds each worker's next
// due time, one scheduler goroutine (loop.go) sleeps until the wheel's next
// non-empty slot, and due runs go to a bounded executor pool (pool.go),
// whose runs executors take from a ready queue (executor.go): one after the
// other while runs wait, waking another executor only when more wait than
// the one at hand takes, and parking when idle, at most as many as the pool
// has fast slots. Runs of the loop's own tick whose probe's last run was
// quick (under 1 ms) need no executor: the loop runs them itself, for up to
// 1 ms per tick, and if one of them is still going at the loop's first tick
// 2 ms after the batch started (a target that just began to hang) or would
// block on a full results channel, a new goroutine takes the wheel over and
// the old one becomes an executor (inline.go), so no run ever holds the
// wheel up for longer than about 6 ms. An idle probe costs a wheel timer
// in a worker struct; the goroutines are the runs in flight, the parked
// executors and the scheduler's, and all of them exit when the last probe
// stops. scheduler.go has the state machine and the lock order.
//
// # Timing
//
// A worker's runs fall when upstream's worker loop would run them
// (ticker.go): the first at once; then one per tick of a grid of periods
// that starts at the first run, each on the wheel's first 4 ms tick at or
// after its grid point. A run that outlasts its period is followed
// at once by the next, because a ticker keeps one tick for a receiver that
// is busy; further ticks that fall during the run are dropped and counted
// (prober_scheduler_skipped_runs_total). A probe never has two runs in
// flight. A manual trigger (UpdatePodStatus on a container that is not
// ready) runs the probe as soon as the worker is free and restarts the grid
// there; like upstream's one-slot channel, one trigger waits at most, and a
// trigger before the first run runs right after it. A stopped worker exits
// when its run in flight ends; one stopped before its first run probes once
// first, as upstream's does.
//
// Within one period of the manager's start (a kubelet restart), upstream
// sleeps each new worker a random part of its period. probewheel instead
// places the k-th such worker at the fraction (seed + k/φ) mod 1 of its
// period: the golden-ratio sequence leaves every window of the period within
// one or two probes of its share, where a random or hashed phase gives some
// 100 ms windows of a busy node half again their share. The seed comes from
// the host name, so nodes that restart together stay out of step. After the
// first period, a new worker probes at once, as upstream's does.
//
// # Executor pool and head-of-line blocking
//
// The pool (pool.go) bounds the runs in flight with two budgets ("lanes").
// Every probe starts in the fast lane unless its previous run overran
// slowAfter (10 ms), and a fast run that overruns while work waits moves to
// the slow lane without waiting for room there. So a run that blocks — a
// hung target up to timeoutSeconds × 3 retries, a slow CRI ExecSync — delays
// healthy probes by at most slowAfter rounded up to the wheel's tick (12 ms,
// and the timer's slack), once, however many hang at once, while the slow
// lane has room (TestSchedulerManyProbesTurnSlowTogether, at ten times the
// fast lane). A probe on its grid takes a fast slot before a new worker's
// first run, so a due probe never waits behind a batch of pods added at once
// (TestSchedulerGridRunsGoBeforeFirstRuns).
//
// A Set on a results manager whose Updates() channel is full blocks until
// syncLoopIteration reads it. A run about to block there gives its slot up
// (delivery.go), so a stalled sync loop cannot stop the probes of other pods
// however many readiness results change meanwhile; it blocks those runs
// only, as upstream blocks their goroutines. A run whose Set was its last
// step finishes without a slot (TestSchedulerFinalSetNeedsNoSlot); one whose
// Set was a new container's initial result takes a slot again before it
// probes (TestSchedulerReattachBeforeProbing).
//
// Defaults need no tuning: the fast lane has 16 slots per CPU (32 to 256)
// because fast work is CPU; the slow lane has 2048 because slow work is
// waiting, and a waiting run costs a parked goroutine, not CPU.
//
// Limits of the design: a probe that turns slow holds a fast slot for
// slowAfter on its first slow run, and if the loop was running it itself,
// the runs queued behind it on its tick start up to 6 ms late, once; probes
// that are healthy but merely slow (a 50 ms exec) share the slow lane with
// hung ones, so while more than 2048 runs hang at once, slow probes wait
// (and drop ticks), and fast runs queued behind runs that turn slow together
// wait for the fast lane's slots again; classification is per probe,
// by its last run, so a probe that alternates between fast and hung pays
// the slowAfter toll each time it hangs; and a run whose Set finds room in a
// results channel but loses it to another run before it sends blocks with
// its slot (at most the runs in flight when the channel fills; they move to
// the slow lane after slowAfter like any overrun).
//
// # Per-run work, done once or not at all
//
// A run does what upstream's does, with the same results, and less of it
// (each pinned by a test):
//
//   - An exec probe's command is expanded with the container's environment
//     once per worker instead of on every run: both are fixed for the
//     worker's lifetime (TestExecCommandExpandedOnce).
//   - A worker points at its pod's container instead of keeping a 400-byte
//     copy, and the command an exec run hands the runtime carries the
//     container's name, all the runtime logs of it, instead of a copy of the
//     container (TestWorkerSharesThePodsContainer).
//   - An HTTP probe's request is built once per pod IP instead of on every
//     run: net/http's client sends a request without changing it, so one
//     request puts the same bytes on the wire every time
//     (TestHTTPProbeParity). Its connection's write buffer is 512 bytes
//     instead of net/http's 4 KiB, since every probe dials a new connection
//     for a request of a few hundred bytes; a larger request goes out in
//     more writes, byte for byte the same. The read buffer keeps net/http's
//     size: it bounds the chunk size line a probe accepts.
//   - The V(3) and V(4) log lines of every run build their arguments only
//     when that verbosity is on.
//   - The container ID is compared with the runtime's without formatting it
//     (TestSameContainerID).
//   - A worker keeps its prober_probe_total and prober_probe_duration_seconds
//     series instead of looking them up on every run, and the series are
//     exactly upstream's: it keeps a series only if the metric was
//     registered before the look-up, and drops what it kept whenever any
//     worker's exit has deleted series since, so a series another worker
//     deleted (the duration series of a pod created again under the same
//     name, which has no pod_uid label) comes back with the next run
//     (worker.go; bench/parity TestProbeMetrics*,
//     TestWorkerSeriesAcrossRegistration). Its label values are built when
//     looked up, not kept in the five label maps upstream keeps in every
//     worker (~1.7 KB).
//
// A run of a no-op exec probe takes 144 B in 2 allocations, upstream's 984 B
// in 14 (BenchmarkDoProbe). These changes apply with the ProbeTimerWheel gate off
// too: they are in doProbe and the prober, which both modes share.
//
// # Probe specs
//
// Every value the API server accepts is used as given: validation requires
// periodSeconds, timeoutSeconds and the thresholds to be non-negative and
// sets no upper bound, and zeros are defaulted before the kubelet sees a pod,
// static pods included. The wheel keeps a timer of any period (up to
// math.MaxInt32 seconds) at one tick's precision. A period that is not
// positive cannot come from the API server; upstream would panic in
// time.NewTicker on it and take the kubelet down, so probewheel logs it once
// and probes at the API default of 10 s (probe_spec.go). A panicking handler
// is recovered in doProbe as upstream does, and the worker keeps its
// schedule.
//
// # Differences from upstream, on purpose
//
// Where upstream's worker select picks at random among channels that are
// ready together, probewheel decides, and where upstream crashes, it does
// not. Each difference is pinned by a test.
//
//   - A stop request is taken before a tick or a trigger that is ready at
//     the same moment; upstream picks at random, and may run once more.
//   - After a run during which both a tick and a trigger came, the trigger is
//     taken, which restarts the period and drops the tick (Go's Reset); upstream
//     picks at random, and when it takes the tick first it runs again at once
//     for the trigger.
//   - A manual trigger that lands at the instant a run starts (the run of a
//     tick due at that instant, or a run waiting for a slot) is served by
//     that run: the probe runs once and the period restarts with it. Upstream
//     runs twice when its select takes the tick first, so with
//     successThreshold > 1 it can count two successes at one instant
//     (TestSchedulerTriggerAtTheInstantOfATick).
//   - Runs start on the first tick of the scheduler's wheel (4 ms) at or
//     after their due time, not at it, so that runs due close together share
//     a wake-up (scheduler.go's schedulerTick). Periods are whole seconds, so
//     a worker's runs on its grid are all late by the same offset and the
//     intervals between them stay exact; an interval that starts with a run
//     off the grid (a worker's first run, a manual one, one right after an
//     overrun), which starts at once, is up to one tick longer than
//     upstream's (TestSchedulerRunsOfATickStartTogether).
//   - First runs after a kubelet restart are spread by the golden-ratio
//     sequence above, not by a random sleep.
//   - A period that is not positive probes every 10 s where upstream panics.
//   - A worker that exits removes its map entry only if the entry is still
//     itself, so it cannot remove a newer worker for the same probe.
//   - Runs may wait for an executor slot (prober_scheduler_queue_wait_seconds);
//     with healthy probes and the default pool they do not.
//   - Runs due on the same tick as a quick probe's run that turns slow on the
//     loop's goroutine may start up to 6 ms late, once: the runs queued
//     behind it wait until the watchdog hands the wheel off
//     (TestSchedulerInlineRunThatBlocks).
//
// AddPod skips only the container whose probe worker exists instead of
// returning, as upstream does since 1.37 (kubernetes#138930); the series of
// older minors carry that fix as an upstream pick (hack/minors).
package prober
