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
	"context"
	"testing"

	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/probe"
	"k8s.io/utils/exec"
)

// noopExec is an exec prober whose command succeeds at once.
type noopExec struct{}

func (noopExec) Probe(exec.Cmd) (probe.Result, string, error) { return probe.Success, "", nil }

// BenchmarkDoProbe is the per-run work a scheduled probe run does, without
// the scheduler: one doProbe of an exec probe whose command returns at once,
// against a running container in the status manager, with the probe metrics
// registered. doc.go ("Per-run work") gives its figures beside upstream's.
func BenchmarkDoProbe(b *testing.B) {
	m := newTestManager()
	m.prober.exec = noopExec{}
	w := newRunningExecWorker(m, "bench")
	ctx := klog.NewContext(context.Background(), klog.Background())
	// Registered as the kubelet's server registers them on /metrics/probes: unregistered
	// component-base metrics are no-ops.
	metrics.NewKubeRegistry().MustRegister(ProberResults, ProberDuration)
	w.doProbe(ctx) // the first run sets the initial result
	b.ReportAllocs()
	for b.Loop() {
		w.doProbe(ctx)
	}
}
