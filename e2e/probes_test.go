//go:build e2e

package e2e

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// handlerCase is one probe handler kind and the probetarget check it asks about.
type handlerCase struct {
	name    string
	handler v1.ProbeHandler
	check   string
}

// handlerCases returns one case per handler kind; HTTP, gRPC and exec ask
// about check, TCP about the target's tcp check (its listener).
func handlerCases(check string) []handlerCase {
	return []handlerCase{
		{"http", httpProbe(check), check},
		{"tcp", tcpProbe(), "tcp"},
		{"grpc", grpcProbe(check), check},
		{"exec", execProbe(check), check},
	}
}

// TestReadinessHandlers: a readiness probe of each handler kind flips the pod
// Ready and back as its check changes (starts failing, then ok, then failing).
func TestReadinessHandlers(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	for _, tc := range handlerCases("readiness") {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := targetContainer("target", "--fail="+tc.check)
			c.ReadinessProbe = probe(tc.handler)
			name := "readiness-" + tc.name
			createPod(t, ns, targetPod(name, c))
			p := waitRunning(t, ns, name, "target")
			holds(t, ns, name, 3*time.Second, "not Ready while "+tc.check+" fails", func(p *v1.Pod) bool { return !podReady(p) })

			setCheck(t, p.Status.PodIP, portAdmin, tc.check, "ok")
			start := time.Now()
			waitPod(t, ns, name, 30*time.Second, "Ready", podReady)
			t.Logf("%s: Ready %v after the check turned ok", tc.name, time.Since(start).Round(time.Millisecond))

			setCheck(t, p.Status.PodIP, portAdmin, tc.check, "fail")
			start = time.Now()
			p = waitPod(t, ns, name, 30*time.Second, "not Ready", func(p *v1.Pod) bool { return !podReady(p) })
			t.Logf("%s: not Ready %v after the check failed", tc.name, time.Since(start).Round(time.Millisecond))
			if rc := containerStatus(p, "target").RestartCount; rc != 0 {
				t.Errorf("readiness failures restarted the container (%d restarts)", rc)
			}
		})
	}
}

// TestLivenessRestart: a failing liveness probe (each handler) restarts the
// container; the new container starts with its checks ok, so it stays up.
func TestLivenessRestart(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	for _, tc := range handlerCases("liveness") {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := targetContainer("target")
			c.LivenessProbe = probe(tc.handler)
			c.LivenessProbe.FailureThreshold = 2
			name := "liveness-" + tc.name
			createPod(t, ns, targetPod(name, c))
			p := waitRunning(t, ns, name, "target")
			holds(t, ns, name, 3*time.Second, "no restart while healthy", func(p *v1.Pod) bool {
				return containerStatus(p, "target").RestartCount == 0
			})
			setCheck(t, p.Status.PodIP, portAdmin, tc.check, "fail")
			start := time.Now()
			p = waitPod(t, ns, name, 60*time.Second, "restarted", func(p *v1.Pod) bool {
				cs := containerStatus(p, "target")
				return cs.RestartCount >= 1 && cs.State.Running != nil
			})
			t.Logf("%s: restarted %v after liveness started failing", tc.name, time.Since(start).Round(time.Millisecond))
			cs := containerStatus(p, "target")
			if cs.LastTerminationState.Terminated == nil {
				t.Errorf("no lastState.terminated after a liveness restart: restarts %d, state %s, last %s", cs.RestartCount, stateString(cs.State), stateString(cs.LastTerminationState))
			}
			holds(t, ns, name, 4*time.Second, "no further restart (new container is healthy)", func(p *v1.Pod) bool {
				return containerStatus(p, "target").RestartCount == 1
			})
			// What `kubectl describe pod` shows: the kubelet's events, as upstream words them.
			waitEvent(t, ns, name, "Unhealthy", "Liveness probe failed")
			waitEvent(t, ns, name, "Killing", "failed liveness probe, will be restarted")
		})
	}
}

