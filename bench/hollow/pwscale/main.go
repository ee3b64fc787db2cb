// Command pwscale is one measurement of the scale benchmark (docs/scale.md,
// `make scale-bench`): N hollow kubelets (upstream's kubemark hollow node,
// stock or probewheel, built by hack/build-hollow-node.sh) with P pods each,
// against a running control plane (bench/hollow/control-plane.sh).
//
// This process is everything around the kubelets, on loopback only: the fake
// container runtime of each kubelet (a CRI server on a unix socket: O(1) per
// call, ExecSync answers exec probes after --exec-latency), and the probes'
// targets (HTTP, gRPC and TCP servers on 127.x.y.z), which record when every
// probe arrives. It creates the pods, waits until all are Ready, measures a
// steady window (kubelet CPU, RSS and goroutines from /proc and the
// kubelet's read-only /metrics; probe intervals as the targets saw them; a
// readiness flip of some pods, counted on the API), restarts the kubelets
// (first probes and their burstiness as the targets saw them), tears
// everything down and writes one JSON file. hack/scale-bench.sh alternates
// the kubelets (ABBA); bench/hollow/report and bench/plots/hollow.py turn the
// files into summary.md and plots.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/probewheel/probewheel/bench/measure"
)

const (
	runLabel = "pwscale-run"
	appLabel = "app"
	appValue = "pwscale"
)

type options struct {
	kubeconfig, hollowNode, flavor, runID, out, rundir, nodeIP, handlers, namespace, profileDir string
	round, nodes, pods, kubeletV, apiBurst, podsPerIP, flipEvery                                int
	period, window, settle, execLatency, readyTimeout, flipCycle                                time.Duration
	apiQPS, createQPS                                                                           float64
	restart, profile, uts, dump, noWheel                                                        bool
}

