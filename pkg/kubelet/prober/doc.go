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
// due time, one scheduler goroutine (scheduler.go) sleeps until the wheel's
// next non-empty slot, and due runs go to a bounded executor pool (pool.go).
// Executor goroutines run one probe at a time and park when idle, at most
// as many as the pool has fast slots, so their stacks stay grown to
// doProbe's depth. An idle probe costs a wheel timer in a worker struct;
// the goroutines are the runs in flight, the parked executors and the
// scheduler's, and all of them exit when the last probe stops.
//
// # Timing
//
// Runs are due on a fixed grid (due += period) from the first due time, so
// periods do not drift with probe duration or wake-up lateness; the wheel's
// tick is 1 ms. A run that comes due while the previous run of the same
// probe is still waiting or running is skipped and counted
// (prober_scheduler_skipped_runs_total), as upstream's ticker drops ticks: a
// probe never has two runs in flight. A manual trigger (UpdatePodStatus on a
// not-ready container) runs the probe at once and restarts its grid from
// that moment; while a run is in flight one trigger is remembered, like
// upstream's one-slot channel.
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
// The pool bounds the runs in flight with two budgets ("lanes"). Every probe
// starts in the fast lane unless its previous run overran slowAfter (10 ms).
// While work waits for a fast slot, the scheduler moves any fast run older
// than slowAfter to the slow lane and gives its fast slot to the waiting run.
// So a run that blocks — a hung target up to timeoutSeconds × 3 retries, a
// slow CRI ExecSync, a Set blocked on a full results channel while
// syncLoopIteration is slow — holds a fast slot for at most slowAfter, and
// from its next run on it starts in the slow lane and only competes with
// other slow work. Healthy probes, which finish in well under slowAfter,
// keep their schedule when 10% of the probes hang. Waiting runs queue in
// the order they came due, one entry per probe at most, so the queues are bounded
// by the number of probes.
//
// Defaults need no tuning: the fast lane has 16 slots per CPU (32 to 256)
// because fast work is CPU; the slow lane has 2048 because slow work is
// waiting, and a waiting run costs a parked goroutine, not CPU. Their sum is
// a hard bound on runs in flight.
//
// Limits of the design: a probe that turns slow holds a fast slot for
// slowAfter on its first slow run; slow probes that are healthy but merely
// slow (a 50 ms exec) share the slow lane with hung ones, so when more than
// 2048 runs block at once, slow probes queue behind them and run late
// (skipping runs), though fast probes do not; and classification is per
// probe, by its last run, so a probe that alternates between fast and hung
// pays the slowAfter toll each time it hangs.
//
// # Bad input
//
// A probe spec the API server would reject (period, timeout or a threshold
// not positive, a period or timeout above a day) does not crash or stall the
// kubelet: the worker uses the API default for that field and logs once
// when it starts. A panicking handler is recovered in doProbe as upstream
// does, and the worker keeps its schedule.
//
// # Differences from upstream, on purpose
//
//   - AddPod skips only the container whose probe worker exists already,
//     instead of returning from AddPod (kubernetes#138928, merged upstream
//     after v1.36 as #138930).
//   - A worker that exits removes its map entry only if the entry is still
//     itself, so it cannot remove a newer worker for the same probe.
//   - A stop request takes precedence over a tick that is due at the same
//     moment; upstream picks one at random.
package prober
