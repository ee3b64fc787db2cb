//go:build !probewheel_export

// Module-only: a stand-in for the gates series/03-feature-gate registers in the kubernetes tree; never exported.

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

// Package features stands in, inside the probewheel module, for the patched
// k8s.io/kubernetes/pkg/features: the code under pkg/ imports this package,
// and the export to the kubernetes tree rewrites the import to the real one,
// where kube_features.go, as series/03-feature-gate changes it,
// registers ProbeTimerWheel. Here it re-exports the upstream gates that code uses and
// registers ProbeTimerWheel and ProbeExecLimit with the same specs.
package features

import (
	"k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	upstream "k8s.io/kubernetes/pkg/features"
)

// The upstream gates the probewheel code reads.
const (
	ChangeContainerStatusOnKubeletRestart = upstream.ChangeContainerStatusOnKubeletRestart
	ContainerRestartRules                 = upstream.ContainerRestartRules
	RestartAllContainersOnContainerExits  = upstream.RestartAllContainersOnContainerExits
)

// ProbeTimerWheel and ProbeExecLimit are the gates series/03-feature-gate adds to kube_features.go.
const (
	ProbeTimerWheel featuregate.Feature = "ProbeTimerWheel"
	ProbeExecLimit  featuregate.Feature = "ProbeExecLimit"
)

// probeTimerWheelDefault and probeExecLimitDefault are set with -ldflags=-X, as in the tree.
var (
	probeTimerWheelDefault = "true"
	probeExecLimitDefault  = "true"
)

func init() {
	runtime.Must(utilfeature.DefaultMutableFeatureGate.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		ProbeTimerWheel: {
			{Version: version.MustParse("1.36"), Default: probeTimerWheelDefault != "false", PreRelease: featuregate.Beta},
		},
		ProbeExecLimit: {
			{Version: version.MustParse("1.36"), Default: probeExecLimitDefault != "false", PreRelease: featuregate.Beta},
		},
	}))
	runtime.Must(utilfeature.DefaultMutableFeatureGate.AddDependencies(map[featuregate.Feature][]featuregate.Feature{
		ProbeTimerWheel: {},
		ProbeExecLimit:  {},
	}))
}