func parseFlags() *options {
	o := &options{}
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the control plane (required)")
	flag.StringVar(&o.hollowNode, "hollow-node", "", "hollow node binary (required)")
	flag.StringVar(&o.flavor, "flavor", "", "name of the kubelet in the results: stock or probewheel (required)")
	flag.IntVar(&o.round, "round", 1, "round number, for the results")
	flag.StringVar(&o.runID, "run-id", "", "prefix of node and pod names (default: derived from the time)")
	flag.StringVar(&o.out, "out", "", "result JSON file (required)")
	flag.StringVar(&o.rundir, "rundir", "", "directory for the kubelets' logs, roots and sockets (required)")
	flag.StringVar(&o.nodeIP, "node-ip", "", "--node-ip of the kubelets: an address of this host (no traffic goes to it)")
	flag.StringVar(&o.namespace, "namespace", "pwscale", "namespace of the pods")
	flag.IntVar(&o.nodes, "nodes", 1, "hollow nodes")
	flag.IntVar(&o.pods, "pods", 110, "pods per node")
	flag.DurationVar(&o.period, "period", time.Second, "probe period (whole seconds)")
	flag.StringVar(&o.handlers, "handlers", "mixed", "probe handlers: net (startup TCP, readiness HTTP, liveness gRPC), exec (all three exec), mixed (net on even pods, exec on odd ones)")
	flag.DurationVar(&o.execLatency, "exec-latency", 0, "how long the fake runtime's ExecSync takes")
	flag.DurationVar(&o.window, "window", 0, "measured steady window (default max(60s, 13 periods): the shortest that holds the readiness flip at 10 s)")
	flag.DurationVar(&o.settle, "settle", 0, "wait after all pods are Ready, before the window (default max(15s, 2 periods))")
	flag.IntVar(&o.flipEvery, "flip-every", 20, "one pod in this many fails its readiness check for 5 periods during the window (0: none)")
	flag.DurationVar(&o.flipCycle, "flip-cycle", 0, "the flipped pods fail again every this long while the window lasts (0: once; at least 8 periods)")
	flag.DurationVar(&o.readyTimeout, "ready-timeout", 0, "how long to wait for all pods Ready before measuring anyway (>= 95 % Ready) or failing (default 5 min + 0.1 s per pod)")
	flag.Float64Var(&o.createQPS, "create-qps", 0, "pods created per second (0: as fast as the apiserver takes them, a batch)")
	flag.IntVar(&o.podsPerIP, "pods-per-ip", 50, "pods sharing one loopback pod IP")
	flag.IntVar(&o.kubeletV, "kubelet-v", 2, "kubelet log verbosity")
	flag.Float64Var(&o.apiQPS, "kube-api-qps", 50, "kubelet API QPS (the kubelet's default)")
	flag.IntVar(&o.apiBurst, "kube-api-burst", 100, "kubelet API burst (the kubelet's default)")
	flag.BoolVar(&o.restart, "restart", true, "restart the kubelets after the window and measure the first probes")
	flag.BoolVar(&o.uts, "uts", true, "run each kubelet in its own UTS namespace with the node name as host name (needs root and unshare)")
	flag.BoolVar(&o.dump, "dump", false, "write every probe arrival from the window's start on (Unix ns, pod, kind, handler) to <out>.events.csv")
	flag.BoolVar(&o.profile, "profile", false, "after the window, save node 0's goroutine summary, a 10 s CPU profile and a heap profile in -profile-dir")
	flag.StringVar(&o.profileDir, "profile-dir", "", "where -profile saves its files, named after -out (default: -out's directory)")
	flag.BoolVar(&o.noWheel, "no-wheel", false, "the probewheel kubelet schedules without the timing wheel (hack/scale-bench.sh SCALE_ARM=afterfunc), so it observes no prober_scheduler_* metric either")
	flag.Parse()
	if o.kubeconfig == "" || o.hollowNode == "" || o.flavor == "" || o.out == "" || o.rundir == "" || o.nodeIP == "" {
		fail("-kubeconfig, -hollow-node, -flavor, -out, -rundir and -node-ip are required")
	}
	if o.period < time.Second || o.period%time.Second != 0 {
		fail("-period %v: whole seconds", o.period)
	}
	if o.window == 0 {
		o.window = max(60*time.Second, 13*o.period)
	}
	if o.settle == 0 {
		o.settle = max(15*time.Second, 2*o.period)
	}
	if o.flipCycle != 0 && o.flipCycle < flipFor(o.period)+3*o.period {
		fail("-flip-cycle %v: at least %v (%v of failure, then 3 periods of success)", o.flipCycle, flipFor(o.period)+3*o.period, flipFor(o.period))
	}
	if o.flipEvery > 0 && len(flipSpans(o.window, o.period, o.flipCycle)) == 0 {
		fail("-window %v is too short for the readiness flip (%v of failure from window/4 on)", o.window, flipFor(o.period))
	}
	for _, p := range []*string{&o.rundir, &o.kubeconfig, &o.hollowNode, &o.out} {
		a, err := filepath.Abs(*p)
		if err != nil {
			fail("%v", err)
		}
		*p = a
	}
	if o.runID == "" {
		o.runID = fmt.Sprintf("pw%06x", time.Now().Unix()&0xffffff)
	}
	return o
}

// flipFor: a flipped pod's readiness check fails for failureThreshold (3) + 2 periods.
func flipFor(period time.Duration) time.Duration { return 5 * period }

// flipSpans says when the flipped pods' readiness check fails, as offsets from
// the window's start: from window/4 for flipFor(period), then again every
// cycle (0: once). A span is kept only if it ends 3 periods + 10 s before the
// window does, so that the Ready it calls for is due, and shown, inside the
// window.
func flipSpans(window, period, cycle time.Duration) [][2]time.Duration {
	var out [][2]time.Duration
	for from := window / 4; from+flipFor(period)+3*period+10*time.Second <= window; from += cycle {
		out = append(out, [2]time.Duration{from, from + flipFor(period)})
		if cycle <= 0 {
			break
		}
	}
	return out
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "pwscale: "+format+"\n", a...)
	os.Exit(2)
}

