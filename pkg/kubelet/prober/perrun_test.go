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

// Per-run work that probewheel does once, or not at all, must give what
// upstream's per-run code gives (doc.go, "Per-run work").

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/utils/ptr"
)

func TestSameContainerID(t *testing.T) {
	tests := []struct {
		id kubecontainer.ContainerID
		s  string
	}{
		{kubecontainer.ContainerID{Type: "containerd", ID: "abc"}, "containerd://abc"},
		{kubecontainer.ContainerID{Type: "containerd", ID: "abc"}, "containerd://abcd"},
		{kubecontainer.ContainerID{Type: "containerd", ID: "abc"}, "docker://abc"},
		{kubecontainer.ContainerID{Type: "containerd", ID: "abc"}, "containerd:/abc"},
		{kubecontainer.ContainerID{Type: "containerd", ID: "abc"}, "containerd"},
		{kubecontainer.ContainerID{Type: "a:", ID: "//b"}, "a:://://b"},
		{kubecontainer.ContainerID{}, "://"},
		{kubecontainer.ContainerID{}, ""},
		{kubecontainer.ContainerID{Type: "test", ID: ""}, "test://"},
	}
	for _, tc := range tests {
		if got, want := sameContainerID(tc.id, tc.s), tc.id.String() == tc.s; got != want {
			t.Errorf("sameContainerID(%#v, %q) = %v, want %v", tc.id, tc.s, got, want)
		}
	}
}

// commandRunner records the commands of exec probes: a copy of each, and
// each as given.
type commandRunner struct {
	mu    sync.Mutex
	cmds  [][]string
	given [][]string
}

func (r *commandRunner) RunInContainer(_ context.Context, _ kubecontainer.ContainerID, cmd []string, _ time.Duration) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cmds = append(r.cmds, slices.Clone(cmd))
	r.given = append(r.given, cmd)
	return nil, nil
}

// TestExecCommandExpandedOnce: the command a worker runs, expanded at its
// first run and reused by the next, is the command upstream expands on every
// run; a command without a '$' is the spec's own.
func TestExecCommandExpandedOnce(t *testing.T) {
	tests := []struct {
		name    string
		command []string
		env     []v1.EnvVar
	}{
		{"no command", nil, nil},
		{"no references", []string{"/bin/check", "--ready"}, []v1.EnvVar{{Name: "MODE", Value: "ready"}}},
		{"references", []string{"check", "$(MODE)", "$$(MODE)", "$(MISSING)", "x$(MODE)y"}, []v1.EnvVar{{Name: "MODE", Value: "ready"}}},
		{"a reference to a reference", []string{"$(B)"}, []v1.EnvVar{{Name: "A", Value: "a"}, {Name: "B", Value: "$(A)"}}},
		{"a value from a source", []string{"$(POD)"}, []v1.EnvVar{{Name: "POD", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}},
		{"dollars that are no references", []string{"echo", "$$", "a$b", "$"}, []v1.EnvVar{{Name: "b", Value: "x"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestManager()
			runner := &commandRunner{}
			m.prober.runner = runner
			m.prober.exec = newProber(runner, nil).exec // the real exec prober
			p := execProbe(1)
			p.Exec.Command = tc.command
			pod := podWith("p", v1.Container{Name: "c", Env: tc.env, LivenessProbe: p})
			w := newWorker(m, liveness, pod, pod.Spec.Containers[0])
			id := kubecontainer.ContainerID{Type: "test", ID: "p/c"}
			ctx := context.Background()
			if _, err := m.prober.probe(ctx, liveness, pod, v1.PodStatus{}, *w.container, id); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := m.prober.probeWith(ctx, liveness, pod, v1.PodStatus{}, w.container, id, &w.cache); err != nil {
					t.Fatal(err)
				}
			}
			if len(runner.cmds) != 3 || !slices.Equal(runner.cmds[0], runner.cmds[1]) || !slices.Equal(runner.cmds[0], runner.cmds[2]) {
				t.Fatalf("upstream's path ran %q, the worker's %q", runner.cmds[0], runner.cmds[1:])
			}
			if len(tc.command) > 0 && &runner.given[1][0] != &runner.given[2][0] {
				t.Error("the worker's second run expanded the command again")
			}
			noDollar := !slices.ContainsFunc(tc.command, func(a string) bool { return strings.Contains(a, "$") })
			if own := len(tc.command) > 0 && &runner.given[1][0] == &tc.command[0]; own != (noDollar && len(tc.command) > 0) {
				t.Errorf("the worker runs the spec's own command: %v, want %v", own, noDollar && len(tc.command) > 0)
			}
		})
	}
}

// TestWorkerSharesThePodsContainer: a worker points at its pod's container
// instead of copying it, unless it was given one the pod does not have.
func TestWorkerSharesThePodsContainer(t *testing.T) {
	sidecar := v1.Container{Name: "sidecar", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways), ReadinessProbe: execProbe(1)}
	pod := podWith("p", v1.Container{Name: "c", Image: "app:1", ReadinessProbe: execProbe(1)})
	pod.Spec.InitContainers = []v1.Container{sidecar}
	changed := pod.Spec.Containers[0]
	changed.Image = "app:2"
	tests := []struct {
		name      string
		container v1.Container
		want      *v1.Container // nil: a copy of container
	}{
		{"a container of the pod", pod.Spec.Containers[0], &pod.Spec.Containers[0]},
		{"a restartable init container", sidecar, &pod.Spec.InitContainers[0]},
		{"one the pod does not have", v1.Container{Name: "other"}, nil},
		{"a changed copy", changed, nil},
	}
	m := newTestManager()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorker(m, readiness, pod, tc.container)
			if tc.want != nil && w.container != tc.want {
				t.Error("the worker copied the pod's container")
			}
			if tc.want == nil && (w.container.Name != tc.container.Name || w.container.Image != tc.container.Image) {
				t.Errorf("the worker probes %+v, want %+v", *w.container, tc.container)
			}
		})
	}
}

// execProbe returns an exec probe with the given period and the API defaults.
func execProbe(period int32) *v1.Probe {
	return &v1.Probe{
		ProbeHandler:     v1.ProbeHandler{Exec: &v1.ExecAction{}},
		PeriodSeconds:    period,
		TimeoutSeconds:   1,
		SuccessThreshold: 1,
		FailureThreshold: 3,
	}
}

// podWith returns a running pod whose containers have the given probes.
func podWith(uid string, containers ...v1.Container) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: uid, Namespace: "ns"},
		Spec:       v1.PodSpec{Containers: containers},
	}
}
