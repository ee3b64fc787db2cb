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
	"time"

	"k8s.io/component-base/metrics"
)

// The lateness buckets resolve the wheel's tick (schedulerTick) and the
// kernel's timer slack at the bottom, and a loop or executors held up for
// seconds (a node whose CPU is starved) at the top.
var schedulerLatenessBuckets = []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

var (
	// ProberStartLateness is how late probe runs start against their due time.
	ProberStartLateness = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      "prober",
		Name:           "scheduler_start_lateness_seconds",
		Help:           "Time from the moment a probe run was due (its tick, or the end of the previous run when a tick was pending) to its start.",
		Buckets:        schedulerLatenessBuckets,
		StabilityLevel: metrics.ALPHA,
	})
	// ProberSkippedRuns counts ticks dropped because the previous run of the
	// same probe was still in flight, as upstream's ticker drops them.
	ProberSkippedRuns = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      "prober",
		Name:           "scheduler_skipped_runs_total",
		Help:           "Probe ticks dropped because the previous run of the same probe was still in flight when more than one fell due.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"probe_type"})
	// ProberExecLimitWait is how long exec runs waited for a slot of the exec limit.
	ProberExecLimitWait = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      "prober",
		Name:           "exec_limit_wait_seconds",
		Help:           "Time exec probe runs waited for a slot of the exec limit before their command was sent to the container runtime.",
		Buckets:        schedulerLatenessBuckets,
		StabilityLevel: metrics.ALPHA,
	})
	// ProberExecLimitCuts counts the cuts of the adaptive exec limit.
	ProberExecLimitCuts = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      "prober",
		Name:           "exec_limit_cuts_total",
		Help:           "Cuts of the adaptive exec limit, and its settings from none: seconds in which most exec runs came back late against what their probe's command usually takes and a healthy probe timed out (for 30 s after that, lateness alone).",
		StabilityLevel: metrics.ALPHA,
	})
)

// SchedulerMetrics returns the scheduler's metrics that are updated as runs
// happen, for the kubelet to register next to ProberResults and
// ProberDuration on /metrics/probes; SchedulerCollector
// (scheduler_collector.go) returns the rest.
func SchedulerMetrics() []metrics.Registerable {
	return []metrics.Registerable{ProberStartLateness, ProberSkippedRuns, ProberExecLimitWait, ProberExecLimitCuts}
}

// schedulerMetrics is what the scheduler reports as runs happen; tests swap
// in a recorder.
type schedulerMetrics interface {
	started(lateness time.Duration)   // a run began, late against its due time
	skipped(t probeType, ticks int64) // ticks upstream's ticker would have dropped
}

// componentBaseMetrics reports to the package's metrics, which are no-ops
// until the kubelet registers them (after it creates the manager): what
// happens before that is not counted.
type componentBaseMetrics struct{}

func (componentBaseMetrics) started(lateness time.Duration) {
	ProberStartLateness.Observe(lateness.Seconds())
}

func (componentBaseMetrics) skipped(t probeType, ticks int64) {
	ProberSkippedRuns.WithLabelValues(t.String()).Add(float64(ticks))
}

func (componentBaseMetrics) waited(d time.Duration) { ProberExecLimitWait.Observe(d.Seconds()) }

func (componentBaseMetrics) cut(int) { ProberExecLimitCuts.Inc() }
