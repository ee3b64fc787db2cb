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
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestRemoveWorkerRemovesOnlyItself: a worker that exits after another worker
// took its key (the same pod UID, container and probe type) leaves the new
// one in place; upstream deleted the key, whoever held it.
func TestRemoveWorkerRemovesOnlyItself(t *testing.T) {
	m := newTestManager()
	pod := podWith("p", v1.Container{Name: "c", ReadinessProbe: execProbe(1)})
	old := newWorker(m, readiness, pod, pod.Spec.Containers[0])
	current := newWorker(m, readiness, pod, pod.Spec.Containers[0])
	key := probeKey{pod.UID, "c", readiness}
	m.workers[key] = current

	m.removeWorker(old)
	if got, ok := m.getWorker(pod.UID, "c", readiness); !ok || got != current {
		t.Fatalf("after the old worker's removeWorker, the key holds %p (present %v), want the current worker %p", got, ok, current)
	}
	m.removeWorker(current)
	if _, ok := m.getWorker(pod.UID, "c", readiness); ok {
		t.Fatal("after the current worker's removeWorker, the key is still held")
	}
}
