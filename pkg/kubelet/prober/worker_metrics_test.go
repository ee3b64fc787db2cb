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

// The probe metrics' series as the workers' runs leave them. bench/parity
// compares the same series with upstream's package for whole scenarios
// (TestProbeMetrics*); this file holds what needs the package's internals.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// newRunningExecWorker returns a readiness worker of an exec probe whose
// container runs and has started, its status known to m's status manager, so
// that every doProbe runs the probe.
func newRunningExecWorker(m *manager, name string) *worker {
	p := execProbe(1)
	p.Exec.Command = []string{"/bin/check", "--ready"}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(name), Name: name, Namespace: "ns"},
		Spec: v1.PodSpec{Containers: []v1.Container{{
			Name: "c", Image: "example/app:1", ReadinessProbe: p,
			Env: []v1.EnvVar{{Name: "MODE", Value: "ready"}},
		}}},
	}
	m.statusManager.SetPodStatus(klog.Background(), pod, v1.PodStatus{
		Phase: v1.PodRunning,
		ContainerStatuses: []v1.ContainerStatus{{
			Name: "c", ContainerID: "test://" + name + "/c", Started: ptr.To(true),
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.Now()}},
		}},
	})
	return newWorker(m, readiness, pod, pod.Spec.Containers[0])
}

// TestWorkerSeriesAcrossRegistration: the kubelet's server registers
// prober_probe_total and prober_probe_duration_seconds while the sync loop
// already starts workers, and component-base metrics are no-ops until then.
// Workers that probe across the registration must have their series once it
// is done: a run that got a no-op before the registration must not make the
// worker's later runs no-ops. Eight workers probe in a loop while the metrics
// are registered, then each probes once more; every round must end with all
// eight series. (A worker that kept the series it looked up, deciding by
// IsCreated() after the look-up, lost 4 of 8 within two rounds.)
func TestWorkerSeriesAcrossRegistration(t *testing.T) {
	const workers, rounds = 8, 20
	t.Cleanup(func() {
		// Leave the metrics unregistered, as the package's other tests expect.
		ProberResults.ClearState()
		ProberDuration.ClearState()
	})
	ctx := klog.NewContext(context.Background(), klog.Background())
	for round := range rounds {
		ProberResults.ClearState()
		ProberDuration.ClearState()
		m := newTestManager()
		m.prober.exec = noopExec{}
		ws := make([]*worker, workers)
		for i := range ws {
			ws[i] = newRunningExecWorker(m, fmt.Sprintf("r%d-p%d", round, i))
		}
		var stop atomic.Bool
		var spinning, wg sync.WaitGroup
		spinning.Add(workers)
		for _, w := range ws {
			wg.Go(func() {
				for i := 0; !stop.Load(); i++ {
					w.doProbe(ctx)
					if i == 100 {
						spinning.Done()
					}
				}
				w.doProbe(ctx) // after the registration
			})
		}
		spinning.Wait()
		reg := metrics.NewKubeRegistry()
		reg.MustRegister(ProberResults, ProberDuration)
		stop.Store(true)
		wg.Wait()

		total, duration := map[string]bool{}, map[string]bool{}
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "pod" {
						switch f.GetName() {
						case "prober_probe_total":
							total[l.GetValue()] = true
						case "prober_probe_duration_seconds":
							duration[l.GetValue()] = true
						}
					}
				}
			}
		}
		for _, w := range ws {
			if !total[w.pod.Name] || !duration[w.pod.Name] {
				t.Errorf("round %d: pod %s has prober_probe_total series: %v, prober_probe_duration_seconds series: %v; want both",
					round, w.pod.Name, total[w.pod.Name], duration[w.pod.Name])
			}
		}
	}
}