var logPrefix string

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s %s "+format+"\n", append([]any{time.Now().Format("15:04:05"), logPrefix}, a...)...)
}

func main() {
	o := parseFlags()
	logPrefix = fmt.Sprintf("[%s r%d %dx%d %v %s]", o.flavor, o.round, o.nodes, o.pods, o.period, o.handlers)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, o)
	if res != nil {
		if err != nil {
			res.Error = err.Error()
		}
		b, _ := json.MarshalIndent(res, "", "  ")
		if werr := os.WriteFile(o.out, append(b, '\n'), 0o644); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		logf("FAILED: %v", err)
		os.Exit(1)
	}
	logf("done: %s", o.out)
}

// Result is one measurement (one kubelet flavor, one workload, one round).
type Result struct {
	Kubelet       string  `json:"kubelet"` // stock or probewheel
	Version       string  `json:"version"` // kubeletVersion the nodes reported
	Round         int     `json:"round"`
	Nodes         int     `json:"nodes"`
	PodsPerNode   int     `json:"podsPerNode"`
	ProbesPerPod  int     `json:"probesPerPod"`
	PeriodS       float64 `json:"periodS"`
	Handlers      string  `json:"handlers"`
	ExecLatencyMs float64 `json:"execLatencyMs"`
	WindowS       float64 `json:"windowS"`
	Started       string  `json:"started"`

	// From the first pod creation to each pod's first Ready (as the watch saw
	// it); -1 for pods never Ready.
	AllReadyS float64 `json:"allReadyS"`
	// Pods not Ready when the wait for all gave up (at least 95 % were: the
	// run went on; 0 in a healthy run).
	NotReadyAtTimeout int       `json:"notReadyAtTimeout"`
	ReadyQuantilesS   []float64 `json:"readyQuantilesS"` // 0%, 5%, ..., 100%

	// Per kubelet process, the mean over the nodes.
	CPUCores      float64 `json:"cpuCores"`
	RSSMiB        float64 `json:"rssMiB"` // mean over the window's samples
	RSSMaxMiB     float64 `json:"rssMaxMiB"`
	Goroutines    float64 `json:"goroutines"`
	GoroutinesMax float64 `json:"goroutinesMax"`
	HeapInuseMiB  float64 `json:"heapInuseMiB"`
	ProbeRuns     float64 `json:"probeRuns"` // prober_probe_total over the window, all nodes
	CPUPerProbeUs float64 `json:"cpuPerProbeUs"`
	// The garbage collector over the window, all nodes: cycles and MiB
	// allocated (the whole kubelet's), and both per probe run.
	GCCycles       float64 `json:"gcCycles"`
	AllocMiB       float64 `json:"allocMiB"`
	GCPer1kRuns    float64 `json:"gcPer1kRuns"`
	AllocKiBPerRun float64 `json:"allocKiBPerRun"`

	Lateness          Lateness            `json:"lateness"` // readiness + liveness, flipped pods' readiness excluded
	LatenessByHandler map[string]Lateness `json:"latenessByHandler"`
	SchedulerLateness *HistSummary        `json:"schedulerLateness,omitempty"` // probewheel's own metric

	// The machine during the window: busy cores (all processes), this
	// harness's own cores (targets, fake runtimes, watches), the 1-minute
	// load average's maximum. A busy machine delays every probe.
	HostBusyCores float64      `json:"hostBusyCores"`
	HarnessCores  float64      `json:"harnessCores"`
	HostLoad1Max  float64      `json:"hostLoad1Max"`
	HostSamples   []HostSample `json:"hostSamples"`

	Transitions      Transitions  `json:"transitions"`
	LivenessFailures float64      `json:"livenessFailures"` // in the window, all nodes (must be 0)
	Restarts         int          `json:"restarts"`         // container restarts over the whole run (must be 0)
	Restart          *RestartSumm `json:"restart,omitempty"`
	PerNode          []NodeResult `json:"perNode"`
	Samples          []Sample     `json:"samples"`

	FakeRuntimeCalls int64    `json:"fakeRuntimeCalls"`
	UnknownProbes    int64    `json:"unknownProbes"` // probes of no known key (must be 0)
	Violations       []string `json:"violations"`    // the network rule: must be empty
	Error            string   `json:"error,omitempty"`
}