// TestStartupProbeGates: while the startup probe fails, neither readiness nor
// liveness runs (a failing liveness probe does not restart, a passing
// readiness probe does not make the pod Ready); once it passes they do.
func TestStartupProbeGates(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startup := probe(execProbe("startup"))
	startup.FailureThreshold = 120

	t.Run("readiness", func(t *testing.T) {
		t.Parallel()
		c := targetContainer("target", "--fail=startup")
		c.StartupProbe = startup
		c.ReadinessProbe = probe(httpProbe("readiness"))
		createPod(t, ns, targetPod("gated-readiness", c))
		p := waitRunning(t, ns, "gated-readiness", "target")
		holds(t, ns, "gated-readiness", 5*time.Second, "not started, not Ready", func(p *v1.Pod) bool {
			cs := containerStatus(p, "target")
			return !podReady(p) && !deref(cs.Started)
		})
		setCheck(t, p.Status.PodIP, portAdmin, "startup", "ok")
		waitPod(t, ns, "gated-readiness", 30*time.Second, "started and Ready", func(p *v1.Pod) bool {
			return deref(containerStatus(p, "target").Started) && podReady(p)
		})
	})
	t.Run("liveness", func(t *testing.T) {
		t.Parallel()
		c := targetContainer("target", "--fail=startup,liveness")
		c.StartupProbe = startup
		c.LivenessProbe = probe(httpProbe("liveness"))
		createPod(t, ns, targetPod("gated-liveness", c))
		p := waitRunning(t, ns, "gated-liveness", "target")
		holds(t, ns, "gated-liveness", 5*time.Second, "no restart while not started", func(p *v1.Pod) bool {
			cs := containerStatus(p, "target")
			return cs.RestartCount == 0 && !deref(cs.Started)
		})
		stats, _ := admin(context.Background(), p.Status.PodIP, portAdmin, "GET", "/stats")
		if strings.Contains(stats, `"http/liveness"`) {
			t.Errorf("liveness probe ran before the startup probe passed: %s", stats)
		}
		setCheck(t, p.Status.PodIP, portAdmin, "startup", "ok")
		waitPod(t, ns, "gated-liveness", 60*time.Second, "restarted by liveness once started", func(p *v1.Pod) bool {
			return containerStatus(p, "target").RestartCount >= 1
		})
	})
}

// TestInitialDelay: no readiness probe runs before initialDelaySeconds.
// Checked where the kubelet acts (the target's record of when it was probed),
// not on the status round trip, whose lag under load is not the prober's.
func TestInitialDelay(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	const delay = 8
	c := targetContainer("target")
	c.ReadinessProbe = probe(httpProbe("readiness"))
	c.ReadinessProbe.InitialDelaySeconds = delay
	createPod(t, ns, targetPod("initial-delay", c))
	p := waitRunning(t, ns, "initial-delay", "target")
	p = waitPod(t, ns, "initial-delay", 60*time.Second, "Ready", podReady)
	// StartedAt is truncated to the second, so it is at or before the start
	// the kubelet counts the delay from: a probe is never less than delay
	// after it.
	started := containerStatus(p, "target").State.Running.StartedAt.Time
	var readyAt time.Time
	for _, cond := range p.Status.Conditions {
		if cond.Type == v1.PodReady {
			readyAt = cond.LastTransitionTime.Time
		}
	}
	calls := probeCalls(t, p.Status.PodIP, "http/readiness", started.Add(-time.Minute), time.Now())
	if len(calls) == 0 {
		t.Fatalf("Ready, but the target saw no readiness probe")
	}
	t.Logf("container started %v; first readiness probe +%v; Ready +%v (%d probes so far)",
		started, calls[0].Sub(started).Round(time.Millisecond), readyAt.Sub(started), len(calls))
	if early := calls[0].Sub(started); early < delay*time.Second-100*time.Millisecond {
		t.Errorf("first readiness probe %v after the container started, before initialDelaySeconds %d", early, delay)
	}
	// Both timestamps have 1 s resolution.
	if got := readyAt.Sub(started); got < (delay-1)*time.Second {
		t.Errorf("Ready %v after the container started, before initialDelaySeconds %d", got, delay)
	}
}

// TestThresholds: failureThreshold and successThreshold count consecutive
// results. Each transition must come after at least three probes with the new
// outcome, which at a 1 s period take at least 2 s. Both bounds are checked
// against the target's record of when the kubelet probed it, so a slow status
// round trip on a loaded machine cannot make them fail; how late a transition
// may be is the in-process suites' business (exact, on a fake clock), here
// it only has to happen.
func TestThresholds(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	c := targetContainer("target")
	c.ReadinessProbe = probe(httpProbe("readiness"))
	c.ReadinessProbe.FailureThreshold = 3
	c.ReadinessProbe.SuccessThreshold = 3
	createPod(t, ns, targetPod("thresholds", c))
	p := waitRunning(t, ns, "thresholds", "target")
	waitPod(t, ns, "thresholds", 60*time.Second, "Ready", podReady)

	timeout := time.Duration(c.ReadinessProbe.TimeoutSeconds) * time.Second
	for _, step := range []struct {
		state, want string
		cond        func(*v1.Pod) bool
	}{
		{"fail", "not Ready", func(p *v1.Pod) bool { return !podReady(p) }},
		{"ok", "Ready", podReady},
	} {
		// A probe answered with the new outcome reached the target at most
		// a probe timeout before the switch (one in flight, answered after
		// it); so the probes since then are an upper bound on the results
		// with the new outcome the kubelet can have acted on.
		start := time.Now()
		setCheck(t, p.Status.PodIP, portAdmin, "readiness", step.state)
		waitPod(t, ns, "thresholds", 60*time.Second, step.want, step.cond)
		seen := time.Now()
		calls := probeCalls(t, p.Status.PodIP, "http/readiness", start.Add(-timeout), seen)
		t.Logf("check %s: %s seen after %v, %d probes from a timeout before the switch", step.state, step.want, seen.Sub(start).Round(time.Millisecond), len(calls))
		if len(calls) < 3 {
			t.Errorf("%s after only %d probes since the check turned %s: the threshold is 3 consecutive results", step.want, len(calls), step.state)
			continue
		}
		// Three consecutive runs take two ticks of the probe's ticker: the
		// third starts at least 2 s after the first, and the earliest probe
		// counted is at or before the first with the new outcome.
		if d := seen.Sub(calls[0]); d < 1900*time.Millisecond {
			t.Errorf("%s %v after the earliest probe that can have seen the new outcome: three consecutive results at a 1 s period take at least 2 s", step.want, d)
		}
	}
}

