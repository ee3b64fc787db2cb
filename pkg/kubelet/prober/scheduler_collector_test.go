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
	"strings"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/kubernetes/pkg/probe"
)

// TestSchedulerCollector: the gauge is read from the scheduler when scraped,
// so a run that started before the collector was registered is counted.
func TestSchedulerCollector(t *testing.T) {
	const header = `
# HELP prober_scheduler_probes_in_flight [ALPHA] Probe runs in flight: an executor goroutine each.
# TYPE prober_scheduler_probes_in_flight gauge
`
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t) // the last scheduler made: the collector's
		afterStart(h, 10*time.Second)
		h.probes.set("c", behaviour{result: probe.Success, hang: 2 * time.Second})
		h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(10)})
		time.Sleep(time.Second)

		reg := metrics.NewKubeRegistry()
		reg.CustomMustRegister(SchedulerCollector())
		for _, step := range []struct {
			when     string
			inFlight string
		}{
			{"while a run that started before registration is in flight", "prober_scheduler_probes_in_flight 1\n"},
			{"after it ended", "prober_scheduler_probes_in_flight 0\n"},
		} {
			if err := testutil.GatherAndCompare(reg, strings.NewReader(header+step.inFlight), "prober_scheduler_probes_in_flight"); err != nil {
				t.Errorf("%s: %v", step.when, err)
			}
			time.Sleep(2 * time.Second)
		}
		h.close()
	})
}

// TestSchedulerCollectorExecLimit: the exec limit's gauges are read from the
// newest scheduler's limit when scraped, and absent without one.
func TestSchedulerCollectorExecLimit(t *testing.T) {
	const want = `
# HELP prober_exec_limit [ALPHA] Exec probe runs that may count against the exec limit at once; 0 while there is no bound (the adaptive limit before a cut, or lifted).
# TYPE prober_exec_limit gauge
prober_exec_limit 3
# HELP prober_exec_limit_counted [ALPHA] Exec probe runs that count against the exec limit: in flight, and within twice their timeout (at most 10 s).
# TYPE prober_exec_limit_counted gauge
prober_exec_limit_counted 3
# HELP prober_exec_limit_waiting [ALPHA] Exec probe runs waiting for a slot of the exec limit.
# TYPE prober_exec_limit_waiting gauge
prober_exec_limit_waiting 1
# HELP prober_exec_runs_in_flight [ALPHA] Exec probe runs whose command the container runtime runs, counted against the limit or not.
# TYPE prober_exec_runs_in_flight gauge
prober_exec_runs_in_flight 3
`
	names := []string{"prober_exec_limit", "prober_exec_limit_counted", "prober_exec_limit_waiting", "prober_exec_runs_in_flight"}
	synctest.Test(t, func(t *testing.T) {
		s := newScheduler(componentBaseMetrics{}, time.Now())
		reg := metrics.NewKubeRegistry()
		reg.CustomMustRegister(SchedulerCollector())
		if err := testutil.GatherAndCompare(reg, strings.NewReader(""), names...); err != nil {
			t.Errorf("without a limit: %v", err)
		}
		l := newFixedExecLimit(3, &execLimitRecorder{})
		s.execLimit.Store(l)
		release := make(chan struct{})
		for range 4 {
			go func() {
				_, _ = l.run(t.Context(), &runCache{}, uid("pod"), time.Second, func() ([]byte, error) { <-release; return nil, nil })
			}()
		}
		synctest.Wait()
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
			t.Errorf("three runs in flight, one waiting: %v", err)
		}
		close(release)
		synctest.Wait()
	})
}
