//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/probewheel/probewheel/bench/measure"
)

// TestDensity is one half of `make e2e-density` (hack/e2e-density.sh), which
// runs it on a fresh cluster with the stock kubelet, then with the patched
// one: PW_E2E_DENSITY_PODS pods (default 100), each one probetarget
// container with a startup (TCP), a readiness (HTTP) and a liveness (gRPC)
// probe, every PW_E2E_DENSITY_PERIOD (default 1s). Once every pod is Ready it
// watches the kubelet for PW_E2E_DENSITY_WINDOW (default 2m) and writes what
// it saw to PW_E2E_DENSITY_OUT as JSON: the kubelet process's CPU and RSS
// (/proc), its goroutines (go_goroutines on /metrics), probe durations
// (/metrics/probes), the intervals between consecutive probes as the
// targets saw them (the same yardstick for both kubelets: the stock one has
// no lateness metric), readiness flaps and restarts.
//
// With PW_E2E_DENSITY_NODES="<node>=<out.json>,<node>=<out.json>" (a mixed
// kind cluster, `make kind-e2e-density`) it does the same on every listed
// node at once: the same pods pinned to each node, created interleaved, and
// one measurement window for all, so that both kubelets share the machine's
// load; each node's result goes to its own file.
//
// With PW_E2E_DENSITY_PROFILE set it also saves, after the window, a 10 s CPU
// profile and a 10 s execution trace of the kubelet (<out>.cpu.pprof, <out>.trace).
//
// It measures; it does not judge (a 2-core machine is too noisy for
// thresholds on speed), except that no probe may be lost: every pod must stay
// Ready and be probed throughout (on several nodes at once, only the patched
// kubelets are held to that; the stock one's losses are reported). Skipped
// unless PW_E2E_DENSITY_OUT or PW_E2E_DENSITY_NODES is set.
func TestDensity(t *testing.T) {
	targets := densityTargets(t)
	if len(targets) == 0 {
		t.Skip("PW_E2E_DENSITY_OUT not set; run make e2e-density")
	}
	pods := envInt(t, "PW_E2E_DENSITY_PODS", 100)
	period := envDuration(t, "PW_E2E_DENSITY_PERIOD", time.Second)
	window := envDuration(t, "PW_E2E_DENSITY_WINDOW", 2*time.Minute)
	if period < time.Second || period%time.Second != 0 {
		t.Fatalf("PW_E2E_DENSITY_PERIOD=%v: probes take whole seconds", period)
	}
	if window > 250*period {
		// probetarget keeps the last 256 probe times per check.
		t.Fatalf("PW_E2E_DENSITY_WINDOW=%v: at most 250 periods (%v) can be measured", window, 250*period)
	}
	// The startup probe's failureThreshold: 3 (3 s at the default period)
	// unless PW_E2E_DENSITY_STARTUP_FAILURES says otherwise. A nested kind
	// node starting 100 containers at once on 2 cores can take longer than
	// that to start one, and every startup kill then adds a container start.
	// Startup probes stop once they pass: the window does not see them.
	startupFailures := envInt(t, "PW_E2E_DENSITY_STARTUP_FAILURES", 3)
	ns := newNamespace(t)
	secs := int32(period / time.Second)
	p := func(h v1.ProbeHandler) *v1.Probe {
		return &v1.Probe{ProbeHandler: h, PeriodSeconds: secs, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	}
	created := time.Now()
	// Interleaved, so that no node gets a head start.
	for i := range pods {
		for k, tg := range targets {
			c := targetContainer("target")
			c.StartupProbe = p(tcpProbe())
			c.StartupProbe.FailureThreshold = int32(startupFailures)
			c.ReadinessProbe = p(httpProbe("readiness"))
			c.LivenessProbe = p(grpcProbe("liveness"))
			pod := targetPod(tg.podName(k, i), c)
			pod.Spec.NodeName = tg.node
			pod.Labels = map[string]string{densityNodeLabel: strconv.Itoa(k)}
			createPod(t, ns, pod)
		}
	}
	waitFor(t, 15*time.Minute, fmt.Sprintf("%d pods Ready on each of %d node(s) in %s", pods, len(targets), ns), func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		ready := make([]map[string]string, len(targets))
		for k := range ready {
			ready[k] = map[string]string{}
		}
		for _, p := range list.Items {
			if k, err := strconv.Atoi(p.Labels[densityNodeLabel]); err == nil && k < len(targets) && podReady(&p) {
				ready[k][p.Name] = p.Status.PodIP
			}
		}
		done := true
		for k, tg := range targets {
			if tg.ips == nil && len(ready[k]) == pods {
				tg.ips, tg.allReady = ready[k], time.Since(created)
				t.Logf("%s: %d pods Ready %v after the first was created", tg.node, pods, tg.allReady.Round(time.Second))
			}
			done = done && tg.ips != nil
		}
		return done, nil
	})
	time.Sleep(15 * time.Second) // let the pod-start work drain out of the figures

	for k, tg := range targets {
		tg.pid = kubeletPID(t, tg.node)
		list, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: densityNodeLabel + "=" + strconv.Itoa(k)})
		if err != nil {
			t.Fatal(err)
		}
		tg.flaps, tg.restarts = watchFlaps(t, ns, list)
		tg.res = densityResult{
			Kubelet: nodeKubeletVersion(t, tg.node), Pods: pods, ProbesPerPod: 3, PeriodSeconds: period.Seconds(),
			AllReadySeconds: tg.allReady.Seconds(), WindowSeconds: window.Seconds(),
		}
		tg.durBefore = histogram(t, tg.node, "prober_probe_duration_seconds")
		tg.schedBefore = histogram(t, tg.node, "prober_scheduler_start_lateness_seconds")
	}
	start := time.Now()
	for _, tg := range targets {
		tg.cpuBefore = procCPU(t, tg.pid)
		tg.prevCPU = tg.cpuBefore
	}
	prev := start
	tick := time.NewTicker(5 * time.Second)
	for now := range tick.C {
		for _, tg := range targets {
			cpu := procCPU(t, tg.pid)
			tg.res.Samples = append(tg.res.Samples, densitySample{
				T:          now.Sub(start).Seconds(),
				CPUCores:   (cpu - tg.prevCPU).Seconds() / now.Sub(prev).Seconds(),
				RSSMiB:     procRSSMiB(t, tg.pid),
				Goroutines: goroutines(t, tg.node),
			})
			tg.prevCPU = cpu
		}
		prev = now
		if now.Sub(start) >= window {
			break
		}
	}
	tick.Stop()
	end := time.Now()
	for _, tg := range targets {
		res := &tg.res
		res.CPUCores = (procCPU(t, tg.pid) - tg.cpuBefore).Seconds() / end.Sub(start).Seconds()
		if kubeletPID(t, tg.node) != tg.pid {
			t.Fatalf("the kubelet of %s restarted during the measurement", tg.node)
		}
		res.RSSMiB = summarize(column(res.Samples, func(s densitySample) float64 { return s.RSSMiB }))
		res.Goroutines = summarize(column(res.Samples, func(s densitySample) float64 { return s.Goroutines }))
		res.ProbeDuration = histogram(t, tg.node, "prober_probe_duration_seconds").since(tg.durBefore)
		if strings.Contains(res.Kubelet, "probewheel") {
			l := histogram(t, tg.node, "prober_scheduler_start_lateness_seconds").since(tg.schedBefore)
			res.SchedulerLateness = &l
		}
		res.Intervals = probeIntervals(t, probeTimes(t, tg.ips, []string{"http/readiness", "grpc/liveness"}, t.Fatalf), start, end, period, t.Errorf)
		res.ReadyFlaps, res.Restarts = tg.flaps(), tg.restarts()
	}

	if os.Getenv("PW_E2E_DENSITY_PROFILE") != "" {
		// Still under load: a CPU profile and an execution trace, 10 s each, next to the JSON.
		for _, tg := range targets {
			base := strings.TrimSuffix(tg.out, ".json")
			for _, prof := range []struct{ path, file string }{
				{"profile", base + ".cpu.pprof"},
				{"trace", base + ".trace"},
			} {
				b := nodeKubeletGet(t, tg.node, map[string]string{"seconds": "10"}, "debug", "pprof", prof.path)
				if err := os.WriteFile(prof.file, b, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("kubelet of %s %s: %s (%d bytes)", tg.node, prof.path, prof.file, len(b))
			}
		}
	}
	for _, tg := range targets {
		res := tg.res
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tg.out, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", tg.node, b)

		// The one hard requirement: density must not lose probes or results.
		// Alone on a node, probewheel and stock alike must lose none. When
		// several nodes share one window (a mixed kind cluster), the stock
		// kubelet is the reference: a host so loaded that the stock kubelet
		// misses runs makes probewheel miss some too, so its losses are only
		// logged, and probewheel fails where it loses more than the stock
		// kubelet of the same window (below).
		report := t.Errorf
		if tg.multi {
			report = t.Logf
		}
		if res.ReadyFlaps != 0 || res.Restarts != 0 {
			report("%s: %d readiness flaps and %d restarts under density", tg.node, res.ReadyFlaps, res.Restarts)
		}
		if res.Intervals.Missed > 0 {
			report("%s: %d missed runs", tg.node, res.Intervals.Missed)
		}
	}
	if len(targets) > 1 {
		compareToStock(t, targets)
	}
}

