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
	probewheel "github.com/probewheel/probewheel/pkg/kubelet/prober"
)

// registries register each implementation's prober_probe_total and
// prober_probe_duration_seconds, as the kubelet's server does on
// /metrics/probes, in a registry of its own.
var registries = func() map[string]metrics.KubeRegistry {
	up, pw := metrics.NewKubeRegistry(), metrics.NewKubeRegistry()
	up.MustRegister(upstream.ProberResults, upstream.ProberDuration)
	pw.MustRegister(probewheel.ProberResults, probewheel.ProberDuration)
	return map[string]metrics.KubeRegistry{"upstream": up, "probewheel": pw, "gate-off": pw}
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
	want := got["upstream"]
	if len(want) != 3 || len(want[0]) != 2 || len(want[1]) != 3 || len(want[2]) != 0 {
		t.Fatalf("upstream's series are not what the test expects: %q", want)
	}
	for impl, steps := range got {
		for i := range steps {
			if !slices.Equal(steps[i], want[i]) {
				t.Errorf("%s, step %d: series\n%s\nwant (upstream's)\n%s", impl, i, strings.Join(steps[i], "\n"), strings.Join(want[i], "\n"))
			}
		}
	}
}