// maxExamples bounds Transitions.Examples: enough to name every pod with an
// extra flip in a campaign of rare ones, short where a broken run loses many.
const maxExamples = 50

// Transitions compares the readiness flips the API showed during the window
// with the ones the targets' answers call for (NotReady at the 3rd failed
// readiness probe in a row, Ready at the next successful one), pod by pod and
// in order (matchFlips): a due flip never shown is lost, a shown flip not due
// is extra. Only pods Ready at the window's start count.
type Transitions struct {
	Flipped int `json:"flipped"` // pods whose readiness check failed for 5 periods, once or every -flip-cycle
	// Exercised: flipped pods whose target answered at least 3 failures in a
	// row (fewer when probes were late or lost: then no flip is due).
	Exercised int `json:"exercised"`
	Expected  int `json:"expected"` // transitions due, from the targets' answers
	Seen      int `json:"seen"`     // of those, shown on the API (in order, after they were due)
	Lost      int `json:"lost"`     // due but never shown
	Extra     int `json:"extra"`    // shown but not due, on any pod
	Skipped   int `json:"skipped"`  // pods not Ready at the window's start: not counted
	// Examples: up to maxExamples pods with a lost or extra flip, their due
	// and shown sequences (seconds from the window's start).
	Examples []string `json:"examples,omitempty"`
}

type RestartSumm struct {
	Unprobed       int       `json:"unprobed"`
	FirstMaxS      float64   `json:"firstMaxS"`
	FirstP50S      float64   `json:"firstP50S"`
	BurstFirst     float64   `json:"burstFirst"` // the median over the nodes
	BurstFirstMax  float64   `json:"burstFirstMax"`
	BurstSteady    float64   `json:"burstSteady"`
	StartupProbes  int       `json:"startupProbes"`
	NotReady       int       `json:"notReady"` // pods that turned NotReady during the restart
	DownS          float64   `json:"downS"`    // SIGTERM to the new process's start, mean
	PerNode        []Restart `json:"perNode"`
	TimelineNode0  []int     `json:"timelineNode0"`
	TimelineBucket float64   `json:"timelineBucketS"`
}

type NodeResult struct {
	Name          string  `json:"name"`
	CPUCores      float64 `json:"cpuCores"`
	RSSMiB        float64 `json:"rssMiB"`
	RSSMaxMiB     float64 `json:"rssMaxMiB"`
	Goroutines    float64 `json:"goroutines"`
	GoroutinesMax float64 `json:"goroutinesMax"`
	HeapInuseMiB  float64 `json:"heapInuseMiB"`
	ProbeRuns     float64 `json:"probeRuns"`
	GCCycles      float64 `json:"gcCycles"`
	AllocMiB      float64 `json:"allocMiB"`
	// What the control plane saw from this node: pod writes (status updates)
	// from the first creation to the window's start, and during the window;
	// node object writes and lease renewals per minute in the window.
	PodUpdatesStartup  int     `json:"podUpdatesStartup"`
	PodUpdatesWindow   int     `json:"podUpdatesWindow"`
	NodeUpdatesPerMin  float64 `json:"nodeUpdatesPerMin"`
	LeaseUpdatesPerMin float64 `json:"leaseUpdatesPerMin"`
}

type Sample struct {
	T          float64 `json:"t"`
	Node       int     `json:"node"`
	CPUCores   float64 `json:"cpuCores"`
	RSSMiB     float64 `json:"rssMiB"`
	Goroutines float64 `json:"goroutines"`
	HeapMiB    float64 `json:"heapMiB"`
}

