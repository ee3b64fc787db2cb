//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// gateWindow is how long each phase watches the metrics: at a 1 s period the
// pod's two probes run ~10 times each, so a scheduler that still ran them
// could not hide, and a prober that stopped would show.
const gateWindow = 5 * time.Second

// TestFeatureGateRollback rolls the node's kubelet back to upstream's prober
// loop and forward again the way docs/operating.md tells a platform team to:
// restart with --feature-gates ProbeTimerWheel=false, then without the flag
// (the fork's default, on). With the gate off the prober_scheduler_* series
// must go quiet (no run reaches the wheel's histograms, no scheduler gauge); with it
// on they move again; the probes run in both, and the pod neither loses
// readiness nor restarts across the two restarts.
//
// Not parallel: it restarts the kubelet.
func TestFeatureGateRollback(t *testing.T) {
	if !isProbewheel() {
		t.Skipf("kubelet %s is not probewheel: it has no ProbeTimerWheel gate", kubeletVersion)
	}
	ns := newNamespace(t)
	c := targetContainer("target")
	c.ReadinessProbe = &v1.Probe{ProbeHandler: httpProbe("readiness"), PeriodSeconds: 1, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 1}
	c.LivenessProbe = &v1.Probe{ProbeHandler: tcpProbe(), PeriodSeconds: 1, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	createPod(t, ns, targetPod("gate", c))
	waitRunning(t, ns, "gate", "target")
	waitPod(t, ns, "gate", 2*time.Minute, "Ready", podReady)
	// Past upstream's 10 s restart grace window, so that the restarts below
	// keep the container's readiness (TestKubeletRestart explains why).
	time.Sleep(restartGrace)

	gateOff := false
	t.Cleanup(func() {
		if gateOff {
			restartKubelet(t, "--feature-gates", "")
		}
	})
	for _, phase := range []struct {
		name  string
		gates string
		wheel bool
	}{
		{"gate off", "ProbeTimerWheel=false", false},
		{"gate on (default)", "", true},
	} {
		restartKubelet(t, "--feature-gates", phase.gates)
		gateOff = !phase.wheel
		// A new kubelet process: its counters start at zero. Wait until it
		// probes the pod again.
		waitFor(t, time.Minute, phase.name+": the pod probed by the new kubelet", func(context.Context) (bool, error) {
			text, err := tryProbeMetrics()
			if err != nil {
				return false, nil
			}
			v, _ := metricValue(text, "prober_probe_total", `namespace="`+ns+`"`, `probe_type="Readiness"`, `result="successful"`)
			return v >= 2, nil
		})
		before := probeMetrics(t)
		holds(t, ns, "gate", gateWindow, phase.name+": Ready, no restart", func(p *v1.Pod) bool {
			cs := containerStatus(p, "target")
			return podReady(p) && cs != nil && cs.RestartCount == 0
		})
		after := probeMetrics(t)

		delta := func(name string, labels ...string) float64 {
			a, _ := metricValue(after, name, labels...)
			b, _ := metricValue(before, name, labels...)
			return a - b
		}
		runs := delta("prober_probe_total", `namespace="`+ns+`"`)
		started := delta("prober_scheduler_start_lateness_seconds_count")
		_, registered := metricValue(after, "prober_scheduler_start_lateness_seconds_count")
		// The gauge of runs in flight exists only while a scheduler does (gate on).
		_, scheduler := metricValue(after, "prober_scheduler_probes_in_flight")
		t.Logf("%s: %v probe runs of the pod, %v runs through the wheel (whole node), scheduler gauge %v, in %v",
			phase.name, runs, started, scheduler, gateWindow)
		// Two 1 s probes over the window: ~10 runs; half of that leaves
		// room for a loaded machine and still fails a prober that stopped.
		if runs < 5 {
			t.Errorf("%s: the pod's probes ran %v times in %v, want >= 5", phase.name, runs, gateWindow)
		}
		if !registered {
			t.Errorf("%s: no prober_scheduler_start_lateness_seconds on /metrics/probes (registered in both modes)", phase.name)
		}
		if phase.wheel {
			if started < runs || !scheduler {
				t.Errorf("%s: the wheel started %v runs (want >= the pod's %v), prober_scheduler_probes_in_flight reported: %v (want true)", phase.name, started, runs, scheduler)
			}
		} else if started != 0 || scheduler {
			t.Errorf("%s: the wheel started %v runs, prober_scheduler_probes_in_flight reported: %v; want 0 and false (upstream's loop runs the probes)", phase.name, started, scheduler)
		}
	}
}

// tryProbeMetrics is probeMetrics for a kubelet that may not serve yet.
func tryProbeMetrics() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := client.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", nodeName, "proxy", "metrics", "probes").DoRaw(ctx)
	return string(b), err
}
