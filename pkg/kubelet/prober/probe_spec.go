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

	v1 "k8s.io/api/core/v1"
)

// The API server rejects probes whose period, timeout or thresholds are not
// positive, and defaults them when unset; but static pods and pods from a
// file or URL source reach the kubelet without that validation. Upstream
// panics on a zero period (a ticker needs a positive one) and runs a zero
// timeout as "no timeout". probewheel replaces such values with the API
// defaults instead. A period or timeout above maxProbeSeconds is taken for a
// typo: it would hold an executor slot or a wheel timer for longer than any
// real probe.
const (
	defaultPeriodSeconds    = 10
	defaultTimeoutSeconds   = 1
	defaultSuccessThreshold = 1
	defaultFailureThreshold = 3
	maxProbeSeconds         = 24 * 60 * 60
)

// probeLimits lists the fields sanitizeProbe checks; max 0 means unbounded.
var probeLimits = []struct {
	name     string
	field    func(*v1.Probe) *int32
	def, max int32
}{
	{"periodSeconds", func(p *v1.Probe) *int32 { return &p.PeriodSeconds }, defaultPeriodSeconds, maxProbeSeconds},
	{"timeoutSeconds", func(p *v1.Probe) *int32 { return &p.TimeoutSeconds }, defaultTimeoutSeconds, maxProbeSeconds},
	{"successThreshold", func(p *v1.Probe) *int32 { return &p.SuccessThreshold }, defaultSuccessThreshold, 0},
	{"failureThreshold", func(p *v1.Probe) *int32 { return &p.FailureThreshold }, defaultFailureThreshold, 0},
}

// sanitizeProbe returns p, or a copy of p with out-of-range values replaced
// by the API defaults and a description of each replacement. A nil p stays
// nil.
func sanitizeProbe(p *v1.Probe) (*v1.Probe, []string) {
	if p == nil {
		return nil, nil
	}
	fixed := p
	var fixes []string
	for _, l := range probeLimits {
		v := *l.field(p)
		if v > 0 && (l.max == 0 || v <= l.max) {
			continue
		}
		if fixed == p {
			fixed = p.DeepCopy()
		}
		*l.field(fixed) = l.def
		fixes = append(fixes, fmt.Sprintf("%s=%d→%d", l.name, v, l.def))
	}
	return fixed, fixes
}