// compareToStock fails a probewheel node of a shared window that lost more
// runs, flapped or restarted more than the worst stock node of that window.
func compareToStock(t *testing.T, targets []*densityTarget) {
	t.Helper()
	ref, haveRef := densityResult{}, false
	for _, tg := range targets {
		if r := tg.res; !strings.Contains(r.Kubelet, "probewheel") {
			ref.Intervals.Missed = max(ref.Intervals.Missed, r.Intervals.Missed)
			ref.ReadyFlaps = max(ref.ReadyFlaps, r.ReadyFlaps)
			ref.Restarts = max(ref.Restarts, r.Restarts)
			haveRef = true
		}
	}
	for _, tg := range targets {
		r := tg.res
		if !strings.Contains(r.Kubelet, "probewheel") {
			continue
		}
		if !haveRef {
			if r.Intervals.Missed > 0 || r.ReadyFlaps > 0 || r.Restarts > 0 {
				t.Errorf("%s: %d missed runs, %d flaps, %d restarts, and no stock node to compare with", tg.node, r.Intervals.Missed, r.ReadyFlaps, r.Restarts)
			}
			continue
		}
		if r.Intervals.Missed > ref.Intervals.Missed || r.ReadyFlaps > ref.ReadyFlaps || r.Restarts > ref.Restarts {
			t.Errorf("%s (probewheel): %d missed runs, %d flaps, %d restarts; the stock kubelet of the same window: %d, %d, %d",
				tg.node, r.Intervals.Missed, r.ReadyFlaps, r.Restarts, ref.Intervals.Missed, ref.ReadyFlaps, ref.Restarts)
		} else {
			t.Logf("%s (probewheel): %d missed runs, %d flaps, %d restarts; stock in the same window: %d, %d, %d",
				tg.node, r.Intervals.Missed, r.ReadyFlaps, r.Restarts, ref.Intervals.Missed, ref.ReadyFlaps, ref.Restarts)
		}
	}
}

