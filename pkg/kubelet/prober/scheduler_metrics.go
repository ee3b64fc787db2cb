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
	"sync"
	"time"
	"weak"

	"k8s.io/component-base/metrics"
)

// The lateness buckets resolve the wheel's 4 ms tick and the kernel's timer
// slack at the bottom and a probe stuck behind a full pool at the top.
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
	// ProberQueueWait is how long due probe runs waited for an executor slot.
	ProberQueueWait = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      "prober",
		Name:           "scheduler_queue_wait_seconds",
		Help:           "Time a due probe run waited for a free executor slot.",
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

	proberInFlightDesc = metrics.NewDesc("prober_scheduler_probes_in_flight",
		"Probe runs in flight, by executor lane: fast, slow, or detached (waiting for the kubelet to take a changed result).",
		[]string{"lane"}, nil, metrics.ALPHA, "")
	proberPoolCapacityDesc = metrics.NewDesc("prober_scheduler_pool_capacity",
		"Probe runs that may start at once, by executor lane (fast or slow).",
		[]string{"lane"}, nil, metrics.ALPHA, "")
)

// SchedulerMetrics returns the scheduler's metrics that are updated as runs
// happen, for the kubelet to register next to ProberResults and
// ProberDuration on /metrics/probes; SchedulerCollector returns the rest.
func SchedulerMetrics() []metrics.Registerable {
	return []metrics.Registerable{ProberStartLateness, ProberQueueWait, ProberSkippedRuns}
}

// SchedulerCollector reports the runs in flight and the capacity of every
// live scheduler (a kubelet has one) as absolute values read when scraped,
// so they are right however early or late it is registered.
func SchedulerCollector() metrics.StableCollector {
	return &schedulerCollector{schedulers: liveSchedulers}
}

type schedulerCollector struct {
	metrics.BaseStableCollector
	schedulers func() []*scheduler
}

func (*schedulerCollector) DescribeWithStability(ch chan<- *metrics.Desc) {
	ch <- proberInFlightDesc
	ch <- proberPoolCapacityDesc
}

func (c *schedulerCollector) CollectWithStability(ch chan<- metrics.Metric) {
	var inFlight [numLanes + 1]int
	var capacity [numLanes]int
	for _, s := range c.schedulers() {
		s.mu.Lock()
		for l := range numLanes {
			inFlight[l] += s.pool.running[l]
			capacity[l] += s.pool.limit(l)
		}
		inFlight[detachedLane] += s.pool.detached
		s.mu.Unlock()
	}
	for l, n := range inFlight {
		ch <- metrics.NewLazyConstMetric(proberInFlightDesc, metrics.GaugeValue, float64(n), lane(l).String())
	}
	for l, n := range capacity {
		ch <- metrics.NewLazyConstMetric(proberPoolCapacityDesc, metrics.GaugeValue, float64(n), lane(l).String())
	}
}

// schedulers lists the schedulers the collector reads. Weak pointers, so that
// the many managers tests create are collected as usual.
var schedulers struct {
	sync.Mutex
	all []weak.Pointer[scheduler]
}

func registerScheduler(s *scheduler) {
	schedulers.Lock()
	defer schedulers.Unlock()
	schedulers.all = append(schedulers.all, weak.Make(s))
}

func liveSchedulers() []*scheduler {
	schedulers.Lock()
	defer schedulers.Unlock()
	var live []*scheduler
	kept := schedulers.all[:0]
	for _, p := range schedulers.all {
		if s := p.Value(); s != nil {
			live = append(live, s)
			kept = append(kept, p)
		}
	}
	clear(schedulers.all[len(kept):])
	schedulers.all = kept
	return live
}

// componentBaseMetrics reports to the package's metrics, which are no-ops
// until the kubelet registers them (after it creates the manager): what
// happens before that is not counted.
type componentBaseMetrics struct{}

func (componentBaseMetrics) started(lateness, queueWait time.Duration) {
	ProberStartLateness.Observe(lateness.Seconds())
	ProberQueueWait.Observe(queueWait.Seconds())
}

func (componentBaseMetrics) skipped(t probeType, ticks int64) {
	ProberSkippedRuns.WithLabelValues(t.String()).Add(float64(ticks))
}
