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

// SchedulerCollector reports the runs in flight of the kubelet's scheduler,
// the last one NewManager made, as a value read when scraped, so that it is
// right however early or late it is registered. With the ProbeTimerWheel gate
// off it reports nothing. The kubelet makes one manager, and the package's
// other metrics (ProberResults, ProberDuration) are package globals too:
// binding the collector to a manager would change NewManager's signature.
func SchedulerCollector() metrics.StableCollector { return &schedulerCollector{} }

type schedulerCollector struct{ metrics.BaseStableCollector }

func (*schedulerCollector) DescribeWithStability(ch chan<- *metrics.Desc) { ch <- proberInFlightDesc }

func (*schedulerCollector) CollectWithStability(ch chan<- metrics.Metric) {
	if s := collected.Load(); s != nil {
		s.mu.Lock()
		running := s.running
		s.mu.Unlock()
		ch <- metrics.NewLazyConstMetric(proberInFlightDesc, metrics.GaugeValue, float64(running))
	}
}
