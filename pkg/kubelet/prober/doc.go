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
// the kubelet sees is upstream's: the Manager interface, NewManager, the
// results managers whose Updates() syncLoopIteration reads, the prober (all
// four handlers), the worker state machine in doProbe, and the metrics
// prober_probe_total and prober_probe_duration_seconds. What changes is how
// probes are scheduled and run.
//
// With the ProbeTimerWheel feature gate on, a worker (the same worker,
// doProbe, probeKey) has no goroutine: a hierarchical timing wheel
// (wheel.go) holds its next due time, one goroutine (loop.go) wakes for the
// runs due on each tick, runs the quick ones itself (inline.go) and hands
// the rest to a bounded executor pool (pool.go, executor.go). scheduler.go
// has the state machine and the lock order. With the gate off, every worker
// runs upstream's loop. The reasons, the alternatives and the measurements
// are in probewheel's docs/design.md.
//
// # Contract
//
// With the gate on, for every probe spec the API server accepts:
//
//   - A worker's runs fall when upstream's worker loop would run them
//     (ticker.go): the first at once, then one per period on a grid that
//     starts at the first run, each on the wheel's first 4 ms tick at or
//     after its grid point.
//   - A run that outlasts its period is followed at once by the next, as a
//     ticker keeps one tick for a busy receiver; further ticks that fall
//     during the run are dropped and counted
//     (prober_scheduler_skipped_runs_total). A probe never has two runs in
//     flight.
//   - A manual trigger (UpdatePodStatus on a container that is not ready)
//     runs the probe as soon as the worker is free and restarts the grid
//     there; like upstream's one-slot channel, one trigger waits at most,
//     and a trigger before the first run runs right after it.
//   - A stopped worker exits when its run in flight ends; one stopped before
//     its first run probes once first, as upstream's does.
//   - Within one period of the manager's start (a kubelet restart), first
//     runs are spread over their period by a golden-ratio sequence seeded by
//     the host name (spread.go), where upstream sleeps a random part of it;
//     after that, a new worker probes at once.
//   - Runs in flight are bounded (pool.go): a fast lane of 16 slots per CPU
//     (32 to 256) and a slow lane of 2048 for probes whose last run overran
//     slowAfter (10 ms). A run that blocks delays healthy probes by at most
//     slowAfter rounded up to the wheel's tick (12 ms), once, however many
//     block at once, while the slow lane has room.
//   - Every result a run sets reaches Updates(), in order. A run about to
//     block on a full Updates() channel gives its slot up while it waits
//     (delivery.go), so a stalled sync loop blocks only the runs whose
//     results it has not read.
//   - The loop runs a run itself only if that probe's last run was quick
//     (under 1 ms), for up to 1 ms per tick; if one is still going at the
//     loop's first tick 2 ms after the batch started, or would block on a
//     full Updates() channel, a new goroutine takes the wheel over
//     (inline.go), so no run holds the wheel up for longer than about 6 ms.
//   - An idle probe costs a wheel timer in its worker struct; every goroutine
//     exits when the last probe stops.
//
// In both modes a run does upstream's work, with upstream's results, and less
// of it: an exec command expanded once per worker, an HTTP request built
// once per pod IP, metric series kept per worker under upstream's
// registration rules, log arguments built only when logged (prober.go,
// prober_http.go, worker.go; each pinned by a test in perrun_test.go,
// prober_http_test.go or worker_metrics_test.go).
//
// # Probe specs
//
// Every value the API server accepts is used as given; the wheel keeps a
// timer of any period (up to math.MaxInt32 seconds) at one tick's
// precision. A period that is not positive cannot come from the API server;
// upstream would panic in time.NewTicker on it and take the kubelet down, so
// probewheel logs it once and probes at the API default of 10 s
// (probe_spec.go). A panicking handler is recovered in doProbe as upstream
// does, and the worker keeps its schedule.
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
//     taken, which restarts the period and drops the tick; upstream picks at
//     random, and when it takes the tick first it runs again at once for the
//     trigger.
//   - A manual trigger that lands at the instant a run starts is served by
//     that run: the probe runs once and the period restarts with it; upstream
//     may run twice, and with successThreshold > 1 count two successes at
//     one instant (TestSchedulerTriggerAtTheInstantOfATick).
//   - Runs start on the first tick of the scheduler's wheel (4 ms) at or
//     after their due time, so that runs due close together share a wake-up.
//     A worker's runs on its grid are all late by the same offset, so the
//     intervals between them stay exact; an interval that starts with a run
//     off the grid (a first run, a manual one, one right after an overrun)
//     is up to one tick longer than upstream's
//     (TestSchedulerRunsOfATickStartTogether).
//   - First runs after a kubelet restart are spread by the golden-ratio
//     sequence above, not by a random sleep.
//   - A period that is not positive probes every 10 s where upstream panics.
//   - A worker that exits removes its map entry only if the entry is still
//     itself, so it cannot remove a newer worker for the same probe.
//   - Runs may wait for an executor slot (prober_scheduler_queue_wait_seconds);
//     with healthy probes and the default pool they do not.
//   - Runs due on the same tick as a quick probe's run that turns slow on the
//     loop's goroutine may start up to 6 ms late, once: the runs queued
//     behind it wait until the wheel is handed off
//     (TestSchedulerInlineRunThatBlocks).
//
// AddPod skips only the container whose probe worker exists instead of
// returning, as upstream does since 1.37 (kubernetes#138930); the series of
// older minors carry that fix as an upstream pick.
package prober
