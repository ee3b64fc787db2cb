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

import "k8s.io/component-base/metrics"

var proberInFlightDesc = metrics.NewDesc("prober_scheduler_probes_in_flight",
	"Probe runs in flight: an executor goroutine each.",
	nil, nil, metrics.ALPHA, "")

// The exec limit's state (exec_limit.go), absent when there is no limit.
var (
	proberExecLimitDesc = metrics.NewDesc("prober_exec_limit",
		"Exec probe runs that may count against the exec limit at once; 0 while there is no bound (the adaptive limit before a cut, or lifted).",
		nil, nil, metrics.ALPHA, "")
	proberExecLimitCountedDesc = metrics.NewDesc("prober_exec_limit_counted",
		"Exec probe runs that count against the exec limit: in flight, and within twice their timeout (at most 10 s).",
		nil, nil, metrics.ALPHA, "")
	proberExecLimitWaitingDesc = metrics.NewDesc("prober_exec_limit_waiting",
		"Exec probe runs waiting for a slot of the exec limit.",
		nil, nil, metrics.ALPHA, "")
	proberExecRunsInFlightDesc = metrics.NewDesc("prober_exec_runs_in_flight",
		"Exec probe runs whose command the container runtime runs, counted against the limit or not.",
		nil, nil, metrics.ALPHA, "")
)

// SchedulerCollector reports the runs in flight of the kubelet's scheduler and its exec limit,
// the last one NewManager made, as a value read when scraped, so that it is
// right however early or late it is registered. With the ProbeTimerWheel gate
// off it reports nothing. The kubelet makes one manager, and the package's
// other metrics (ProberResults, ProberDuration) are package globals too:
// binding the collector to a manager would change NewManager's signature.
func SchedulerCollector() metrics.StableCollector { return &schedulerCollector{} }

type schedulerCollector struct{ metrics.BaseStableCollector }

func (*schedulerCollector) DescribeWithStability(ch chan<- *metrics.Desc) {
	for _, d := range []*metrics.Desc{proberInFlightDesc, proberExecLimitDesc, proberExecLimitCountedDesc, proberExecLimitWaitingDesc, proberExecRunsInFlightDesc} {
		ch <- d
	}
}

func (*schedulerCollector) CollectWithStability(ch chan<- metrics.Metric) {
	if s := collected.Load(); s != nil {
		s.mu.Lock()
		running := s.running
		s.mu.Unlock()
		ch <- metrics.NewLazyConstMetric(proberInFlightDesc, metrics.GaugeValue, float64(running))
		if l := s.execLimit.Load(); l != nil {
			st := l.state()
			ch <- metrics.NewLazyConstMetric(proberExecLimitDesc, metrics.GaugeValue, float64(st.limit))
			ch <- metrics.NewLazyConstMetric(proberExecLimitCountedDesc, metrics.GaugeValue, float64(st.counted))
			ch <- metrics.NewLazyConstMetric(proberExecLimitWaitingDesc, metrics.GaugeValue, float64(st.waiting))
			ch <- metrics.NewLazyConstMetric(proberExecRunsInFlightDesc, metrics.GaugeValue, float64(st.running))
		}
	}
}
