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

// schedulerMetrics is what the scheduler reports; tests swap in a recorder.
type schedulerMetrics interface {
	// started records a run that got a slot: how late it started against
	// its due time, and how long it waited for the slot.
	started(lateness, queueWait time.Duration)
	// inFlight adds delta to the runs in flight in a lane.
	inFlight(l lane, delta int)
	// capacity reports a lane's slot budget.
	capacity(l lane, slots int)
	// skipped counts runs that came due while the previous run of the same
	// probe was still in flight or waiting.
	skipped(t probeType, runs int)
}

// The lateness buckets resolve the wheel's 1 ms tick and the kernel's timer
// slack at the bottom and a probe stuck behind a full pool at the top.
var schedulerLatenessBuckets = []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

var (
	// ProberStartLateness is how late probe runs start against their due time.
	ProberStartLateness = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      "prober",
		Name:           "scheduler_start_lateness_seconds",
		Help:           "Time from a probe run's due time to its start.",
		Buckets:        schedulerLatenessBuckets,
		StabilityLevel: metrics.ALPHA,
	})
	// ProberQueueWait is how long due probe runs waited for an executor slot.
	ProberQueueWait = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      "prober",
		Name:           "scheduler_queue_wait_seconds",
		Help:           "Time a due probe run waited for a free executor slot.",
		Buckets:        schedulerLatenessBuckets,
		StabilityLevel: metrics.ALPHA,
	})
	// ProberInFlight is the number of probe runs in flight, by executor lane.
	ProberInFlight = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Subsystem:      "prober",
		Name:           "scheduler_probes_in_flight",
		Help:           "Probe runs in flight, by executor lane (fast or slow).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"lane"})
	// ProberPoolCapacity is the executor's slot budget, by lane.
	ProberPoolCapacity = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Subsystem:      "prober",
		Name:           "scheduler_pool_capacity",
		Help:           "Probe runs the executor allows in flight at once, by lane (fast or slow).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"lane"})
	// ProberSkippedRuns counts runs skipped because the previous run of the
	// same probe was still in flight, as upstream's ticker drops ticks.
	ProberSkippedRuns = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      "prober",
		Name:           "scheduler_skipped_runs_total",
		Help:           "Probe runs skipped because the previous run of the same probe was still in flight.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"probe_type"})
)

// SchedulerMetrics returns the scheduler's metrics, for the kubelet to
// register next to ProberResults and ProberDuration on /metrics/probes.
func SchedulerMetrics() []metrics.Registerable {
	return []metrics.Registerable{ProberStartLateness, ProberQueueWait, ProberInFlight, ProberPoolCapacity, ProberSkippedRuns}
}

// componentBaseMetrics reports to the package's registered metrics. Each
// call looks its series up again: component-base metrics are no-ops until
// registered, and the kubelet registers them after creating the manager.
type componentBaseMetrics struct{}

func (componentBaseMetrics) started(lateness, queueWait time.Duration) {
	ProberStartLateness.Observe(lateness.Seconds())
	ProberQueueWait.Observe(queueWait.Seconds())
}

func (componentBaseMetrics) inFlight(l lane, delta int) {
	ProberInFlight.WithLabelValues(l.String()).Add(float64(delta))
}

func (componentBaseMetrics) capacity(l lane, slots int) {
	ProberPoolCapacity.WithLabelValues(l.String()).Set(float64(slots))
}

func (componentBaseMetrics) skipped(t probeType, runs int) {
	ProberSkippedRuns.WithLabelValues(t.String()).Add(float64(runs))
}
