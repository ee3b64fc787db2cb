package parity

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics"
	upstream "k8s.io/kubernetes/pkg/kubelet/prober"

	"github.com/probewheel/probewheel/bench"
	oracle "github.com/probewheel/probewheel/bench/oracle"
	probewheel "github.com/probewheel/probewheel/pkg/kubelet/prober"
)

// registries register each implementation's prober_probe_total and
// prober_probe_duration_seconds, as the kubelet's server does on
// /metrics/probes, in a registry of its own.
var registries = func() map[string]metrics.KubeRegistry {
	up, pw, or := metrics.NewKubeRegistry(), metrics.NewKubeRegistry(), metrics.NewKubeRegistry()
	up.MustRegister(upstream.ProberResults, upstream.ProberDuration)
	pw.MustRegister(probewheel.ProberResults, probewheel.ProberDuration)
	or.MustRegister(oracle.ProberResults, oracle.ProberDuration)
	return map[string]metrics.KubeRegistry{"upstream": up, "probewheel": pw, "no-exec-limit": pw, "gate-off": pw, "afterfunc": pw, "oracle": or}
}()

// series lists the prober_probe_total series and prober_probe_duration_seconds
// counts of a registry, one line each, sorted.
func series(reg metrics.KubeRegistry) []string {
	families, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	var out []string
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			switch f.GetName() {
			case "prober_probe_total":
				out = append(out, fmt.Sprintf("total{%s} %v", strings.Join(labels, ","), m.GetCounter().GetValue()))
			case "prober_probe_duration_seconds":
				out = append(out, fmt.Sprintf("duration{%s} count %d", strings.Join(labels, ","), m.GetHistogram().GetSampleCount()))
			}
		}
	}
	slices.Sort(out)
	return out
}

// vectors are each implementation's prober_probe_total and
// prober_probe_duration_seconds.
var vectors = map[string][2]interface {
	metrics.Registerable
	ClearState()
}{
	"upstream":      {upstream.ProberResults, upstream.ProberDuration},
	"probewheel":    {probewheel.ProberResults, probewheel.ProberDuration},
	"no-exec-limit": {probewheel.ProberResults, probewheel.ProberDuration},
	"gate-off":      {probewheel.ProberResults, probewheel.ProberDuration},
	"afterfunc":     {probewheel.ProberResults, probewheel.ProberDuration},
	"oracle":        {oracle.ProberResults, oracle.ProberDuration},
}

// sameSeries fails the test where an implementation's series at some step
// differ from upstream's at that step.
func sameSeries(t *testing.T, got map[string][][]string) {
	t.Helper()
	want := got["upstream"]
	for impl, steps := range got {
		for i := range steps {
			if !slices.Equal(steps[i], want[i]) {
				t.Errorf("%s, step %d: series\n%s\nwant (upstream's)\n%s", impl, i, strings.Join(steps[i], "\n"), strings.Join(want[i], "\n"))
			}
		}
	}
}

// TestProbeMetrics: the same series, with the same values, come and go: a
// series appears with its first result, and every series of a probe is
// deleted when its worker stops.
func TestProbeMetrics(t *testing.T) {
	got := map[string][][]string{}
	scenario := func(n *node, reg metrics.KubeRegistry) [][]string {
		n.afterStart(time.Second)
		p := execProbe(1)
		p.FailureThreshold = 1
		pod := n.addPod("c", v1.Container{LivenessProbe: p})
		var steps [][]string
		time.Sleep(1500 * time.Millisecond) // two successes
		steps = append(steps, series(reg))
		n.runner.set("c", 0, true)
		time.Sleep(time.Second) // a failure
		steps = append(steps, series(reg))
		n.mgr.RemovePod(pod)
		n.close(0)
		steps = append(steps, series(reg))
		return steps
	}
	for _, impl := range bench.Impls {
		synctest.Test(t, func(t *testing.T) { got[impl.Name] = scenario(newNode(t, impl), registries[impl.Name]) })
	}
	if want := got["upstream"]; len(want) != 3 || len(want[0]) != 2 || len(want[1]) != 3 || len(want[2]) != 0 {
		t.Fatalf("upstream's series are not what the test expects: %q", want)
	}
	sameSeries(t, got)
}

// TestProbeMetricsOfARecreatedPod: a pod deleted and created again under the
// same name while the old one still terminates (a StatefulSet pod
// force-deleted) is another pod, with a UID of its own. Its prober_probe_total
// series are its own, but prober_probe_duration_seconds has no pod_uid label:
// both pods' workers observe one series, and the old worker deletes it when it
// exits. The new worker's next run brings it back, since upstream looks the
// series up on every run.
func TestProbeMetricsOfARecreatedPod(t *testing.T) {
	got := map[string][][]string{}
	for _, impl := range bench.Impls {
		synctest.Test(t, func(t *testing.T) {
			n, reg := newNode(t, impl), registries[impl.Name]
			n.afterStart(time.Second)
			old := n.addPodUID("web-0", "web-0-old", v1.Container{ReadinessProbe: execProbe(1)})
			time.Sleep(500 * time.Millisecond)
			n.addPodUID("web-0", "web-0-new", v1.Container{ReadinessProbe: execProbe(1)})
			time.Sleep(700 * time.Millisecond) // the old pod ran at 0 and 1 s, the new one at 0.5 s
			steps := [][]string{series(reg)}
			n.mgr.RemovePod(old)
			time.Sleep(2 * time.Second) // the new pod ran at 1.5 and 2.5 s
			steps = append(steps, series(reg))
			n.close(0)
			got[impl.Name] = append(steps, series(reg))
		})
	}
	if want := got["upstream"]; len(want) != 3 || len(want[0]) != 3 || len(want[1]) != 2 || len(want[2]) != 0 {
		t.Fatalf("upstream's series are not what the test expects: %q", want)
	}
	sameSeries(t, got)
}

// TestProbeMetricsRegisteredLate: the kubelet's server registers the metrics
// while the sync loop starts workers, and component-base metrics are no-ops
// until they are registered. Runs before the registration count nowhere;
// every run after it counts, in a series that appears with its first result.
// (The race of a registration within a run is in the package's
// TestWorkerSeriesAcrossRegistration.)
func TestProbeMetricsRegisteredLate(t *testing.T) {
	got := map[string][][]string{}
	for _, impl := range bench.Impls {
		synctest.Test(t, func(t *testing.T) {
			vecs := vectors[impl.Name]
			for _, v := range vecs {
				v.ClearState() // not registered: as a kubelet whose server has not started yet
			}
			n := newNode(t, impl)
			n.afterStart(time.Second)
			pod := n.addPod("c", v1.Container{LivenessProbe: execProbe(1)})
			time.Sleep(2500 * time.Millisecond) // runs at 0, 1 and 2 s
			reg := metrics.NewKubeRegistry()
			reg.MustRegister(vecs[0], vecs[1])
			steps := [][]string{series(reg)}
			time.Sleep(2 * time.Second) // runs at 3 and 4 s
			steps = append(steps, series(reg))
			n.mgr.RemovePod(pod)
			n.close(0)
			got[impl.Name] = append(steps, series(reg))
		})
	}
	if want := got["upstream"]; len(want) != 3 || len(want[0]) != 0 || len(want[1]) != 2 || len(want[2]) != 0 {
		t.Fatalf("upstream's series are not what the test expects: %q", want)
	}
	sameSeries(t, got)
}