type HostSample struct {
	T         float64 `json:"t"`
	BusyCores float64 `json:"busyCores"`
	Load1     float64 `json:"load1"`
}

type bench struct {
	o        *options
	cs       kubernetes.Interface
	p        *plan
	rec      *recorder
	tr       *tracker
	kubelets []*hollowKubelet
	runtimes []*fakeRuntime
	res      *Result
	viol     map[string]bool
}

func run(ctx context.Context, o *options) (*Result, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	p, err := newPlan(o.runID, o.nodes, o.pods, int32(o.period/time.Second), o.handlers, o.podsPerIP, o.flipEvery)
	if err != nil {
		return nil, err
	}
	raiseFileLimit()
	b := &bench{o: o, cs: cs, p: p, rec: newRecorder(p.keys()), tr: newTracker(p), viol: map[string]bool{}}
	b.res = &Result{
		Kubelet: o.flavor, Round: o.round, Nodes: o.nodes, PodsPerNode: o.pods, ProbesPerPod: nKinds,
		PeriodS: o.period.Seconds(), Handlers: o.handlers, ExecLatencyMs: float64(o.execLatency) / 1e6,
		WindowS: o.window.Seconds(), Started: time.Now().UTC().Format(time.RFC3339),
	}
	if err := os.MkdirAll(o.rundir, 0o755); err != nil {
		return nil, err
	}
	if err := b.cleanup(ctx, true); err != nil {
		return nil, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := b.cleanup(cctx, false); err != nil {
			logf("cleanup: %v", err)
		}
	}()
	err = b.measure(ctx)
	b.res.Restarts = b.tr.restarts()
	b.res.UnknownProbes = b.rec.unknown.Load()
	for _, fr := range b.runtimes {
		b.res.FakeRuntimeCalls += fr.calls.Load()
	}
	for v := range b.viol {
		b.res.Violations = append(b.res.Violations, v)
	}
	slices.Sort(b.res.Violations)
	if err == nil && len(b.res.Violations) > 0 {
		err = fmt.Errorf("network rule violated: %v", b.res.Violations)
	}
	if err == nil && b.res.UnknownProbes > 0 {
		err = fmt.Errorf("%d probes for unknown keys", b.res.UnknownProbes)
	}
	return b.res, err
}

func (b *bench) measure(ctx context.Context) error {
	o, p := b.o, b.p
	if err := b.ensureNamespace(ctx); err != nil {
		return err
	}
	tg, err := startTargets(p, b.rec)
	if err != nil {
		return err
	}
	defer tg.stop()
	for n := range p.nodes {
		hk := newHollowKubelet(o, p, n, o.rundir)
		fr := newFakeRuntime(b.rec, o.execLatency)
		if err := os.MkdirAll(filepath.Dir(hk.criPath), 0o755); err != nil {
			return err
		}
		stopCRI, err := fr.serve(hk.criPath)
		if err != nil {
			return err
		}
		defer stopCRI()
		b.kubelets, b.runtimes = append(b.kubelets, hk), append(b.runtimes, fr)
	}
	tctx, cancelWatch := context.WithCancel(ctx)
	defer cancelWatch()
	b.tr.run(tctx, b.cs, o.namespace, o.runID)

	// ---- kubelets up, nodes Ready
	logf("starting %d hollow kubelet(s) %s", p.nodes, o.hollowNode)
	for _, hk := range b.kubelets {
		if err := hk.start(); err != nil {
			return err
		}
	}
	defer b.stopKubelets()
	if err := b.waitKubelets(ctx); err != nil {
		return err
	}

	// ---- the batch
	tCreate := time.Now()
	if err := b.createPods(ctx); err != nil {
		return err
	}
	logf("%d pods created in %.1fs; waiting for all Ready", len(p.pods), time.Since(tCreate).Seconds())
	if err := b.waitAllReady(ctx, tCreate); err != nil {
		return err
	}
	b.readyStats(tCreate)
	logf("all %d pods Ready %.1fs after the first was created", len(p.pods), b.res.AllReadyS)
	for _, bad := range b.tr.nonLoopbackPodIPs() {
		b.viol["pod IP "+bad] = true
	}
	if err := sleepCtx(ctx, o.settle); err != nil {
		return err
	}

	// ---- the steady window
	tWin := time.Now()
	if err := b.window(ctx, tCreate, tWin); err != nil {
		return err
	}
	if o.profile {
		b.saveProfiles()
	}
	var err2 error
	if o.restart {
		err2 = b.restart(ctx)
	}
	if o.dump {
		b.dumpEvents(tWin)
	}
	return err2
}

