package parity

import (
	"math"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
)

func execProbe(periodSeconds int32) *v1.Probe {
	return &v1.Probe{
		ProbeHandler:     v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"check"}}},
		PeriodSeconds:    periodSeconds,
		TimeoutSeconds:   1,
		SuccessThreshold: 1,
		FailureThreshold: 3,
	}
}

// TestRunsAfterAnOverrun: a run that outlasts its period is followed at once
// by the next one, as upstream's ticker keeps one tick for a busy receiver.
func TestRunsAfterAnOverrun(t *testing.T) {
	tests := []struct {
		name string
		hang time.Duration
		want []time.Duration
	}{
		{"within the period", 900 * time.Millisecond, secs(0, 1, 2, 3, 4)},
		{"exactly one period", time.Second, secs(0, 1, 2, 3, 4)},
		{"one and a half periods", 1500 * time.Millisecond, secs(0, 1.5, 3, 4.5, 6)},
		{"two periods", 2 * time.Second, secs(0, 2, 4, 6, 8)},
		{"two and a half periods", 2500 * time.Millisecond, secs(0, 2.5, 5, 7.5, 10)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sideBySide(t, func(n *node) []time.Duration {
				n.afterStart(time.Second)
				n.runner.set("c", tc.hang, false)
				n.addPod("c", v1.Container{LivenessProbe: execProbe(1)})
				stop := tc.want[len(tc.want)-1] + tc.hang/2
				time.Sleep(stop)
				n.close(tc.hang)
				return startedBefore(n.runner.startsOf("c"), stop)
			})
			for impl, starts := range got {
				if !slices.Equal(starts, tc.want) {
					t.Errorf("%s: runs at %s, want %v", impl, brief(starts), tc.want)
				}
			}
		})
	}
}

// startedBefore drops the runs that started after a stop request: when such
// a run ends on a tick, upstream's select picks the stop or the tick at
// random (probewheel: the stop, doc.go).
func startedBefore(starts []time.Duration, stop time.Duration) []time.Duration {
	return slices.DeleteFunc(starts, func(d time.Duration) bool { return d > stop })
}

// TestFailureAfterOverruns: a liveness probe that fails after 1.5 s on a
// 1 s period with failureThreshold 3 is reported at 4.5 s.
func TestFailureAfterOverruns(t *testing.T) {
	got := sideBySide(t, func(n *node) []time.Duration {
		n.afterStart(time.Second)
		n.runner.set("c", 1500*time.Millisecond, true)
		n.addPod("c", v1.Container{LivenessProbe: execProbe(1)})
		time.Sleep(6 * time.Second)
		n.close(1500 * time.Millisecond)
		var failed []time.Duration
		for _, u := range n.updatesOf("liveness") {
			if u.Result == results.Failure {
				failed = append(failed, u.at)
			}
		}
		return failed
	})
	for impl, failed := range got {
		if want := secs(4.5); !slices.Equal(failed, want) {
			t.Errorf("%s: liveness failure reported at %v, want %v", impl, failed, want)
		}
	}
}

// TestSpecsAsAccepted: the API server bounds no period or timeout from above;
// both managers probe with the values as given.
func TestSpecsAsAccepted(t *testing.T) {
	type observed struct {
		starts  []time.Duration
		timeout time.Duration
	}
	tests := []struct {
		name   string
		mutate func(*v1.Probe)
		want   observed
	}{
		{"period of 25 hours", func(p *v1.Probe) { p.PeriodSeconds = 90_000 }, observed{secs(0, 90_000, 180_000), time.Second}},
		{"largest period", func(p *v1.Probe) { p.PeriodSeconds = math.MaxInt32 }, observed{secs(0), time.Second}},
		{"timeout of 28 hours", func(p *v1.Probe) { p.TimeoutSeconds = 100_000 }, observed{secs(0, 1, 2), 100_000 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sideBySide(t, func(n *node) observed {
				p := execProbe(1)
				tc.mutate(p)
				n.afterStart(time.Duration(p.PeriodSeconds) * time.Second)
				n.addPod("c", v1.Container{LivenessProbe: p})
				time.Sleep(tc.want.starts[len(tc.want.starts)-1] + time.Second/2)
				n.close(0)
				n.runner.mu.Lock()
				defer n.runner.mu.Unlock()
				return observed{slices.Clone(n.runner.starts["c"]), n.runner.timeouts["c"]}
			})
			for impl, o := range got {
				if !slices.Equal(o.starts, tc.want.starts) || o.timeout != tc.want.timeout {
					t.Errorf("%s: runs at %s with timeout %v, want %v with %v", impl, brief(o.starts), o.timeout, tc.want.starts, tc.want.timeout)
				}
			}
		})
	}
}

// TestManualTrigger: UpdatePodStatus on a container that is not ready runs
// its readiness probe at once and restarts the period from there; a trigger
// during a run runs when it ends.
func TestManualTrigger(t *testing.T) {
	tests := []struct {
		name    string
		hang    time.Duration
		trigger time.Duration
		want    []time.Duration
	}{
		{"while waiting", 0, 3 * time.Second, secs(0, 3, 13, 23)},
		{"while running", 2 * time.Second, time.Second, secs(0, 2, 12, 22)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sideBySide(t, func(n *node) []time.Duration {
				n.afterStart(10 * time.Second)
				n.runner.set("c", tc.hang, true)
				pod := n.addPod("c", v1.Container{ReadinessProbe: execProbe(10)})
				time.Sleep(tc.trigger)
				n.updatePodStatus(pod)
				time.Sleep(25*time.Second - tc.trigger)
				n.close(tc.hang)
				return n.runner.startsOf("c")
			})
			for impl, starts := range got {
				if !slices.Equal(starts, tc.want) {
					t.Errorf("%s: runs at %s, want %v", impl, brief(starts), tc.want)
				}
			}
		})
	}
}

// TestStopBeforeTheFirstRun: a worker stopped during its start-up sleep
// probes once when the sleep ends, then exits. When upstream's sleep ends is
// random; how often it probes is not.
func TestStopBeforeTheFirstRun(t *testing.T) {
	got := sideBySide(t, func(n *node) int {
		pod := n.addPod("c", v1.Container{LivenessProbe: execProbe(10), ReadinessProbe: execProbe(10)})
		n.mgr.RemovePod(pod)
		time.Sleep(10 * time.Second)
		n.close(0)
		return len(n.runner.startsOf("c"))
	})
	for impl, runs := range got {
		if runs != 2 {
			t.Errorf("%s: two probes stopped before their first run probed %d times in all, want once each", impl, runs)
		}
	}
}
