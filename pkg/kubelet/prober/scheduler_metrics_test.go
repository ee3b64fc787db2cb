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

// TestSchedulerCollector: the gauges are read from the pool when scraped, so
// a run that started before the collector was registered is counted, and
// the capacity is there from the first scrape.
func TestSchedulerCollector(t *testing.T) {
	const header = `
# HELP prober_scheduler_pool_capacity [ALPHA] Slots of the scheduler's pool: how many probe runs start at once before the next one waits (for at most the pool's slowAfter).
# TYPE prober_scheduler_pool_capacity gauge
prober_scheduler_pool_capacity 2
# HELP prober_scheduler_probes_in_flight [ALPHA] Probe runs in flight: holding a slot of the scheduler's pool (lane fast) or running without one (lane slow: runs that took the pool's slowAfter or more, runs of probes whose last run did, and runs that waited that long for a slot).
# TYPE prober_scheduler_probes_in_flight gauge
`
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2) // the last scheduler made: the collector's
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
			{"while a run that started before registration is in flight", `
prober_scheduler_probes_in_flight{lane="fast"} 1
prober_scheduler_probes_in_flight{lane="slow"} 0
`},
			{"after it ended", `
prober_scheduler_probes_in_flight{lane="fast"} 0
prober_scheduler_probes_in_flight{lane="slow"} 0
`},
		} {
			if err := testutil.GatherAndCompare(reg, strings.NewReader(header+step.inFlight),
				"prober_scheduler_probes_in_flight", "prober_scheduler_pool_capacity"); err != nil {
				t.Errorf("%s: %v", step.when, err)
			}
			time.Sleep(2 * time.Second)
		}
		h.close()
	})
}