// densityNodeLabel marks which target node a density pod belongs to.
const densityNodeLabel = "probewheel.io/density-target"

// densityTarget is one node TestDensity measures, and what it saw there.
type densityTarget struct {
	node, out string
	multi     bool

	ips                    map[string]string
	allReady               time.Duration
	pid                    int
	flaps, restarts        func() int
	durBefore, schedBefore hist
	cpuBefore, prevCPU     time.Duration
	res                    densityResult
}

// podName keeps upstream's names (d000, d001, ...) for one node.
func (tg *densityTarget) podName(k, i int) string {
	if !tg.multi {
		return fmt.Sprintf("d%03d", i)
	}
	return fmt.Sprintf("d%d-%03d", k, i)
}

// densityTargets reads PW_E2E_DENSITY_NODES, or PW_E2E_DENSITY_OUT for the
// node under test; none when neither is set.
func densityTargets(t *testing.T) []*densityTarget {
	var targets []*densityTarget
	if v := os.Getenv("PW_E2E_DENSITY_NODES"); v != "" {
		for _, kv := range strings.Split(v, ",") {
			node, out, ok := strings.Cut(kv, "=")
			if !ok || node == "" || out == "" {
				t.Fatalf("PW_E2E_DENSITY_NODES=%q: want node=out.json[,node=out.json]", v)
			}
			targets = append(targets, &densityTarget{node: node, out: out, multi: true})
		}
	} else if out := os.Getenv("PW_E2E_DENSITY_OUT"); out != "" {
		targets = append(targets, &densityTarget{node: nodeName, out: out})
	}
	return targets
}

