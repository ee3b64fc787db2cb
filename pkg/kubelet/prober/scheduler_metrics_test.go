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
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"weak"

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
# HELP prober_scheduler_pool_capacity [ALPHA] Probe runs that may start at once, by executor lane (fast or slow).
# TYPE prober_scheduler_pool_capacity gauge
prober_scheduler_pool_capacity{lane="fast"} 2
prober_scheduler_pool_capacity{lane="slow"} 5
# HELP prober_scheduler_probes_in_flight [ALPHA] Probe runs in flight, by executor lane: fast, slow, or detached (waiting for the kubelet to take a changed result).
# TYPE prober_scheduler_probes_in_flight gauge
`
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &poolLimits{fast: 2, slow: 5, slowAfter: 10 * time.Millisecond})
		afterStart(h, 10*time.Second)
		h.probes.set("c", behaviour{result: probe.Success, hang: 2 * time.Second})
		h.addPod("p", v1.Container{Name: "c", LivenessProbe: execProbe(10)})
		time.Sleep(time.Second)

		reg := metrics.NewKubeRegistry()
		reg.CustomMustRegister(&schedulerCollector{schedulers: func() []*scheduler { return []*scheduler{h.m.scheduler} }})
		for _, step := range []struct {
			when     string
			inFlight string
		}{
			{"while a run that started before registration is in flight", `
prober_scheduler_probes_in_flight{lane="detached"} 0
prober_scheduler_probes_in_flight{lane="fast"} 1
prober_scheduler_probes_in_flight{lane="slow"} 0
`},
			{"after it ended", `
prober_scheduler_probes_in_flight{lane="detached"} 0
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

// TestLiveSchedulersForgetCollectedOnes: the collector's list keeps weak
// pointers and forgets the schedulers the GC collected, whenever the GC ran.
func TestLiveSchedulersForgetCollectedOnes(t *testing.T) {
	kept := newScheduler(schedulerConfig{})
	var dropped [10]weak.Pointer[scheduler]
	for i := range dropped {
		dropped[i] = weak.Make(newScheduler(schedulerConfig{}))
	}
	runtime.GC()
	for i, p := range dropped {
		if p.Value() != nil {
			t.Fatalf("dropped scheduler %d was not collected: the test cannot tell", i)
		}
	}
	live := liveSchedulers()
	if !slices.Contains(live, kept) {
		t.Error("a scheduler in use is not reported")
	}
	schedulers.Lock()
	listed := len(schedulers.all)
	schedulers.Unlock()
	if listed != len(live) {
		t.Errorf("%d schedulers listed after %d live ones were reported: collected ones are kept", listed, len(live))
	}
	runtime.KeepAlive(kept)
}
