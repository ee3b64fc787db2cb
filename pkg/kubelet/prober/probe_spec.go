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
	"time"

	"k8s.io/klog/v2"
)

// fallbackPeriodSeconds is the period used for a probe whose periodSeconds
// is not positive: the API default, which is what the API server (and the
// kubelet's static pod decoder) put in place of a zero.
const fallbackPeriodSeconds = 10

// probePeriod returns w's probe period. Every value the API server accepts
// is used as it is, however large: validation sets no upper bound, and
// timeouts and thresholds reach the prober and doProbe unchanged. A period
// that is not positive cannot reach the kubelet through the API (zero is
// defaulted, negatives are rejected, static pods included); upstream's
// worker would panic in time.NewTicker on one and take the kubelet down.
// Such a period is logged once and replaced by the API default.
func probePeriod(ctx context.Context, w *worker) time.Duration {
	if w.spec.PeriodSeconds > 0 {
		return time.Duration(w.spec.PeriodSeconds) * time.Second
	}
	klog.FromContext(ctx).Info("Probe has a periodSeconds that is not positive, probing at the API default instead",
		"probeType", w.probeType, "pod", klog.KObj(w.pod), "containerName", w.container.Name,
		"periodSeconds", w.spec.PeriodSeconds, "usedPeriodSeconds", fallbackPeriodSeconds)
	return fallbackPeriodSeconds * time.Second
}