// nodeKubeletVersion is the node's status.nodeInfo.kubeletVersion.
func nodeKubeletVersion(t *testing.T, node string) string {
	t.Helper()
	n, err := client.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("node %s: %v", node, err)
	}
	return n.Status.NodeInfo.KubeletVersion
}

type densitySample struct {
	T          float64 `json:"t"`
	CPUCores   float64 `json:"cpuCores"`
	RSSMiB     float64 `json:"rssMiB"`
	Goroutines float64 `json:"goroutines"`
}

type stats struct {
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
}

type densityResult struct {
	Kubelet           string          `json:"kubelet"`
	Pods              int             `json:"pods"`
	ProbesPerPod      int             `json:"probesPerPod"`
	PeriodSeconds     float64         `json:"periodSeconds"`
	AllReadySeconds   float64         `json:"allReadySeconds"`
	WindowSeconds     float64         `json:"windowSeconds"`
	CPUCores          float64         `json:"cpuCores"`
	RSSMiB            stats           `json:"rssMiB"`
	Goroutines        stats           `json:"goroutines"`
	ProbeDuration     histSummary     `json:"probeDuration"`
	SchedulerLateness *histSummary    `json:"schedulerLateness,omitempty"`
	Intervals         intervalSummary `json:"intervals"`
	ReadyFlaps        int             `json:"readyFlaps"`
	Restarts          int             `json:"restarts"`
	Samples           []densitySample `json:"samples"`
}

// column is one figure of every sample.
func column[S any](samples []S, f func(S) float64) []float64 {
	v := make([]float64, len(samples))
	for i, x := range samples {
		v[i] = f(x)
	}
	return v
}

func summarize(vs []float64) stats {
	var s stats
	for _, v := range vs {
		s.Mean += v / float64(len(vs))
		s.Max = max(s.Max, v)
	}
	return s
}

func envInt(t *testing.T, k string, def int) int {
	v := os.Getenv(k)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", k, v)
	}
	return n
}

func envDuration(t *testing.T, k string, def time.Duration) time.Duration {
	return parseEnvDuration(t, k, def, false)
}

// envDurationOrZero is envDuration where 0 is a setting too.
func envDurationOrZero(t *testing.T, k string, def time.Duration) time.Duration {
	return parseEnvDuration(t, k, def, true)
}

func parseEnvDuration(t *testing.T, k string, def time.Duration, zero bool) time.Duration {
	v := os.Getenv(k)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	switch {
	case zero && (err != nil || d < 0):
		t.Fatalf("%s=%q: want a duration, 0 or more", k, v)
	case !zero && (err != nil || d <= 0):
		t.Fatalf("%s=%q: want a positive duration", k, v)
	}
	return d
}

// kubeletPID is the node's kubelet's PID (in this host's /proc): as
// local-up-cluster.sh recorded it, or what $PW_KUBELET_PID_CMD <node> prints
// (hack/kind-kubelet-pid.sh on kind).
func kubeletPID(t *testing.T, node string) int {
	t.Helper()
	var b []byte
	var err error
	if c := strings.Fields(os.Getenv("PW_KUBELET_PID_CMD")); len(c) > 0 {
		b, err = exec.Command(c[0], append(c[1:], node)...).Output()
	} else {
		b, err = os.ReadFile(filepath.Join(clusterDir(), "pids", "kubelet.pid"))
	}
	if err != nil {
		t.Fatalf("kubelet pid of %s: %v", node, err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		t.Fatalf("kubelet pid of %s: empty", node)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		t.Fatalf("kubelet pid of %s: %q", node, b)
	}
	return pid
}

// procCPU is the process's user+system CPU time.
func procCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	cpu, err := measure.ProcCPU(pid)
	if err != nil {
		t.Fatalf("kubelet cpu: %v", err)
	}
	return cpu
}