// dumpEvents writes the arrivals since t as CSV next to the result.
func (b *bench) dumpEvents(t time.Time) {
	f, err := os.Create(strings.TrimSuffix(b.o.out, ".json") + ".events.csv")
	if err != nil {
		logf("dump: %v", err)
		return
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "t_unix_ns,pod,kind,handler")
	for _, e := range b.rec.since(t.UnixNano()) {
		pp := &b.p.pods[int(e.k)/nKinds]
		kind := int(e.k) % nKinds
		fmt.Fprintf(w, "%d,%s,%s,%s\n", e.t, pp.name, kindNames[kind], pp.handlers[kind])
	}
	if err := w.Flush(); err != nil {
		logf("dump: %v", err)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// raiseFileLimit: the targets hold a listener per TCP probe and a socket per
// probe in flight; the kubelets inherit the limit (and set their own,
// maxOpenFiles).
func raiseFileLimit() {
	want := syscall.Rlimit{Cur: 1 << 20, Max: 1 << 20}
	if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil { // root
		return
	}
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

func (b *bench) ensureNamespace(ctx context.Context) error {
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: b.o.namespace}}
	if _, err := b.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// No controller-manager runs: the ServiceAccount admission plugin wants
	// the default service account to exist, so make it.
	sa := &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: b.o.namespace}}
	if _, err := b.cs.CoreV1().ServiceAccounts(b.o.namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// cleanup removes the benchmark's pods, nodes and leases: every run's when
// stale (before a run), this run's otherwise.
func (b *bench) cleanup(ctx context.Context, stale bool) error {
	b.stopKubelets()
	sel := labels.SelectorFromSet(labels.Set{runLabel: b.o.runID}).String()
	if stale {
		sel = runLabel
	}
	zero := int64(0)
	var errs []error
	err := b.cs.CoreV1().Pods(b.o.namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero},
		metav1.ListOptions{LabelSelector: sel})
	if err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, err)
	}
	nodes, err := b.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		errs = append(errs, err)
	} else {
		for _, n := range nodes.Items {
			if err := b.cs.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
			err := b.cs.CoordinationV1().Leases(v1.NamespaceNodeLease).Delete(ctx, n.Name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
		}
	}
	if !stale {
		for _, hk := range b.kubelets {
			_ = os.RemoveAll(filepath.Join(filepath.Dir(hk.criPath), "root"))
		}
	}
	// Wait until the pods are gone, so the next run starts from nothing.
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		l, err := b.cs.CoreV1().Pods(b.o.namespace).List(ctx, metav1.ListOptions{LabelSelector: sel, Limit: 1})
		if err != nil || len(l.Items) == 0 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	return errors.Join(errs...)
}

func (b *bench) stopKubelets() {
	var wg sync.WaitGroup
	for _, hk := range b.kubelets {
		wg.Go(func() { hk.stop(30 * time.Second) })
	}
	wg.Wait()
}

// waitKubelets waits for every kubelet's /healthz and Ready node.
func (b *bench) waitKubelets(ctx context.Context) error {
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for _, hk := range b.kubelets {
		if err := hk.waitHealthy(wctx); err != nil {
			return err
		}
	}
	for _, name := range b.p.nodeNames {
		for {
			n, err := b.cs.CoreV1().Nodes().Get(wctx, name, metav1.GetOptions{})
			if err == nil && nodeReady(n) {
				b.res.Version = n.Status.NodeInfo.KubeletVersion
				break
			}
			if err := sleepCtx(wctx, 250*time.Millisecond); err != nil {
				return fmt.Errorf("node %s not Ready: %w", name, err)
			}
		}
	}
	logf("%d node(s) Ready, kubelet %s", len(b.p.nodeNames), b.res.Version)
	return nil
}

