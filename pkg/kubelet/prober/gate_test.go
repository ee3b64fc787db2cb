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
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/probewheel/probewheel/pkg/features"
	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/probe"
)

// TestProbeTimerWheelGate: NewManager reads the gate once; on, probes run on
// the timer wheel with no goroutine per probe; off, each probe runs
// upstream's loop in a goroutine of its own. Both probe on the same grid,
// take a manual trigger and stop.
func TestProbeTimerWheelGate(t *testing.T) {
	const probes = 3
	tests := []struct {
		enabled bool
		// wantGoroutines are the goroutines the probes add while idle.
		wantGoroutines func(grown int) bool
	}{
		{true, func(grown int) bool { return grown >= 1 && grown <= 1+probes }}, // the loop, parked executors
		{false, func(grown int) bool { return grown == probes }},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("ProbeTimerWheel=%v", tc.enabled), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.ProbeTimerWheel, tc.enabled)
			synctest.Test(t, func(t *testing.T) {
				h := newHarnessWith(t, false)
				if wheel := h.m.scheduler != nil; wheel != tc.enabled {
					t.Fatalf("manager on the timer wheel: %v, want %v", wheel, tc.enabled)
				}
				afterStart(h, 10*time.Second)
				synctest.Wait()
				before := bubbleGoroutines()
				cs := containers(probes, func(c *v1.Container, _ int) {
					h.probes.set(c.Name, behaviour{result: probe.Failure})
					c.ReadinessProbe = execProbe(1)
				})
				pod := h.addPod("p", cs...)
				time.Sleep(1500 * time.Millisecond)
				synctest.Wait()
				if grown := bubbleGoroutines() - before; !tc.wantGoroutines(grown) {
					t.Errorf("%d probes added %d goroutines", probes, grown)
				}
				h.updatePodStatus(pod) // not ready: a manual run of each, restarting its period
				time.Sleep(1800 * time.Millisecond)
				h.m.RemovePod(pod)
				synctest.Wait()
				if n := h.m.workerCount(); n != 0 {
					t.Errorf("%d workers after RemovePod", n)
				}
				if grown := bubbleGoroutines() - before; grown != 0 {
					t.Errorf("%d goroutines left after RemovePod", grown)
				}
				for _, c := range cs {
					if got, want := h.probes.starts(c.Name), secs(0, 1, 1.5, 2.5); !slices.Equal(got, want) {
						t.Errorf("%s ran at %v, want %v", c.Name, got, want)
					}
				}
				h.close()
			})
		})
	}
}