// TestSidecarProbes: a restartable init container (sidecar) with startup,
// readiness and liveness probes: the main container starts only after the
// sidecar's startup probe passes; the sidecar's readiness gates the pod's
// Ready; its liveness failure restarts the sidecar, not the pod.
func TestSidecarProbes(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	sidecar := targetContainer("sidecar", "--fail=startup")
	sidecar.RestartPolicy = ptr(v1.ContainerRestartPolicyAlways)
	sidecar.StartupProbe = probe(execProbe("startup"))
	sidecar.StartupProbe.FailureThreshold = 120
	sidecar.ReadinessProbe = probe(httpProbe("readiness"))
	sidecar.LivenessProbe = probe(grpcProbe("liveness"))
	sidecar.LivenessProbe.FailureThreshold = 2
	// The main container shares the pod's network: other ports.
	main := targetContainer("main", "--http=:18080", "--tcp=:18081", "--grpc=:18082", "--admin=:19090")
	main.Ports = nil
	main.ReadinessProbe = probe(v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/check/readiness", Port: intstr.FromInt32(18080)}})
	pod := targetPod("sidecar", main)
	pod.Spec.InitContainers = []v1.Container{sidecar}
	createPod(t, ns, pod)

	p := waitRunning(t, ns, "sidecar", "sidecar")
	holds(t, ns, "sidecar", 4*time.Second, "main not started while the sidecar's startup probe fails", func(p *v1.Pod) bool {
		cs := containerStatus(p, "main")
		return !podReady(p) && (cs == nil || cs.State.Running == nil)
	})
	setCheck(t, p.Status.PodIP, portAdmin, "startup", "ok")
	waitPod(t, ns, "sidecar", 60*time.Second, "main running and pod Ready", func(p *v1.Pod) bool {
		cs := containerStatus(p, "main")
		return cs != nil && cs.State.Running != nil && podReady(p)
	})

	setCheck(t, p.Status.PodIP, portAdmin, "readiness", "fail")
	waitPod(t, ns, "sidecar", 30*time.Second, "not Ready (sidecar not ready)", func(p *v1.Pod) bool {
		return !podReady(p) && !containerStatus(p, "sidecar").Ready && containerStatus(p, "main").Ready
	})
	setCheck(t, p.Status.PodIP, portAdmin, "readiness", "ok")
	waitPod(t, ns, "sidecar", 30*time.Second, "Ready again", podReady)

	setCheck(t, p.Status.PodIP, portAdmin, "liveness", "fail")
	p = waitPod(t, ns, "sidecar", 60*time.Second, "sidecar restarted", func(p *v1.Pod) bool {
		return containerStatus(p, "sidecar").RestartCount >= 1
	})
	if rc := containerStatus(p, "main").RestartCount; rc != 0 {
		t.Errorf("main container restarted %d times; only the sidecar should", rc)
	}
}

// TestDeleteWithProbesInFlight: a pod whose probes of every kind hang (each
// run takes its whole timeout) is deleted while they are in flight: the pod
// goes away promptly and the node keeps probing other pods.
func TestDeleteWithProbesInFlight(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	c := targetContainer("target")
	c.ReadinessProbe = probe(httpProbe("hung-readiness"))
	c.ReadinessProbe.TimeoutSeconds = 10
	c.LivenessProbe = probe(grpcProbe("hung-liveness"))
	c.LivenessProbe.TimeoutSeconds = 10
	c.LivenessProbe.FailureThreshold = 1000
	createPod(t, ns, targetPod("hung", c))
	p := waitRunning(t, ns, "hung", "target")
	setCheck(t, p.Status.PodIP, portAdmin, "hung-readiness", "hang")
	setCheck(t, p.Status.PodIP, portAdmin, "hung-liveness", "hang")
	// Let runs pile up behind the hung ones.
	time.Sleep(4 * time.Second)
	stats, _ := admin(context.Background(), p.Status.PodIP, portAdmin, "GET", "/stats")
	t.Logf("probe counts before delete: %s", strings.TrimSpace(stats))

	start := time.Now()
	if err := client.CoreV1().Pods(ns).Delete(context.Background(), "hung", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "pod hung deleted", func(ctx context.Context) (bool, error) {
		_, err := getPod(ctx, ns, "hung")
		return apierrors.IsNotFound(err), nil
	})
	t.Logf("pod with hung probes gone %v after delete", time.Since(start).Round(time.Millisecond))

	// The kubelet still probes: a new pod becomes Ready.
	c2 := targetContainer("target")
	c2.ReadinessProbe = probe(httpProbe("readiness"))
	createPod(t, ns, targetPod("after", c2))
	waitPod(t, ns, "after", 60*time.Second, "Ready", podReady)
}

var metricLine = regexp.MustCompile(`(?m)^([a-z_]+)(\{[^}]*\})? ([0-9.eE+-]+)$`)

// metricValue sums the samples of a metric whose labels contain all of want.
func metricValue(text, name string, want ...string) (float64, bool) {
	var sum float64
	found := false
	metricSeries(text, name, func(labels string, v float64) {
		for _, w := range want {
			if !strings.Contains(labels, w) {
				return
			}
		}
		sum += v
		found = true
	})
	return sum, found
}

// metricSeries calls f with the label set and value of each sample of name.
func metricSeries(text, name string, f func(labels string, v float64)) {
	for _, m := range metricLine.FindAllStringSubmatch(text, -1) {
		if m[1] != name {
			continue
		}
		if v, err := strconv.ParseFloat(m[3], 64); err == nil {
			f(m[2], v)
		}
	}
}

// sumWhere sums the samples of name whose label sets keep accepts.
func sumWhere(text, name string, keep func(labels string) bool) float64 {
	var sum float64
	metricSeries(text, name, func(l string, v float64) {
		if keep(l) {
			sum += v
		}
	})
	return sum
}

// histogramWhere is a histogram of a metrics text summed over the label sets
// keep accepts.
func histogramWhere(text, name string, keep func(labels string) bool) hist {
	h := hist{buckets: map[float64]float64{}}
	h.count = sumWhere(text, name+"_count", keep)
	h.sum = sumWhere(text, name+"_sum", keep)
	metricSeries(text, name+"_bucket", func(l string, v float64) {
		if !keep(l) {
			return
		}
		if le, err := strconv.ParseFloat(label(l, "le"), 64); err == nil { // "+Inf" parses as +Inf
			h.buckets[le] += v
		}
	})
	return h
}

// TestProbeMetrics: /metrics/probes has upstream's prober metrics and, on the
// probewheel kubelet, the scheduler's.
func TestProbeMetrics(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	c := targetContainer("target")
	c.ReadinessProbe = probe(httpProbe("readiness"))
	c.LivenessProbe = probe(httpProbe("liveness"))
	createPod(t, ns, targetPod("metrics", c))
	waitRunning(t, ns, "metrics", "target")
	waitPod(t, ns, "metrics", 60*time.Second, "Ready", podReady)
	time.Sleep(2 * time.Second)

	text := probeMetrics(t)
	if v, ok := metricValue(text, "prober_probe_total", `namespace="`+ns+`"`, `probe_type="Readiness"`, `result="successful"`); !ok || v < 1 {
		t.Errorf("prober_probe_total for %s readiness: %v (found %v)", ns, v, ok)
	}
	if _, ok := metricValue(text, "prober_probe_duration_seconds_count", `namespace="`+ns+`"`); !ok {
		t.Errorf("no prober_probe_duration_seconds for %s", ns)
	}
	if !isProbewheel() {
		if strings.Contains(text, "prober_scheduler_") {
			t.Errorf("stock kubelet %s exposes prober_scheduler_* metrics", kubeletVersion)
		}
		t.Skipf("kubelet %s is not probewheel: no scheduler metrics to check", kubeletVersion)
	}
	for _, m := range []struct {
		name   string
		labels []string
		min    float64
	}{
		{"prober_scheduler_start_lateness_seconds_count", nil, 1},
		{"prober_scheduler_probes_in_flight", nil, 0},
	} {
		v, ok := metricValue(text, m.name, m.labels...)
		if !ok || v < m.min {
			t.Errorf("%s%v = %v (found %v), want >= %v", m.name, m.labels, v, ok, m.min)
		} else {
			t.Logf("%s%v = %v", m.name, m.labels, v)
		}
	}
	// A counter vector shows only once a run was skipped (TestDeleteWithProbesInFlight's hung probes skip runs).
	if v, ok := metricValue(text, "prober_scheduler_skipped_runs_total"); ok {
		t.Logf("prober_scheduler_skipped_runs_total = %v", v)
	}
}
