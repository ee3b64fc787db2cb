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
// probes are scheduled.
//
// With the ProbeTimerWheel feature gate on, a worker (the same worker,
// doProbe, probeKey) has no goroutine: a timing wheel (wheel.go) holds its
// next due time, one goroutine (loop.go) wakes for the runs due
// on each tick, and executors (executor.go) run them, a goroutine for each
// run in flight as upstream has one for each probe. With the gate off, every
// worker runs upstream's loop. The reasons, the alternatives and what each
// mechanism was measured to buy are in probewheel's docs/design.md.
//
// # Contract
//
// With the gate on, for every probe spec the API server accepts, probewheel
// behaves exactly as upstream's prober would if every run started on the next
// tick of the wheel (schedulerTick, counted from the manager's start). Its
// tests hold it to that prober, built from upstream's package
// (probewheel's bench/oracle), with no tolerance. It follows that:
//
//   - What others read trails upstream by up to a tick: a result, a
//     worker's exit from the manager's map, a metric series come when the
//     run on the tick sets them.
//   - A race narrower than a tick resolves as it would on a node that is a
//     tick slower: a trigger or a stop that comes between a run's due time
//     and its tick waits for the run, as in upstream's channels, and an
//     AddPod before a stopped worker's last run ends finds the worker and
//     skips the container.
//   - Runs follow upstream's ticker (ticker.go): the first when the worker
//     starts, then one per period on a grid that starts at the first run's
//     due time, each on the first tick at or after its due time, so a
//     worker's intervals are exactly its period. A run that outlasts its
//     period is followed by the next on the tick after it ends, as a ticker
//     keeps one tick for a busy receiver; further ticks are dropped and
//     counted (prober_scheduler_skipped_runs_total). A probe never has two
//     runs in flight.
//   - A manual trigger (UpdatePodStatus on a container that is not ready)
//     runs the probe on the next tick and restarts the period there; one
//     trigger waits at most, like upstream's one-slot channel.
//   - Within one period of the manager's start (a kubelet restart), first
//     runs are spread over their period by a golden-ratio sequence seeded by
//     the host name (spread.go), where upstream sleeps a random part of it.
//   - A run that blocks (a probe that hangs until its timeout, a result the
//     kubelet does not read from a full Updates() channel) holds its executor
//     and nothing else, as upstream's worker holds its goroutine, and its
//     worker holds its place in the map until the run ends. Every result a
//     run sets reaches Updates(), in order.
//   - An idle probe costs its worker struct; executors park, up to
//     maxIdleExecutors, and every goroutine exits when the last probe stops.
//
// One exception, and only while the container runtime is overloaded: the
// exec limit (exec_limit.go, its policy in exec_policy.go; the
// ProbeExecLimit gate, on by default) holds exec runs back in the kubelet,
// where upstream sends every exec at once and the runtime times them out. It
// judges each run against what its own probe's command usually takes, and
// binds only when the runs that come back are mostly late against that and a
// healthy probe timed out, when probes flap between timing out and coming
// back on time, or when runs time out and none has come back on time
// anywhere on the node for 15 s; probes that hang while the node's other
// exec probes are on time (a dependency outage), commands that always take
// most of their timeout and latency spikes that meet their timeouts never
// bind it. It never goes below one run in flight per CPU (where runs that
// all still time out are not the runtime's doing, and it lets go), shares its
// slots fairly across pods, and is lifted once nothing waited and nothing
// was overloaded for 30 s. A run it holds starts late, as on a node whose runtime
// is that much slower: its wait is measured (prober_exec_limit_wait_seconds),
// not counted against its timeout, and part of its
// prober_probe_duration_seconds; a run that still waits when its worker
// stops never starts, as upstream starts no run after its worker's stop.
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
// probewheel logs it once and probes at the API default (probe_spec.go). A
// panicking handler is recovered in doProbe as upstream does, and the worker
// keeps its schedule.
//
// # Differences from upstream, on purpose
//
// Beyond runs on the tick, the oracle breaks the ties of upstream's select as
// probewheel does, and where upstream crashes, probewheel does not. Each
// difference is pinned by a test.
//
//   - A stop request is taken before a tick or a trigger that is ready at the
//     same moment; upstream picks at random, and may run once more.
//   - After a run during which both a tick and a trigger came, the trigger is
//     taken, which restarts the period and drops the tick; upstream picks at
//     random, and when it takes the tick first it runs again at once for the
//     trigger.
//   - A trigger or a stop at the instant a tick falls due comes after the
//     tick's run; upstream's select may take either first
//     (TestSchedulerTriggerAtTheInstantOfATick).
//   - Runs start on the first tick of the scheduler's wheel at or after their
//     due time: up to one tick late, by the same offset in every period of a
//     worker (TestSchedulerRunsOfATickStartTogether).
//   - First runs after a kubelet restart are spread by the golden-ratio
//     sequence above, not by a random sleep.
//   - A period that is not positive probes at the API's default period
//     (fallbackPeriodSeconds) where upstream panics; the oracle, upstream's
//     code, panics too, so probe_spec_test.go pins it instead.
//
// AddPod skips only the container whose probe worker exists instead of
// returning, as upstream does since 1.37 (kubernetes#138930); the series of
// older minors carry that fix as an upstream pick.
package prober
