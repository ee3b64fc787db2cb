package reliability

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"

	"github.com/probewheel/probewheel/bench"
)

// TestSoakCatches: the soak's checks are not blind. probewheel's manager
// with a fault planted around it fails them.
func TestSoakCatches(t *testing.T) {
	cfg := SoakConfig{Pods: 40, Waves: 4, Wave: 12 * time.Second, Period: 2 * time.Second, Churn: 0.25, Restart: 0.1, Flip: 0.5}
	tests := []struct {
		name string
		// The fault: a wrapper of the manager or of the readiness results
		// manager it writes to.
		manager func(bench.Manager) bench.Manager
		ready   func(results.Manager) results.Manager
	}{
		{name: "RemovePod leaves the workers running",
			manager: func(m bench.Manager) bench.Manager { return &ignoresRemove{Manager: m} }},
		{name: "a readiness change now and then is never reported",
			ready: func(r results.Manager) results.Manager {
				return &swallowsChanges{Manager: r, swallowed: map[kubecontainer.ContainerID]results.Result{}}
			}},
	}
	probewheel, ok := bench.ImplNamed("probewheel")
	if !ok {
		t.Fatal("no probewheel in bench.Impls")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var failures []string
			synctest.Test(t, func(t *testing.T) {
				var mgr bench.Manager
				mutant := bench.Mutant(probewheel, func(kind string, m results.Manager) results.Manager {
					if kind == "readiness" && tc.ready != nil {
						return tc.ready(m)
					}
					return m
				}, func(m bench.Manager) bench.Manager {
					if tc.manager != nil {
						m = tc.manager(m)
					}
					mgr = m
					return m
				})
				r := RunSoak(mutant, cfg, "mutant", func(string, ...any) {})
				checkSoak(func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }, r)
				// What the fault left running must end with the bubble.
				mgr.CleanupPods(map[types.UID]sets.Empty{})
				time.Sleep(2 * cfg.Period)
			})
			if len(failures) == 0 {
				t.Error("the soak's checks found nothing wrong")
			}
			t.Logf("found: %q", failures)
		})
	}
}

type ignoresRemove struct{ bench.Manager }

func (m *ignoresRemove) RemovePod(*v1.Pod) {}

// swallowsChanges drops every seventh change of a readiness result, and the
// Sets that repeat it: the change never reaches the cache or the kubelet.
type swallowsChanges struct {
	results.Manager
	mu        sync.Mutex
	changes   int
	swallowed map[kubecontainer.ContainerID]results.Result
}

func (m *swallowsChanges) Set(id kubecontainer.ContainerID, result results.Result, pod *v1.Pod) {
	m.mu.Lock()
	if prev, ok := m.Manager.Get(id); !ok || prev != result {
		if r, ok := m.swallowed[id]; ok && r == result {
			m.mu.Unlock()
			return
		}
		delete(m.swallowed, id)
		if m.changes++; m.changes%7 == 0 {
			m.swallowed[id] = result
			m.mu.Unlock()
			return
		}
	}
	m.mu.Unlock()
	m.Manager.Set(id, result, pod)
}
