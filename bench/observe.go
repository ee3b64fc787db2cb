package bench

import (
	"math"
	"os"
	"runtime/metrics"
	"slices"

	compmetrics "k8s.io/component-base/metrics"
	upstream "k8s.io/kubernetes/pkg/kubelet/prober"

	probewheel "github.com/probewheel/probewheel/pkg/kubelet/prober"
)

// The probe metrics are registered as the kubelet's server registers them on
// /metrics/probes: component-base metrics are no-ops until registered, and a
// real kubelet pays for them on every run. PROBEWHEEL_BENCH_PROBE_METRICS=0
// leaves them unregistered, so that B/probe shows what the prober itself
// keeps per probe without the series upstream's metrics add (the same on
// both sides). Nothing gathers those registries: at 30,000 probes a Gather
// walks ~100,000 series for a quarter of a second on both cores, and the
// harness once did that right before each window, delaying the runs whose
// intervals cross the window's start by up to 25 ms.
var probeRegistries = func() [2]compmetrics.KubeRegistry {
	up, pw := compmetrics.NewKubeRegistry(), compmetrics.NewKubeRegistry()
	if os.Getenv(envProbeMetrics) != "0" {
		up.MustRegister(upstream.ProberResults, upstream.ProberDuration)
		pw.MustRegister(probewheel.ProberResults, probewheel.ProberDuration)
	}
	return [2]compmetrics.KubeRegistry{up, pw}
}()

// schedRegistry holds probewheel's scheduler metrics only, which the harness
// reads around each window: its start lateness tells whether a late probe
// was late before it started (the scheduler) or after (the run itself, the
// runtime, the target). Reading it costs a few dozen series.
var schedRegistry = func() compmetrics.KubeRegistry {
	r := compmetrics.NewKubeRegistry()
	r.MustRegister(probewheel.SchedulerMetrics()...)
	r.CustomMustRegister(probewheel.SchedulerCollector())
	return r
}()

// histogram is a cumulative snapshot of a histogram: counts per upper bound.
type histogram struct {
	bounds []float64 // seconds, +Inf last
	counts []uint64  // cumulative
}

// schedLateness returns the scheduler's start-lateness histogram as it is
// now.
func schedLateness() (lateness histogram) {
	families, err := schedRegistry.Gather()
	if err != nil {
		panic(err)
	}
	for _, f := range families {
		if f.GetName() != "prober_scheduler_start_lateness_seconds" {
			continue
		}
		h := &lateness
		for _, m := range f.GetMetric() {
			for _, b := range m.GetHistogram().GetBucket() {
				h.bounds = append(h.bounds, b.GetUpperBound())
				h.counts = append(h.counts, b.GetCumulativeCount())
			}
			h.bounds = append(h.bounds, math.Inf(1))
			h.counts = append(h.counts, m.GetHistogram().GetSampleCount())
		}
	}
	return lateness
}

// since returns the observations between an earlier snapshot and h.
func (h histogram) since(earlier histogram) histogram {
	d := histogram{bounds: h.bounds, counts: slices.Clone(h.counts)}
	for i := range d.counts {
		if i < len(earlier.counts) {
			d.counts[i] -= earlier.counts[i]
		}
	}
	return d
}

// add returns the observations of h and d together.
func (h histogram) add(d histogram) histogram {
	if len(h.counts) == 0 {
		return d
	}
	sum := histogram{bounds: h.bounds, counts: slices.Clone(h.counts)}
	for i := range sum.counts {
		if i < len(d.counts) {
			sum.counts[i] += d.counts[i]
		}
	}
	return sum
}

func (h histogram) total() uint64 {
	if len(h.counts) == 0 {
		return 0
	}
	return h.counts[len(h.counts)-1]
}

// quantileBound returns the upper bound, in milliseconds, of the bucket that
// holds quantile q (1: the largest observation's bucket); 0 with no
// observations. A bucket bound, not an exact value: the lateness buckets are
// 0.5, 1, 2, 5, 10, 25, 50 ms, ...
func (h histogram) quantileBound(q float64) float64 {
	if len(h.counts) == 0 || h.counts[len(h.counts)-1] == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.counts[len(h.counts)-1])))
	for i, c := range h.counts {
		if c >= max(rank, 1) {
			return h.bounds[i] * 1e3
		}
	}
	return math.Inf(1)
}

// gcStats are the garbage collector's cycles, its longest stop-the-world
// pause and the heap allocations so far (the whole process: prober, targets
// and harness, so only their difference between implementations is the
// prober's).
type gcStats struct {
	cycles                   uint64
	pauses                   *metrics.Float64Histogram
	maxPause                 float64 // seconds, of the pauses since the earlier snapshot
	allocBytes, allocObjects uint64
}

var gcSamples = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/sched/pauses/total/gc:seconds"},
	{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}}

func readGC() gcStats {
	s := slices.Clone(gcSamples)
	metrics.Read(s)
	return gcStats{cycles: s[0].Value.Uint64(), pauses: s[1].Value.Float64Histogram(),
		allocBytes: s[2].Value.Uint64(), allocObjects: s[3].Value.Uint64()}
}

// since returns the cycles since earlier and the upper bound of the longest
// pause among them.
func (g gcStats) since(earlier gcStats) gcStats {
	d := gcStats{cycles: g.cycles - earlier.cycles, allocBytes: g.allocBytes - earlier.allocBytes,
		allocObjects: g.allocObjects - earlier.allocObjects}
	for i := len(g.pauses.Counts) - 1; i >= 0; i-- {
		if g.pauses.Counts[i] > earlier.pauses.Counts[i] {
			d.maxPause = g.pauses.Buckets[i+1]
			break
		}
	}
	return d
}