func procRSSMiB(t *testing.T, pid int) float64 {
	t.Helper()
	rss, err := measure.ProcRSSMiB(pid)
	if err != nil {
		t.Fatalf("kubelet rss: %v", err)
	}
	return rss
}

func goroutines(t *testing.T, node string) float64 {
	v, ok := metricValue(string(nodeKubeletGet(t, node, nil, "metrics")), "go_goroutines")
	if !ok {
		t.Fatalf("no go_goroutines on the kubelet's /metrics on %s", node)
	}
	return v
}

// hist is a Prometheus histogram summed over all its label sets.
type hist struct {
	count, sum float64
	buckets    map[float64]float64 // le -> cumulative count
}

// histogram reads a histogram from the node's /metrics/probes (empty when absent).
func histogram(t *testing.T, node, name string) hist {
	text := string(nodeKubeletGet(t, node, nil, "metrics", "probes"))
	return histogramWhere(text, name, func(string) bool { return true })
}

type histSummary struct {
	Count  float64 `json:"count"`
	MeanMs float64 `json:"meanMs"`
	// P50Ms and P99Ms are bucket upper bounds: the histogram's resolution.
	// Absent where the quantile lies past the last finite bucket: the
	// kubelet's prober_probe_duration_seconds has none (only +Inf), the
	// scheduler's lateness histogram has.
	P50Ms *float64 `json:"p50Ms,omitempty"`
	P99Ms *float64 `json:"p99Ms,omitempty"`
}

// since summarizes the observations made between before and h.
func (h hist) since(before hist) histSummary {
	s := histSummary{Count: h.count - before.count}
	if s.Count <= 0 {
		return s
	}
	s.MeanMs = (h.sum - before.sum) / s.Count * 1000
	les := make([]float64, 0, len(h.buckets))
	for le := range h.buckets {
		les = append(les, le)
	}
	sort.Float64s(les)
	quantile := func(q float64) *float64 {
		for _, le := range les {
			if h.buckets[le]-before.buckets[le] >= q*s.Count {
				if math.IsInf(le, 1) {
					return nil
				}
				ms := le * 1000
				return &ms
			}
		}
		return nil
	}
	s.P50Ms, s.P99Ms = quantile(0.5), quantile(0.99)
	return s
}

type intervalSummary struct {
	// N intervals between consecutive probes of one check of one pod that
	// close inside the window; deviations are |interval - period|.
	N           int     `json:"n"`
	P50AbsDevMs float64 `json:"p50AbsDevMs"`
	P99AbsDevMs float64 `json:"p99AbsDevMs"`
	MaxAbsDevMs float64 `json:"maxAbsDevMs"`
	// Missed is the runs missed in the window (measure.Missed), the open gap
	// at its end included.
	Missed       int `json:"missed"`
	ChecksProbed int `json:"checksProbed"`
}

// probeTimes asks every target when each of its checks (probetarget's keys:
// "http/readiness", "exec/liveness"...) was probed: pod name -> check ->
// times (Unix ns), sorted. A target that does not answer within 10 s is
// reported (t.Fatalf, or t.Logf where a container may be restarting: its
// record went with it) and left out.
func probeTimes(t *testing.T, ips map[string]string, checks []string, report func(string, ...any)) map[string]map[string][]int64 {
	t.Helper()
	out := map[string]map[string][]int64{}
	for name, ip := range ips {
		out[name] = map[string][]int64{}
		for _, check := range checks {
			var times []int64
			var err error
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Second) {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				times, err = checkTimes(ctx, ip, check)
				cancel()
				if err == nil || errors.Is(err, errBadTimes) || time.Now().After(deadline) {
					break
				}
			}
			if errors.Is(err, errBadTimes) { // an answer, but not times: no use asking again
				t.Fatalf("%s %s probe times: %v", name, check, err)
			}
			if err != nil {
				report("%s %s probe times: %v", name, check, err)
				delete(out, name)
				break
			}
			out[name][check] = times
		}
	}
	return out
}

