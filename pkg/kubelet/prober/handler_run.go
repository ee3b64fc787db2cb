//go:build !probewheel_export

// Module-only: what bench/'s BenchmarkRunProbe runs of the package; the kubelet never builds it.

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

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/probe"
)

// HandlerRun returns one readiness run of p's handler as a worker makes it:
// the prober's runProbe with one worker's run cache, kept across the calls.
func HandlerRun(p *v1.Probe, pod *v1.Pod, status v1.PodStatus, container *v1.Container) func(context.Context) (probe.Result, string, error) {
	pb := newProber(nil, &record.FakeRecorder{})
	cache := &runCache{}
	return func(ctx context.Context) (probe.Result, string, error) {
		return pb.runProbe(ctx, readiness, p, pod, status, container, kubecontainer.ContainerID{}, cache)
	}
}