func nodeReady(n *v1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

func (b *bench) createPods(ctx context.Context) error {
	lbl := map[string]string{appLabel: appValue, runLabel: b.o.runID}
	work := make(chan *podPlan)
	errc := make(chan error, 1)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for pp := range work {
				pod, err := b.p.podSpec(pp, lbl)
				for try := 0; err == nil; try++ {
					_, err = b.cs.CoreV1().Pods(b.o.namespace).Create(ctx, pod, metav1.CreateOptions{})
					if err == nil || apierrors.IsAlreadyExists(err) || try == 5 || ctx.Err() != nil {
						break
					}
					time.Sleep(time.Second)
				}
				if err != nil && !apierrors.IsAlreadyExists(err) {
					select {
					case errc <- fmt.Errorf("create %s: %w", pp.name, err):
					default:
					}
				}
			}
		})
	}
	// Round-robin over the nodes, so every node gets its pods at the same pace.
	start, sent := time.Now(), 0
	for i := range b.p.podsPerNode {
		for n := range b.p.nodes {
			if b.o.createQPS > 0 {
				time.Sleep(time.Until(start.Add(time.Duration(float64(sent) / b.o.createQPS * float64(time.Second)))))
			}
			sent++
			select {
			case work <- &b.p.pods[n*b.p.podsPerNode+i]:
			case err := <-errc:
				close(work)
				wg.Wait()
				return err
			}
		}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

func (b *bench) waitAllReady(ctx context.Context, tCreate time.Time) error {
	total := len(b.p.pods)
	timeout := b.o.readyTimeout
	if timeout == 0 {
		timeout = 5*time.Minute + time.Duration(total)*100*time.Millisecond
	}
	lastLog := time.Now()
	for {
		n, _ := b.tr.readyCount()
		if n == total {
			return nil
		}
		for _, hk := range b.kubelets {
			if !hk.alive() {
				return fmt.Errorf("%s exited; log: %s", hk.name, hk.logPath)
			}
		}
		if time.Since(tCreate) > timeout {
			// A saturated machine (probes timing out) may never have every pod
			// Ready at once: measure anyway when nearly all are, and say so.
			if n*100 >= total*95 {
				b.res.NotReadyAtTimeout = total - n
				logf("  only %d of %d pods Ready after %v: measuring anyway (notReadyAtTimeout)", n, total, timeout)
				return nil
			}
			return fmt.Errorf("only %d of %d pods Ready after %v", n, total, timeout)
		}
		if time.Since(lastLog) > 15*time.Second {
			logf("  %d/%d Ready after %.0fs", n, total, time.Since(tCreate).Seconds())
			lastLog = time.Now()
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

func (b *bench) readyStats(tCreate time.Time) {
	b.tr.mu.Lock()
	var ds []float64
	for _, pt := range b.tr.pods {
		if pt.firstReady.IsZero() {
			ds = append(ds, math.Inf(1)) // never Ready (see NotReadyAtTimeout)
		} else {
			ds = append(ds, pt.firstReady.Sub(tCreate).Seconds())
		}
	}
	b.tr.mu.Unlock()
	slices.Sort(ds)
	for q := 0; q <= 20; q++ {
		b.res.ReadyQuantilesS = append(b.res.ReadyQuantilesS, finiteOr(measure.Quantile(ds, float64(q)/20), -1))
	}
	b.res.AllReadyS = finiteOr(ds[len(ds)-1], -1)
}

// finiteOr is v, or def for ±Inf (JSON has no infinities).
func finiteOr(v, def float64) float64 {
	if math.IsInf(v, 0) {
		return def
	}
	return v
}