// errBadTimes: the target answered /times with something else than times.
var errBadTimes = errors.New("not a list of times")

// checkTimes asks the target at ip when check was probed (probetarget's
// /times), sorted.
func checkTimes(ctx context.Context, ip, check string) ([]int64, error) {
	body, err := admin(ctx, ip, portAdmin, "GET", "/times?key="+check)
	if err != nil {
		return nil, err
	}
	var times []int64
	if err := json.Unmarshal([]byte(body), &times); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadTimes, err)
	}
	slices.Sort(times)
	return times, nil
}

// probeIntervals measures the gaps between the probes of every check of
// every target (probeTimes) in the window (start, end]; a check never probed
// in it is reported (t.Errorf where that is a failure, t.Logf where it is a
// figure) and counted in Missed.
func probeIntervals(t *testing.T, times map[string]map[string][]int64, start, end time.Time, period time.Duration, report func(string, ...any)) intervalSummary {
	t.Helper()
	iv := measure.NewIntervals(int64(period))
	s := intervalSummary{}
	key := 0
	for _, name := range slices.Sorted(maps.Keys(times)) {
		for _, check := range slices.Sorted(maps.Keys(times[name])) {
			runs := iv.Runs
			iv.Add(key, times[name][check], start.UnixNano(), end.UnixNano(), start.UnixNano())
			key++
			if iv.Runs == runs {
				report("%s: no %s probe in the %v window", name, check, end.Sub(start).Round(time.Second))
				continue
			}
			s.ChecksProbed++
		}
	}
	slices.Sort(iv.AbsDev)
	ms := func(ns int64) float64 { return float64(ns) / float64(time.Millisecond) }
	s.N, s.Missed = len(iv.AbsDev), int(iv.Missed)
	if s.N > 0 {
		s.P50AbsDevMs = ms(measure.Quantile(iv.AbsDev, 0.5))
		s.P99AbsDevMs = ms(measure.Quantile(iv.AbsDev, 0.99))
		s.MaxAbsDevMs = ms(iv.AbsDev[s.N-1])
	}
	return s
}

// watchFlaps counts, from the listed state on, Ready pods turning NotReady
// and container restarts. The returned functions stop the watch and report.
func watchFlaps(t *testing.T, ns string, list *v1.PodList) (flaps, restarts func() int) {
	t.Helper()
	w, err := client.CoreV1().Pods(ns).Watch(context.Background(), metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	ready := map[string]bool{}
	count := map[string]int32{}
	for _, p := range list.Items {
		ready[p.Name] = podReady(&p)
		count[p.Name] = containerStatus(&p, "target").RestartCount
	}
	var (
		mu        sync.Mutex
		nf, nr    int
		done      = make(chan struct{})
		stopOnce  sync.Once
		stopWatch = func() { stopOnce.Do(func() { w.Stop(); <-done }) }
	)
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*v1.Pod)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			mu.Lock()
			if _, listed := ready[p.Name]; !listed {
				mu.Unlock() // another node's pod (TestDensity on several nodes)
				continue
			}
			r := podReady(p)
			if ready[p.Name] && !r {
				nf++
				t.Logf("%s turned NotReady at %s", p.Name, time.Now().Format(time.RFC3339Nano))
			}
			ready[p.Name] = r
			if cs := containerStatus(p, "target"); cs != nil && cs.RestartCount > count[p.Name] {
				nr += int(cs.RestartCount - count[p.Name])
				t.Logf("%s restarted (%d -> %d) at %s", p.Name, count[p.Name], cs.RestartCount, time.Now().Format(time.RFC3339Nano))
				count[p.Name] = cs.RestartCount
			}
			mu.Unlock()
		}
	}()
	t.Cleanup(stopWatch)
	flaps = func() int { stopWatch(); mu.Lock(); defer mu.Unlock(); return nf }
	restarts = func() int { stopWatch(); mu.Lock(); defer mu.Unlock(); return nr }
	return flaps, restarts
}
