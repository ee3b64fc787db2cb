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
	"math"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// TestProbePeriod: every period the API server accepts is used as it is; one
// that is not positive, which upstream's time.NewTicker would panic on, is
// the API default.
func TestProbePeriod(t *testing.T) {
	tests := []struct {
		seconds int32
		want    time.Duration
	}{
		{1, time.Second},
		{10, 10 * time.Second},
		{90_000, 90_000 * time.Second},
		{math.MaxInt32, math.MaxInt32 * time.Second},
		{0, fallbackPeriodSeconds * time.Second},
		{-5, fallbackPeriodSeconds * time.Second},
		{math.MinInt32, fallbackPeriodSeconds * time.Second},
	}
	for _, tc := range tests {
		p := execProbe(tc.seconds)
		w := &worker{spec: p, probeType: readiness, pod: podWith("p"), container: &v1.Container{Name: "c", ReadinessProbe: p}}
		if got := probePeriod(context.Background(), w); got != tc.want {
			t.Errorf("periodSeconds %d: period %v, want %v", tc.seconds, got, tc.want)
		}
	}
}
