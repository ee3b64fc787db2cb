//go:build e2e

package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// TestChaos is `make kind-e2e-chaos`: faults under a
// kind node's kubelet while ~200 probes run on it, hung exec probes among
// them, and what a pod watch and the node say afterwards. On the node under
// test (PW_NODE_NAME, a kind worker whose Docker container has the same name):
//
//  1. Baseline: PW_E2E_CHAOS_PODS (70) probed pods (readiness HTTP and
//     liveness TCP at 1 s, startup TCP with failureThreshold
//     PW_E2E_CHAOS_STARTUP_FAILURES, 120) and PW_E2E_CHAOS_HUNG (10) pods
//     whose exec readiness probe hangs past its 1 s timeout (probetarget
//     --hang: the check sleeps an hour), so that runs are in flight at any
//     instant; those are never Ready. Once the probed pods are Ready and
//     every container is past the kubelet's 10 s restart grace window, the
//     kubelet's goroutines (go_goroutines on /metrics) and RSS (the host's
//     /proc, PW_KUBELET_PID_CMD) are sampled.
//  2. Faults, each followed by the checks (node Ready, kubelet /healthz,
//     every probed pod Ready, every hung pod running) and a settle:
//     kubelet-kill (kill -9; systemd restarts it), containerd-restart
//     (systemctl restart containerd in the node), node-restart (docker
//     restart of the node container: its containers die, so restarts and
//     NotReady there are expected, at most one restart per container; then
//     every pod must be Ready again), churn (batches of probed pods created
//     and deleted for PW_E2E_CHAOS_CHURN, 10m, PW_E2E_CHAOS_CHURN_PODS in
//     all, 1000, PW_E2E_CHAOS_CHURN_BATCH per batch, 20, at most
//     PW_E2E_CHAOS_CHURN_LIVE on the node at once, 50). PW_E2E_CHAOS_FAULTS
//     picks a subset (comma-separated, in that order). The settle
//     (PW_E2E_CHAOS_SETTLE, 2m) is long because the churn leaves the node
//     at a load of ~100: after 30 s the patched kubelet still held 110-257
//     goroutines more than at the baseline (two earlier runs); after 2 min
//     the patched and the stock one held 9 and 7 more, cadvisor's
//     housekeeping of a few more cgroups. After the churn it is at least
//     churnDialSettle (HTTP dials to deleted pods run on until the kernel
//     gives up on them).
//  3. Figures from a pod watch started at a resourceVersion listed before the
//     faults: readiness transitions lost (a live pod that turned NotReady
//     outside node-restart with no failed readiness run of its own to
//     explain it, a probed pod not Ready again after a fault, a churn pod
//     never Ready), flips the kubelet's own failed runs explain (the load's;
//     failureLog reads them from prober_probe_total), unexpected container
//     restarts, the kubelet's goroutines and RSS after the churn against
//     the baseline (and, from two goroutine dumps, which functions the
//     difference started in), and the pod cgroups left under kubepods in
//     the node once the churn's pods are gone.
//
// It fails on a lost transition, an unexpected restart, a leftover pod
// cgroup, or goroutines after the churn more than max(25, 10%) above the
// baseline (PW_E2E_CHAOS_GOROUTINE_MARGIN: the fraction). RSS is reported,
// not judged (Go keeps freed heap a while). Results: chaos.json and
// summary.md in PW_E2E_CHAOS_OUT, the kubelet's goroutine dumps in
// PW_E2E_CHAOS_DUMPS (default: the same); skipped unless PW_E2E_CHAOS_OUT is set.
func TestChaos(t *testing.T) {
	out := os.Getenv("PW_E2E_CHAOS_OUT")
	if out == "" {
		t.Skip("PW_E2E_CHAOS_OUT not set; run make kind-e2e-chaos")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Fatalf("TestChaos needs docker (a kind node): %v", err)
	}
	cfg := chaosConfigFromEnv(t)
	dumps := envOr("PW_E2E_CHAOS_DUMPS", out)
	if err := os.MkdirAll(dumps, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &chaos{t: t, cfg: cfg, node: nodeName, container: envOr("PW_E2E_CHAOS_NODE_CONTAINER", nodeName),
		out: out, dumps: dumps, foreign: map[string]bool{}, churnUIDs: map[string]bool{}}
	c.res = chaosResult{
		Command:    "make kind-e2e-chaos",
		Date:       time.Now().UTC().Format(time.RFC3339),
		Node:       c.node,
		Kubelet:    nodeKubeletVersion(t, c.node),
		Config:     cfg,
		LoadBefore: loadAvg(),
	}
	defer c.write(out)

	c.ns = newNamespace(t)
	c.baseline()
	if t.Failed() {
		return
	}
	for _, f := range cfg.Faults {
		var err error
		switch f {
		case "kubelet-kill":
			err = c.kubeletKill()
		case "containerd-restart":
			err = c.containerdRestart()
		case "node-restart":
			err = c.nodeRestart()
		case "churn":
			err = c.churn()
		}
		if err != nil {
			t.Errorf("%s: %v (no further faults)", f, err)
			break
		}
	}
	c.finish()
}

// churnDialSettle is the least the churn settles before the kubelet's
// goroutines are counted. HTTP probes of a pod being deleted dial an address
// whose network namespace is going away; the probe gives up at its timeout,
// but Go's HTTP transport finishes a dial that a cancelled request started
// (to pool the connection), in a goroutine of its own, and a SYN nobody
// answers is retried until the kernel gives up (tcp_syn_retries 6: 127 s).
// A 1-minute settle after a 1-minute churn found 106 of those
// (net/http.(*Transport).startDialConnForLocked.func1) still waiting; after
// 2 minutes the full runs had none, on either kubelet.
const churnDialSettle = 130 * time.Second

// chaosFaults are the faults in the order they run.
var chaosFaults = []string{"kubelet-kill", "containerd-restart", "node-restart", "churn"}

type chaosConfig struct {
	Pods             int      `json:"pods"`
	HungPods         int      `json:"hungPods"`
	ProbesPerPod     int      `json:"probesPerPod"`
	ProbesPerHungPod int      `json:"probesPerHungPod"`
	PeriodSeconds    int      `json:"periodSeconds"`
	StartupFailures  int      `json:"startupFailureThreshold"`
	LivenessFailures int      `json:"livenessFailureThreshold"`
	Faults           []string `json:"faults"`
	SettleSeconds    float64  `json:"settleSeconds"`
	// ChurnSettleSeconds: the settle before the goroutines are counted after
	// the churn, at least churnDialSettle.
	ChurnSettleSeconds     float64 `json:"churnSettleSeconds"`
	ChurnSeconds           float64 `json:"churnSeconds"`
	ChurnPods              int     `json:"churnPods"`
	ChurnBatch             int     `json:"churnBatch"`
	ChurnMaxLive           int     `json:"churnMaxLive"`
	ChurnHoldSeconds       float64 `json:"churnHoldSeconds"`
	ChurnReadyTimeout      float64 `json:"churnReadyTimeoutSeconds"`
	GoroutineMargin        float64 `json:"goroutineMargin"`
	GoroutineMarginMinimum float64 `json:"goroutineMarginMinimum"`
}

func chaosConfigFromEnv(t *testing.T) chaosConfig {
	cfg := chaosConfig{
		Pods:                   envInt(t, "PW_E2E_CHAOS_PODS", 70),
		HungPods:               envInt(t, "PW_E2E_CHAOS_HUNG", 10),
		ProbesPerPod:           3,
		ProbesPerHungPod:       3,
		PeriodSeconds:          1,
		StartupFailures:        envInt(t, "PW_E2E_CHAOS_STARTUP_FAILURES", 120),
		LivenessFailures:       3,
		SettleSeconds:          envDuration(t, "PW_E2E_CHAOS_SETTLE", 2*time.Minute).Seconds(),
		ChurnSeconds:           envDuration(t, "PW_E2E_CHAOS_CHURN", 10*time.Minute).Seconds(),
		ChurnPods:              envInt(t, "PW_E2E_CHAOS_CHURN_PODS", 1000),
		ChurnBatch:             envInt(t, "PW_E2E_CHAOS_CHURN_BATCH", 20),
		ChurnMaxLive:           envInt(t, "PW_E2E_CHAOS_CHURN_LIVE", 50),
		ChurnHoldSeconds:       5,
		ChurnReadyTimeout:      180,
		GoroutineMargin:        0.10,
		GoroutineMarginMinimum: 25,
	}
	if v := os.Getenv("PW_E2E_CHAOS_GOROUTINE_MARGIN"); v != "" {
		if _, err := fmt.Sscanf(v, "%g", &cfg.GoroutineMargin); err != nil || cfg.GoroutineMargin < 0 {
			t.Fatalf("PW_E2E_CHAOS_GOROUTINE_MARGIN=%q: want a fraction (0.1 is 10%%)", v)
		}
	}
	cfg.ChurnSettleSeconds = max(cfg.SettleSeconds, churnDialSettle.Seconds())
	if cfg.ChurnBatch > cfg.ChurnMaxLive {
		t.Fatalf("PW_E2E_CHAOS_CHURN_BATCH=%d over PW_E2E_CHAOS_CHURN_LIVE=%d", cfg.ChurnBatch, cfg.ChurnMaxLive)
	}
	cfg.Faults = chaosFaults
	if v := os.Getenv("PW_E2E_CHAOS_FAULTS"); v != "" {
		want := map[string]bool{}
		for _, f := range strings.Split(v, ",") {
			if !contains(chaosFaults, f) {
				t.Fatalf("PW_E2E_CHAOS_FAULTS=%q: %q is not one of %v", v, f, chaosFaults)
			}
			want[f] = true
		}
		cfg.Faults = nil
		for _, f := range chaosFaults {
			if want[f] {
				cfg.Faults = append(cfg.Faults, f)
			}
		}
	}
	return cfg
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// chaos is one TestChaos run.
type chaos struct {
	t         *testing.T
	cfg       chaosConfig
	out       string // results directory
	dumps     string // where the goroutine dumps go
	node      string // the Kubernetes node
	container string // its Docker container
	ns        string
	probed    []string // the baseline's probed pods
	hung      []string // the hung-exec pods
	w         *chaosWatch
	nodeW     *nodeWatch
	fails     *failureLog // failed readiness runs, from the kubelet's metrics
	// sandboxChanged: per pod, when the kubelet reported SandboxChanged (it
	// found the pod's sandbox gone or not ready, and recreates it with its
	// containers), from the namespace's events at the end.
	sandboxChanged map[string][]time.Time
	baselineG      map[string]int // goroutines by entry function at the baseline
	res            chaosResult
	foreign        map[string]bool // pod cgroups of no pod on the node, before the faults
	// quietSince: when every probed pod was Ready after the last fault that
	// may change readiness (the baseline, or the node restart).
	quietSince time.Time
	churnUIDs  map[string]bool
}

type chaosResult struct {
	Command    string      `json:"command"`
	Date       string      `json:"date"`
	Node       string      `json:"node"`
	Kubelet    string      `json:"kubelet"`
	Config     chaosConfig `json:"config"`
	LoadBefore string      `json:"loadavgBefore"`
	LoadAfter  string      `json:"loadavgAfter"`

	// ProbesConfigured is every probe of the baseline's pods; in steady
	// state the startup probes are done and the rest run every second.
	ProbesConfigured int            `json:"probesConfigured"`
	AllReadySeconds  float64        `json:"allReadySeconds"`
	Baseline         kubeletSample  `json:"baseline"`
	Faults           []faultResult  `json:"faults"`
	Churn            *churnResult   `json:"churn,omitempty"`
	AfterChurn       *kubeletSample `json:"afterChurn,omitempty"`
	Cgroups          *cgroupResult  `json:"cgroups,omitempty"`
	// BaselineCgroups: the same count before the faults (the method's check).
	BaselineCgroups *cgroupResult `json:"baselineCgroups,omitempty"`

	// LostTransitions: readiness changes no probe run explains, probed pods
	// not Ready again after a fault, churn pods never Ready.
	LostTransitions int `json:"lostTransitions"`
	// FlapsFromFailedRuns: readiness changes outside the node restart that
	// a failed readiness run of the pod explains (failureLog): the load's.
	FlapsFromFailedRuns int `json:"flapsFromFailedRuns"`
	// FailedReadinessRuns: failed readiness runs of the probed and churn pods
	// the kubelet counted while the faults ran (prober_probe_total).
	FailedReadinessRuns int `json:"failedReadinessRuns"`
	FailurePolls        int `json:"failurePolls"`
	// RuntimeRestarts: container restarts outside the node restart that
	// followed a SandboxChanged of the pod (the kubelet recreated its
	// sandbox), not counted as unexpected. NotReadyFromRestarts: NotReady
	// events within a minute of the pod's own container restart.
	RuntimeRestarts      int     `json:"runtimeRestarts"`
	NotReadyFromRestarts int     `json:"notReadyFromRestarts"`
	FailurePollErrors    int     `json:"failurePollErrors"`
	UnexpectedRestarts   int     `json:"unexpectedRestarts"`
	ExpectedRestarts     int     `json:"expectedRestarts"`
	GoroutineLimit       float64 `json:"goroutineLimit"`
	// GoroutineGrowth: the kubelet's goroutines after the churn against the
	// baseline, by the function each goroutine started in (from the two
	// dumps, goroutines-*.txt.gz), largest change first.
	GoroutineGrowth []goroutineDelta `json:"goroutineGrowth,omitempty"`
	NotReadyEvents  []chaosEvent     `json:"notReadyEvents"`
	// UnseenTransitions: probed pods whose Ready condition's lastTransitionTime
	// is later than the last expected transition, while the watch saw no
	// NotReady (counted in LostTransitions).
	UnseenTransitions []chaosEvent `json:"unseenTransitions"`
	RestartEvents     []chaosEvent `json:"restartEvents"`
	NodeEvents        []chaosEvent `json:"nodeEvents"`
	WatchRestarts     int          `json:"watchRestarts"`
	WatchGaps         int          `json:"watchGaps"`
	Failures          []string     `json:"failures"`
	Pass              bool         `json:"pass"`
}

// kubeletSample is the kubelet at rest: medians of a few samples.
type kubeletSample struct {
	At           string  `json:"at"`
	PID          int     `json:"pid"`
	Goroutines   float64 `json:"goroutines"`
	RSSMiB       float64 `json:"rssMiB"`
	InFlightMax  float64 `json:"probesInFlightMax"`  // prober_scheduler_probes_in_flight (probewheel only)
	InFlightMean float64 `json:"probesInFlightMean"` // over the samples
	HungRuns     float64 `json:"hungRuns"`           // failed readiness runs of the hung pods since the kubelet started
	Samples      int     `json:"samples"`
}

type faultResult struct {
	Name  string `json:"name"`
	Start string `json:"start"`
	// KubeletBackSeconds: until the kubelet's /healthz answered again (a new PID).
	KubeletBackSeconds float64 `json:"kubeletBackSeconds,omitempty"`
	// AllReadySeconds: from the fault until every probed pod was Ready and
	// every hung pod running again (and the node Ready).
	AllReadySeconds float64       `json:"allReadySeconds"`
	NotReadyAfter   []string      `json:"notReadyAfter,omitempty"` // probed pods never Ready again
	After           kubeletSample `json:"after"`
	NotReady        int           `json:"notReadyEvents"`
	Restarts        int           `json:"restarts"`
	Error           string        `json:"error,omitempty"`
}

type churnResult struct {
	Seconds           float64  `json:"seconds"`
	Created           int      `json:"created"`
	Deleted           int      `json:"deleted"`
	ReadyBeforeDelete int      `json:"readyBeforeDelete"`
	NeverReady        []string `json:"neverReady,omitempty"`
	ReadySecondsP50   float64  `json:"readySecondsP50"` // creation to first Ready
	ReadySecondsP99   float64  `json:"readySecondsP99"`
	ReadySecondsMax   float64  `json:"readySecondsMax"`
	MaxLiveSeen       int      `json:"maxLiveSeen"`
	WaitedForRoomSecs float64  `json:"waitedForRoomSeconds"` // creation held back by ChurnMaxLive
	GoneSeconds       float64  `json:"goneSeconds"`          // last creation to every churn pod gone
}

type cgroupResult struct {
	PodsOnNode int      `json:"podsOnNode"`
	PodCgroups int      `json:"podCgroups"` // distinct pod UIDs under kubepods, all hierarchies
	Dirs       int      `json:"dirs"`
	Leftover   []string `json:"leftover,omitempty"` // cgroup paths of no pod on the node
	// AtBaseline: cgroups of no pod on the node that were already there
	// before the faults (not this run's; not counted as leftover).
	AtBaseline []string `json:"atBaseline,omitempty"`
	// ChurnLeftover: how many of the leftover are the churn's pods.
	ChurnLeftover int      `json:"churnLeftover"`
	Missing       []string `json:"missing,omitempty"` // pods on the node without a cgroup (informational)
	SettleSeconds float64  `json:"settleSeconds"`     // after the churn's pods were gone, until no leftover
	Sandboxes     int      `json:"sandboxes"`         // crictl pods (every state)
	SandboxReady  int      `json:"sandboxesReady"`

	uids map[string]string // pod UID -> one of its cgroup paths
}

type chaosEvent struct {
	T      string `json:"t"`
	at     time.Time
	Phase  string `json:"phase"`
	Pod    string `json:"pod,omitempty"`
	What   string `json:"what"`
	Detail string `json:"detail,omitempty"`
	N      int    `json:"n,omitempty"`
}

func (c *chaos) logf(format string, args ...any) {
	c.t.Helper()
	c.t.Logf("%s "+format, append([]any{time.Now().UTC().Format("15:04:05.000")}, args...)...)
}

// ---------------------------------------------------------------- baseline

func (c *chaos) probedContainer(args ...string) v1.Container {
	ct := targetContainer("target", args...)
	p := func(h v1.ProbeHandler, failures int) *v1.Probe {
		return &v1.Probe{ProbeHandler: h, PeriodSeconds: int32(c.cfg.PeriodSeconds), TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: int32(failures)}
	}
	ct.StartupProbe = p(tcpProbe(), c.cfg.StartupFailures)
	ct.LivenessProbe = p(tcpProbe(), c.cfg.LivenessFailures)
	ct.ReadinessProbe = p(httpProbe("readiness"), 3)
	return ct
}

func (c *chaos) baseline() {
	t := c.t
	created := time.Now()
	for i := range c.cfg.Pods {
		name := fmt.Sprintf("p%02d", i)
		pod := targetPod(name, c.probedContainer())
		pod.Spec.NodeName = c.node
		pod.Labels = map[string]string{"chaos": "probed"}
		createPod(t, c.ns, pod)
		c.probed = append(c.probed, name)
	}
	for i := range c.cfg.HungPods {
		name := fmt.Sprintf("h%02d", i)
		ct := c.probedContainer("--hang=hung")
		ct.ReadinessProbe.ProbeHandler = execProbe("hung")
		pod := targetPod(name, ct)
		pod.Spec.NodeName = c.node
		pod.Labels = map[string]string{"chaos": "hung"}
		createPod(t, c.ns, pod)
		c.hung = append(c.hung, name)
	}
	c.res.ProbesConfigured = c.cfg.Pods*c.cfg.ProbesPerPod + c.cfg.HungPods*c.cfg.ProbesPerHungPod
	if missing, err := c.waitSteady(15 * time.Minute); err != nil {
		t.Errorf("baseline: %v (not Ready: %v)", err, missing)
		return
	}
	c.res.AllReadySeconds = time.Since(created).Seconds()
	c.quietSince = time.Now()
	c.logf("baseline: %d probed pods Ready, %d hung pods running, %v after the first was created", len(c.probed), len(c.hung), time.Since(created).Round(time.Second))

	// Every container past the kubelet's restart grace window (TestKubeletRestart).
	list, err := client.CoreV1().Pods(c.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	newest := newestStart(list.Items, "target")
	time.Sleep(max(time.Until(newest.Add(restartGrace)), time.Duration(c.cfg.SettleSeconds*float64(time.Second))))
	c.res.Baseline = c.sample("baseline")
	c.baselineG = c.goroutineDump("baseline")
	c.logf("baseline kubelet: %+v", c.res.Baseline)

	// The watch, from a version listed before any fault.
	list, err = client.CoreV1().Pods(c.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.w = startChaosWatch(t, c.ns, list)
	c.fails = startFailureLog(t, c.node, c.ns)
	c.nodeW = startNodeWatch(c.node, c.w)
	t.Cleanup(c.nodeW.stop)
	if cg, err := c.cgroups(); err == nil {
		for uid, path := range cg.uids {
			if contains(cg.Leftover, path) {
				c.foreign[uid] = true
			}
		}
		c.res.BaselineCgroups = cg
		c.logf("baseline cgroups: %d pods on the node, %d pod cgroups (%d dirs), leftover %v, missing %v", cg.PodsOnNode, cg.PodCgroups, cg.Dirs, cg.Leftover, cg.Missing)
	} else {
		c.logf("baseline cgroups: %v", err)
	}
}

// waitSteady waits until the node is Ready, every probed pod Ready and every
// hung pod running and started; returns the pods that are not on timeout.
func (c *chaos) waitSteady(timeout time.Duration) ([]string, error) {
	var missing []string
	err := wait4(timeout, func(ctx context.Context) (bool, error) {
		missing = nil
		n, err := client.CoreV1().Nodes().Get(ctx, c.node, metav1.GetOptions{})
		if err != nil {
			missing = []string{"node " + c.node + ": " + err.Error()}
			return false, nil
		}
		if !nodeReady(n) {
			missing = append(missing, "node "+c.node)
		}
		list, err := client.CoreV1().Pods(c.ns).List(ctx, metav1.ListOptions{LabelSelector: "chaos in (probed,hung)"})
		if err != nil {
			missing = append(missing, "list: "+err.Error())
			return false, nil
		}
		byName := map[string]*v1.Pod{}
		for i := range list.Items {
			byName[list.Items[i].Name] = &list.Items[i]
		}
		for _, name := range c.probed {
			if p := byName[name]; p == nil || !podReady(p) {
				missing = append(missing, name)
			}
		}
		for _, name := range c.hung {
			p := byName[name]
			var cs *v1.ContainerStatus
			if p != nil {
				cs = containerStatus(p, "target")
			}
			if cs == nil || cs.State.Running == nil || !deref(cs.Started) {
				missing = append(missing, name)
			}
		}
		return len(missing) == 0, nil
	})
	return missing, err
}

func wait4(timeout time.Duration, cond func(ctx context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
		ok, err := cond(cctx)
		ccancel()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not within %v", timeout)
		case <-time.After(time.Second):
		}
	}
}

func nodeReady(n *v1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// sample takes 6 samples 5 s apart of the kubelet (goroutines, RSS, probes
// in flight) and keeps the medians.
func (c *chaos) sample(at string) kubeletSample {
	t := c.t
	s := kubeletSample{At: at, PID: kubeletPID(t, c.node)}
	var gs, rss, inflight []float64
	for i := range 6 {
		if i > 0 {
			time.Sleep(5 * time.Second)
		}
		m, err := tryNodeKubeletGet(c.node, "metrics")
		if err != nil {
			t.Errorf("%s: kubelet /metrics: %v", at, err)
			continue
		}
		if v, ok := metricValue(m, "go_goroutines"); ok {
			gs = append(gs, v)
		}
		rss = append(rss, procRSSMiB(t, s.PID))
		if pm, err := tryNodeKubeletGet(c.node, "metrics", "probes"); err == nil {
			if v, ok := metricValue(pm, "prober_scheduler_probes_in_flight"); ok {
				inflight = append(inflight, v)
			}
			s.HungRuns, _ = metricValue(pm, "prober_probe_total", `namespace="`+c.ns+`"`, `pod="h`, `probe_type="Readiness"`)
		}
	}
	s.Samples = len(gs)
	s.Goroutines, s.RSSMiB = median(gs), median(rss)
	for _, v := range inflight {
		s.InFlightMax = max(s.InFlightMax, v)
		s.InFlightMean += v / float64(len(inflight))
	}
	if pid := kubeletPID(t, c.node); pid != s.PID {
		t.Errorf("%s: the kubelet restarted while it was sampled (%d -> %d)", at, s.PID, pid)
	}
	return s
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64{}, xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// goroutineDump saves the kubelet's goroutine dump (pprof debug=1, through
// the node proxy) as goroutines-<at>.txt.gz and counts its goroutines by the
// function each started in. Nil if the kubelet serves no dump (debugging
// handlers off): the test then reports counts only.
func (c *chaos) goroutineDump(at string) map[string]int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := client.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", c.node, "proxy", "debug", "pprof", "goroutine").Param("debug", "1").DoRaw(ctx)
	if err != nil {
		c.logf("%s: no goroutine dump: %v", at, err)
		return nil
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b)
	zw.Close()
	if err := os.WriteFile(filepath.Join(c.dumps, "goroutines-"+at+".txt.gz"), gz.Bytes(), 0o644); err != nil {
		c.t.Error(err)
	}
	return goroutinesByEntry(string(b))
}

// goroutinesByEntry parses a debug=1 goroutine profile: records of
// "<count> @ <pcs>" followed by "#\t<pc>\t<func>+<off>\t<file>:<line>"
// frames, innermost first; the last frame is where the goroutine started.
func goroutinesByEntry(dump string) map[string]int {
	counts := map[string]int{}
	n, entry := 0, ""
	flush := func() {
		if n > 0 && entry != "" {
			counts[entry] += n
		}
		n, entry = 0, ""
	}
	for _, line := range strings.Split(dump, "\n") {
		switch {
		case strings.Contains(line, " @ 0x"):
			flush()
			fmt.Sscanf(line, "%d @", &n)
		case strings.HasPrefix(line, "#\t"):
			if f := strings.Split(line, "\t"); len(f) >= 3 {
				entry, _, _ = strings.Cut(f[2], "+")
			}
		}
	}
	flush()
	return counts
}

type goroutineDelta struct {
	Func   string `json:"func"`
	Before int    `json:"before"`
	After  int    `json:"after"`
}

// goroutineGrowth lists the entry functions whose count changed, largest
// change first; nil unless both dumps were taken.
func goroutineGrowth(before, after map[string]int) []goroutineDelta {
	if before == nil || after == nil {
		return nil
	}
	var ds []goroutineDelta
	for f := range mergeKeys(before, after) {
		if before[f] != after[f] {
			ds = append(ds, goroutineDelta{Func: f, Before: before[f], After: after[f]})
		}
	}
	sort.Slice(ds, func(i, j int) bool {
		di, dj := ds[i].After-ds[i].Before, ds[j].After-ds[j].Before
		if abs(di) != abs(dj) {
			return abs(di) > abs(dj)
		}
		return ds[i].Func < ds[j].Func
	})
	return ds
}

func mergeKeys(a, b map[string]int) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

func abs(x int) int { return max(x, -x) }

// tryNodeKubeletGet GETs a kubelet path through the node proxy, retrying for
// a minute (a kubelet that has just restarted).
func tryNodeKubeletGet(node string, path ...string) (string, error) {
	var b []byte
	var err error
	for deadline := time.Now().Add(time.Minute); ; {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		b, err = client.CoreV1().RESTClient().Get().AbsPath(append([]string{"/api/v1/nodes", node, "proxy"}, path...)...).DoRaw(ctx)
		cancel()
		if err == nil || time.Now().After(deadline) {
			return string(b), err
		}
		time.Sleep(time.Second)
	}
}

// ---------------------------------------------------------------- faults

// docker runs docker with the arguments (a minute at most).
func docker(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	if err != nil {
		return string(b), fmt.Errorf("docker %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(b)))
	}
	return string(b), nil
}

// innerKubeletPID is systemd's MainPID of the kubelet in the node (0: not running).
func (c *chaos) innerKubeletPID() int {
	out, err := docker("exec", c.container, "systemctl", "show", "-p", "MainPID", "--value", "kubelet")
	if err != nil {
		return 0
	}
	var pid int
	fmt.Sscanf(strings.TrimSpace(out), "%d", &pid)
	return pid
}

// waitKubelet waits until a kubelet other than old runs in the node and its
// /healthz answers; returns when it did.
func (c *chaos) waitKubelet(old int, timeout time.Duration) (time.Time, error) {
	var at time.Time
	err := wait4(timeout, func(context.Context) (bool, error) {
		pid := c.innerKubeletPID()
		if pid == 0 || pid == old {
			return false, nil
		}
		if _, err := docker("exec", c.container, "curl", "-sf", "http://127.0.0.1:10248/healthz"); err != nil {
			return false, nil
		}
		at = time.Now()
		return true, nil
	})
	return at, err
}

// fault runs one fault: the phase is set before do, then the checks and the
// settle, and the kubelet sampled.
func (c *chaos) fault(name string, readyTimeout time.Duration, do func(f *faultResult) error) error {
	f := faultResult{Name: name, Start: time.Now().UTC().Format(time.RFC3339Nano)}
	start := time.Now()
	c.w.setPhase(name)
	c.logf("fault %s", name)
	defer func() { c.res.Faults = append(c.res.Faults, f) }()
	if err := do(&f); err != nil {
		f.Error = err.Error()
		return err
	}
	missing, err := c.waitSteady(readyTimeout)
	f.AllReadySeconds = time.Since(start).Seconds()
	if name == "node-restart" {
		c.quietSince = time.Now() // the last Ready transition this run expects
	}
	if err != nil {
		for _, m := range missing {
			if contains(c.probed, m) {
				f.NotReadyAfter = append(f.NotReadyAfter, m)
			}
		}
		c.t.Errorf("%s: not steady again: %v: %v", name, err, missing)
		if len(f.NotReadyAfter) < len(missing) { // the node or a hung pod: no point going on
			f.Error = fmt.Sprintf("not steady again: %v", missing)
			return errors.New(f.Error)
		}
	} else {
		c.logf("%s: every probed pod Ready, every hung pod running %v after the fault", name, time.Since(start).Round(100*time.Millisecond))
	}
	time.Sleep(time.Duration(c.cfg.SettleSeconds * float64(time.Second)))
	// Events from here on belong to no fault: nothing may flap.
	c.w.setPhase("after-" + name)
	f.After = c.sample("after " + name)
	f.NotReady, f.Restarts = c.w.countPhase(name)
	c.logf("%s: %d NotReady events, %d restarts; kubelet %+v", name, f.NotReady, f.Restarts, f.After)
	return nil
}

func (c *chaos) kubeletKill() error {
	return c.fault("kubelet-kill", 5*time.Minute, func(f *faultResult) error {
		old := c.innerKubeletPID()
		if old == 0 {
			return errors.New("no kubelet running in the node")
		}
		t0 := time.Now()
		if _, err := docker("exec", c.container, "pkill", "-9", "-x", "kubelet"); err != nil {
			return err
		}
		back, err := c.waitKubelet(old, 2*time.Minute)
		if err != nil {
			return fmt.Errorf("kubelet not back: %v", err)
		}
		f.KubeletBackSeconds = back.Sub(t0).Seconds()
		c.logf("kubelet-kill: /healthz again %v after kill -9 (pid %d -> %d)", back.Sub(t0).Round(10*time.Millisecond), old, c.innerKubeletPID())
		return nil
	})
}

func (c *chaos) containerdRestart() error {
	return c.fault("containerd-restart", 5*time.Minute, func(f *faultResult) error {
		t0 := time.Now()
		if _, err := docker("exec", c.container, "systemctl", "restart", "containerd"); err != nil {
			return err
		}
		err := wait4(2*time.Minute, func(context.Context) (bool, error) {
			_, err := docker("exec", c.container, "crictl", "info")
			if err != nil {
				return false, nil
			}
			_, err = docker("exec", c.container, "curl", "-sf", "http://127.0.0.1:10248/healthz")
			return err == nil, nil
		})
		if err != nil {
			return fmt.Errorf("containerd or the kubelet not back: %v", err)
		}
		f.KubeletBackSeconds = time.Since(t0).Seconds()
		return nil
	})
}

func (c *chaos) nodeRestart() error {
	return c.fault("node-restart", 15*time.Minute, func(f *faultResult) error {
		t0 := time.Now()
		if _, err := docker("restart", c.container); err != nil {
			return err
		}
		// A new PID namespace: the new kubelet may get the old one's PID, so
		// any kubelet that answers after the restart returned is the new one.
		back, err := c.waitKubelet(0, 5*time.Minute)
		if err != nil {
			return fmt.Errorf("kubelet not back: %v", err)
		}
		f.KubeletBackSeconds = back.Sub(t0).Seconds()
		c.logf("node-restart: kubelet /healthz %v after docker restart", back.Sub(t0).Round(100*time.Millisecond))
		// The restart killed every container, but the new kubelet reports
		// that (a restart, exit 255) only once it has synced each pod, and
		// the API server may show the pods Ready from before until then: the
		// fault is over once every container's restart was seen, so that
		// those restarts and the Ready transitions after them count as the
		// node restart's, not as unexpected ones later.
		all := append(append([]string{}, c.probed...), c.hung...)
		if err := wait4(5*time.Minute, func(context.Context) (bool, error) {
			seen := c.w.restartedIn("node-restart")
			for _, name := range all {
				if seen[name] == 0 {
					return false, nil
				}
			}
			return true, nil
		}); err != nil {
			seen := c.w.restartedIn("node-restart")
			c.logf("node-restart: only %d of %d pods' restarts seen after 5 min", len(seen), len(all))
		}
		return nil
	})
}

// ---------------------------------------------------------------- churn

func (c *chaos) churn() error {
	cfg := c.cfg
	cr := &churnResult{}
	c.res.Churn = cr
	c.w.setPhase("churn")
	c.logf("churn: %d pods in batches of %d over %v, at most %d on the node at once", cfg.ChurnPods, cfg.ChurnBatch, secs(cfg.ChurnSeconds), cfg.ChurnMaxLive)
	duration := secs(cfg.ChurnSeconds)
	batches := (cfg.ChurnPods + cfg.ChurnBatch - 1) / cfg.ChurnBatch
	interval := duration / time.Duration(batches)
	hold, readyTimeout := secs(cfg.ChurnHoldSeconds), secs(cfg.ChurnReadyTimeout)

	start := time.Now()
	next := start
	live := map[string]time.Time{} // created, not deleted yet
	deleting := map[string]bool{}  // deleted, not gone yet
	var readyAfter []float64
	var waitingSince, lastCreate, lastList time.Time
	for {
		now := time.Now()
		if len(deleting) > 0 && now.Sub(lastList) >= 10*time.Second {
			// The watch's Deleted events, checked against a list now and then.
			lastList = now
			if list, err := client.CoreV1().Pods(c.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "chaos=churn"}); err == nil {
				present := map[string]bool{}
				for _, p := range list.Items {
					present[p.Name] = true
				}
				for name := range deleting {
					if !present[name] {
						delete(deleting, name)
					}
				}
			}
		}
		// Delete what has been Ready for hold, or was never Ready in readyTimeout.
		var del []string
		c.w.mu.Lock()
		for name, created := range live {
			tr := c.w.pods[name]
			switch {
			case tr != nil && tr.everReady && now.Sub(tr.firstReady) >= hold:
				readyAfter = append(readyAfter, tr.firstReady.Sub(created).Seconds())
				cr.ReadyBeforeDelete++
				del = append(del, name)
			case now.Sub(created) >= readyTimeout:
				cr.NeverReady = append(cr.NeverReady, name)
				del = append(del, name)
			}
		}
		for name := range deleting {
			if tr := c.w.pods[name]; tr != nil && tr.gone {
				delete(deleting, name)
			}
		}
		c.w.mu.Unlock()
		for _, name := range del {
			err := client.CoreV1().Pods(c.ns).Delete(context.Background(), name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete %s: %v", name, err)
			}
			delete(live, name)
			deleting[name] = true
			cr.Deleted++
		}
		cr.MaxLiveSeen = max(cr.MaxLiveSeen, len(live)+len(deleting))

		creating := cr.Created < cfg.ChurnPods && now.Sub(start) < duration
		if creating && !now.Before(next) {
			n := min(cfg.ChurnBatch, cfg.ChurnPods-cr.Created)
			if len(live)+len(deleting)+n <= cfg.ChurnMaxLive {
				if !waitingSince.IsZero() {
					cr.WaitedForRoomSecs += now.Sub(waitingSince).Seconds()
					waitingSince = time.Time{}
				}
				for range n {
					name := fmt.Sprintf("c%04d", cr.Created)
					pod := targetPod(name, c.probedContainer())
					pod.Spec.NodeName = c.node
					pod.Labels = map[string]string{"chaos": "churn"}
					at := time.Now()
					p, err := client.CoreV1().Pods(c.ns).Create(context.Background(), pod, metav1.CreateOptions{})
					if err != nil {
						return fmt.Errorf("create %s: %v", name, err)
					}
					c.churnUIDs[string(p.UID)] = true
					live[name] = at
					cr.Created++
				}
				lastCreate = time.Now()
				next = next.Add(interval)
				if (cr.Created/cfg.ChurnBatch)%10 == 0 {
					c.logf("churn: %d created, %d deleted, %d on the node", cr.Created, cr.Deleted, len(live)+len(deleting))
				}
			} else if waitingSince.IsZero() {
				waitingSince = now
			}
		}
		if !creating && len(live) == 0 && len(deleting) == 0 {
			break
		}
		if now.Sub(start) > duration+10*time.Minute {
			return fmt.Errorf("churn did not end 10 min after its %v: %d live, %d being deleted", duration, len(live), len(deleting))
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !waitingSince.IsZero() {
		cr.WaitedForRoomSecs += time.Since(waitingSince).Seconds()
	}
	cr.Seconds = time.Since(start).Seconds()
	cr.GoneSeconds = time.Since(lastCreate).Seconds()
	sort.Float64s(readyAfter)
	if n := len(readyAfter); n > 0 {
		cr.ReadySecondsP50 = readyAfter[n/2]
		cr.ReadySecondsP99 = readyAfter[min(n-1, n*99/100)]
		cr.ReadySecondsMax = readyAfter[n-1]
	}
	c.logf("churn: %+v", *cr)
	// Every churn pod is gone from the API; the baseline pods still Ready.
	if missing, err := c.waitSteady(2 * time.Minute); err != nil {
		c.t.Errorf("after the churn: not steady: %v: %v", err, missing)
	}
	c.w.setPhase("after-churn")
	return nil
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// ---------------------------------------------------------------- the end

var podUIDInCgroup = regexp.MustCompile(`pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})`)

// cgroups lists the pod cgroups under kubepods in the node (every
// hierarchy) against the pods the API server has on the node.
func (c *chaos) cgroups() (*cgroupResult, error) {
	out, err := docker("exec", c.container, "sh", "-c", `find /sys/fs/cgroup -type d -path '*kubepods*' -name '*pod*' 2>/dev/null; true`)
	if err != nil {
		return nil, err
	}
	r := &cgroupResult{}
	paths := map[string]string{} // uid -> a path
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		// A pod's cgroup directory itself, not its containers' below it.
		m := podUIDInCgroup.FindStringSubmatch(filepath.Base(line))
		if m == nil {
			continue
		}
		r.Dirs++
		uid := strings.ReplaceAll(m[1], "_", "-")
		if _, ok := paths[uid]; !ok {
			paths[uid] = line
		}
	}
	r.PodCgroups = len(paths)
	pods, err := client.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{FieldSelector: "spec.nodeName=" + c.node})
	if err != nil {
		return nil, err
	}
	onNode := map[string]string{}
	for _, p := range pods.Items {
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		onNode[string(p.UID)] = p.Namespace + "/" + p.Name
	}
	r.PodsOnNode = len(onNode)
	for uid, path := range paths {
		if _, ok := onNode[uid]; ok {
			continue
		}
		switch {
		case c.foreign[uid]:
			r.AtBaseline = append(r.AtBaseline, path)
		default:
			r.Leftover = append(r.Leftover, path)
			if c.churnUIDs[uid] {
				r.ChurnLeftover++
			}
		}
	}
	for uid, name := range onNode {
		if _, ok := paths[uid]; !ok {
			r.Missing = append(r.Missing, name)
		}
	}
	sort.Strings(r.Leftover)
	sort.Strings(r.AtBaseline)
	r.uids = paths
	sort.Strings(r.Missing)
	if out, err := docker("exec", c.container, "crictl", "pods", "-q"); err == nil {
		r.Sandboxes = len(strings.Fields(out))
	}
	if out, err := docker("exec", c.container, "crictl", "pods", "-q", "--state", "ready"); err == nil {
		r.SandboxReady = len(strings.Fields(out))
	}
	return r, nil
}

func (c *chaos) finish() {
	t := c.t
	if c.w == nil {
		return
	}
	if contains(c.cfg.Faults, "churn") && c.res.Churn != nil && c.res.Churn.Seconds > 0 {
		// The churn's pods are gone from the API server; the kubelet removes
		// their cgroups in its housekeeping: give it two minutes.
		start := time.Now()
		var cg *cgroupResult
		err := wait4(2*time.Minute, func(context.Context) (bool, error) {
			var err error
			cg, err = c.cgroups()
			return err == nil && len(cg.Leftover) == 0, nil
		})
		if cg != nil {
			cg.SettleSeconds = time.Since(start).Seconds()
			c.res.Cgroups = cg
			c.logf("cgroups: %d pods on the node, %d pod cgroups (%d dirs), leftover %v, missing %v; sandboxes %d (%d ready)",
				cg.PodsOnNode, cg.PodCgroups, cg.Dirs, cg.Leftover, cg.Missing, cg.Sandboxes, cg.SandboxReady)
		}
		if err != nil {
			if cg == nil {
				t.Errorf("cgroups: %v", err)
			}
		}
		time.Sleep(time.Duration(c.cfg.ChurnSettleSeconds * float64(time.Second)))
		s := c.sample("after churn")
		c.res.AfterChurn = &s
		c.res.GoroutineGrowth = goroutineGrowth(c.baselineG, c.goroutineDump("after-churn"))
	}
	// Transitions no stored status shows: a probed pod whose Ready
	// condition changed after the last expected change turned NotReady and
	// back inside the kubelet, and its status manager wrote only the latest.
	if list, err := client.CoreV1().Pods(c.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "chaos=probed"}); err == nil {
		for _, p := range list.Items {
			for _, cond := range p.Status.Conditions {
				// lastTransitionTime has whole seconds.
				if cond.Type == v1.PodReady && cond.LastTransitionTime.Time.After(c.quietSince.Add(time.Second)) {
					// +1 s: lastTransitionTime is truncated to the second.
					ev := chaosEvent{T: cond.LastTransitionTime.UTC().Format("15:04:05"), at: cond.LastTransitionTime.Add(time.Second), Phase: "unseen", Pod: p.Name,
						What: "Ready lastTransitionTime", Detail: fmt.Sprintf("Ready=%s since %s, after the last expected transition (%s): a NotReady the API server never stored",
							cond.Status, cond.LastTransitionTime.UTC().Format(time.RFC3339), c.quietSince.UTC().Format(time.RFC3339))}
					c.res.UnseenTransitions = append(c.res.UnseenTransitions, ev)
					c.logf("%s: %s", p.Name, ev.Detail)
				}
			}
		}
	} else {
		t.Errorf("list probed pods: %v", err)
	}
	// A last look: every probed pod still Ready.
	if missing, err := c.waitSteady(time.Minute); err != nil {
		t.Errorf("at the end: not steady: %v: %v", err, missing)
		for _, m := range missing {
			if contains(c.probed, m) {
				c.res.LostTransitions++
			}
		}
	}
	c.sandboxChanged = sandboxChanges(c.ns)
	c.nodeW.stop()
	c.w.stop()
	c.fails.stop()
	c.res.LoadAfter = loadAvg()
}

// sandboxChanges lists the namespace's SandboxChanged events: per pod, the
// times the kubelet reported them (first and last of a repeated event).
func sandboxChanges(ns string) map[string][]time.Time {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=SandboxChanged"})
	if err != nil {
		return nil
	}
	out := map[string][]time.Time{}
	for _, e := range list.Items {
		for _, at := range []time.Time{e.FirstTimestamp.Time, e.LastTimestamp.Time, e.EventTime.Time} {
			if !at.IsZero() {
				out[e.InvolvedObject.Name] = append(out[e.InvolvedObject.Name], at)
			}
		}
	}
	return out
}

// verdict fills in the figures and failures from what was recorded.
func (c *chaos) verdict() {
	r := &c.res
	if c.w != nil {
		c.w.mu.Lock()
		r.NotReadyEvents = append([]chaosEvent{}, c.w.notReady...)
		r.RestartEvents = append([]chaosEvent{}, c.w.restarts...)
		r.WatchRestarts, r.WatchGaps = c.w.rewatches, c.w.gaps
		c.w.mu.Unlock()
	}
	if c.nodeW != nil {
		r.NodeEvents = c.nodeW.events()
	}
	// A readiness change outside the node restart is a failed probe run's
	// (the load's: failureLog) or lost: a result that never reached the
	// status, or one nobody produced.
	explained := func(e *chaosEvent) bool {
		if c.fails == nil || !c.fails.explains(e.Pod, e.at) {
			return false
		}
		e.What += " after a failed readiness run"
		r.FlapsFromFailedRuns++
		return true
	}
	// A container restart is the runtime's when the kubelet recreated the
	// pod's sandbox (SandboxChanged) in the minute before it: the restart
	// of containerd can leave a sandbox the kubelet sees as not ready. The
	// prober has no part in that decision (a liveness kill reports Unhealthy
	// and Killing instead).
	restartedNear := map[string][]time.Time{}
	for i := range r.RestartEvents {
		e := &r.RestartEvents[i]
		if e.Phase == "node-restart" {
			continue
		}
		restartedNear[e.Pod] = append(restartedNear[e.Pod], e.at)
		for _, sc := range c.sandboxChanged[e.Pod] {
			if !sc.Before(e.at.Add(-time.Minute)) && !sc.After(e.at.Add(5*time.Second)) {
				e.What += " after SandboxChanged (the runtime's)"
				r.RuntimeRestarts += e.N
				break
			}
		}
	}
	// A NotReady within a minute of the pod's own container restart is the
	// restart's (the new container starts not ready); the restart is counted
	// on its own, as the runtime's or as unexpected.
	afterRestart := func(e *chaosEvent) bool {
		for _, at := range restartedNear[e.Pod] {
			if d := e.at.Sub(at); d > -time.Minute && d < time.Minute {
				e.What += " after its container restarted"
				r.NotReadyFromRestarts++
				return true
			}
		}
		return false
	}
	for i := range r.NotReadyEvents {
		if e := &r.NotReadyEvents[i]; e.Phase != "node-restart" && !afterRestart(e) && !explained(e) {
			r.LostTransitions++
		}
	}
	if c.fails != nil {
		c.fails.mu.Lock()
		r.FailurePolls, r.FailurePollErrors = c.fails.polls, c.fails.errors
		c.fails.mu.Unlock()
		for pod, n := range c.fails.failedRuns() {
			if !contains(c.hung, pod) { // the hung pods' runs all fail
				r.FailedReadinessRuns += int(n)
			}
		}
	}
	perPod := map[string]int{}
	for _, e := range r.RestartEvents {
		if e.Phase == "node-restart" {
			perPod[e.Pod] += e.N
		} else if !strings.Contains(e.What, "SandboxChanged") {
			r.UnexpectedRestarts += e.N
		}
	}
	for _, n := range perPod {
		r.ExpectedRestarts += min(n, 1)
		r.UnexpectedRestarts += max(n-1, 0) // the node restart kills each container once
	}
	for _, f := range r.Faults {
		r.LostTransitions += len(f.NotReadyAfter)
	}
	if r.Churn != nil {
		r.LostTransitions += len(r.Churn.NeverReady)
	}
	for i := range r.UnseenTransitions {
		e := &r.UnseenTransitions[i]
		seen := false
		for _, n := range r.NotReadyEvents {
			seen = seen || (n.Pod == e.Pod && n.Phase != "node-restart")
		}
		if !seen && !explained(e) {
			r.LostTransitions++
		}
	}
	fail := func(format string, args ...any) { r.Failures = append(r.Failures, fmt.Sprintf(format, args...)) }
	if r.LostTransitions > 0 {
		fail("%d readiness transitions lost", r.LostTransitions)
	}
	if r.UnexpectedRestarts > 0 {
		fail("%d unexpected container restarts", r.UnexpectedRestarts)
	}
	if r.WatchGaps > 0 {
		fail("the pod watch lost its place %d times (events may be missing)", r.WatchGaps)
	}
	if r.Cgroups != nil && len(r.Cgroups.Leftover) > 0 {
		fail("%d pod cgroups left behind", len(r.Cgroups.Leftover))
	}
	if r.AfterChurn != nil {
		r.GoroutineLimit = r.Baseline.Goroutines + max(r.Config.GoroutineMarginMinimum, r.Config.GoroutineMargin*r.Baseline.Goroutines)
		if r.AfterChurn.Goroutines > r.GoroutineLimit {
			fail("kubelet goroutines after the churn %.0f, over %.0f (baseline %.0f)", r.AfterChurn.Goroutines, r.GoroutineLimit, r.Baseline.Goroutines)
		}
	}
	done := map[string]bool{}
	for _, f := range r.Faults {
		done[f.Name] = f.Error == ""
	}
	for _, f := range r.Config.Faults {
		if f != "churn" && !done[f] {
			fail("fault %s did not complete", f)
		}
	}
	if contains(r.Config.Faults, "churn") && (r.Churn == nil || r.Churn.Seconds == 0) {
		fail("the churn did not complete")
	}
	if c.t.Failed() && len(r.Failures) == 0 {
		fail("the test failed (see its log)")
	}
	r.Pass = len(r.Failures) == 0
}

func (c *chaos) write(out string) {
	t := c.t
	c.verdict()
	for _, f := range c.res.Failures {
		if !strings.HasPrefix(f, "the test failed") {
			t.Error(f)
		}
	}
	b, err := json.MarshalIndent(c.res, "", "  ")
	if err != nil {
		t.Error(err)
		return
	}
	if err := os.WriteFile(filepath.Join(out, "chaos.json"), append(b, '\n'), 0o644); err != nil {
		t.Error(err)
	}
	if err := os.WriteFile(filepath.Join(out, "summary.md"), []byte(c.summary()), 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("results: %s/chaos.json, summary.md (pass: %v)", out, c.res.Pass)
}

func (c *chaos) summary() string {
	r := &c.res
	var b strings.Builder
	verdict := "**PASS**"
	if !r.Pass {
		verdict = "**FAIL**: " + strings.Join(r.Failures, "; ")
	}
	fmt.Fprintf(&b, "# Chaos on kind (`%s`)\n\n", r.Command)
	fmt.Fprintf(&b, "%s, node `%s`, kubelet `%s`; load average %s before, %s after. %s\n\n", r.Date, r.Node, r.Kubelet, r.LoadBefore, r.LoadAfter, verdict)
	fmt.Fprintf(&b, "Load: %d probed pods (startup TCP, failureThreshold %d; readiness HTTP; liveness TCP; all every %d s) and %d pods whose exec readiness probe hangs past its 1 s timeout (+ startup and liveness TCP): %d probes; all probed pods Ready %.0f s after the first was created.\n\n",
		r.Config.Pods, r.Config.StartupFailures, r.Config.PeriodSeconds, r.Config.HungPods, r.ProbesConfigured, r.AllReadySeconds)
	fmt.Fprintf(&b, "| | value |\n|---|---|\n")
	fmt.Fprintf(&b, "| readiness transitions lost: no probe run explains them, or never Ready again | %d |\n", r.LostTransitions)
	fmt.Fprintf(&b, "| readiness flips a failed readiness run explains (NotReady in the watch, or only in a Ready condition's lastTransitionTime: %d) | %d |\n", len(r.UnseenTransitions), r.FlapsFromFailedRuns)
	fmt.Fprintf(&b, "| failed readiness runs of probed and churn pods (prober_probe_total, %d polls, %d failed) | %d |\n", r.FailurePolls, r.FailurePollErrors, r.FailedReadinessRuns)
	fmt.Fprintf(&b, "| unexpected container restarts | %d |\n", r.UnexpectedRestarts)
	fmt.Fprintf(&b, "| container restarts after the kubelet recreated the pod's sandbox (SandboxChanged; the runtime's), and the NotReady they caused | %d, %d |\n", r.RuntimeRestarts, r.NotReadyFromRestarts)
	fmt.Fprintf(&b, "| restarts the node-container restart caused (at most one per container counted) | %d |\n", r.ExpectedRestarts)
	if r.AfterChurn != nil {
		fmt.Fprintf(&b, "| kubelet goroutines: baseline → after the churn (limit) | %.0f → %.0f (%.0f) |\n", r.Baseline.Goroutines, r.AfterChurn.Goroutines, r.GoroutineLimit)
		fmt.Fprintf(&b, "| kubelet RSS: baseline → after the churn | %.1f → %.1f MiB |\n", r.Baseline.RSSMiB, r.AfterChurn.RSSMiB)
	}
	if cg := r.Cgroups; cg != nil {
		fmt.Fprintf(&b, "| pod cgroups under kubepods / pods on the node after the churn | %d / %d (leftover %d) |\n", cg.PodCgroups, cg.PodsOnNode, len(cg.Leftover))
	}
	fmt.Fprintf(&b, "| pod watch re-established / lost its place | %d / %d |\n\n", r.WatchRestarts, r.WatchGaps)

	fmt.Fprintf(&b, "| step | kubelet back | all Ready again | NotReady events | restarts | goroutines | RSS MiB | probes in flight (max) | kubelet PID |\n|---|---|---|---|---|---|---|---|---|\n")
	row := func(name, back, ready string, nr, rs int, s kubeletSample) {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %.0f | %.1f | %.0f | %d |\n", name, back, ready, nr, rs, s.Goroutines, s.RSSMiB, s.InFlightMax, s.PID)
	}
	row("baseline", "", "", 0, 0, r.Baseline)
	for _, f := range r.Faults {
		ready := fmt.Sprintf("%.1f s", f.AllReadySeconds)
		if len(f.NotReadyAfter) > 0 {
			ready = fmt.Sprintf("%d not Ready", len(f.NotReadyAfter))
		}
		if f.Error != "" {
			ready = "error: " + f.Error
		}
		row(f.Name, fmt.Sprintf("%.1f s", f.KubeletBackSeconds), ready, f.NotReady, f.Restarts, f.After)
	}
	if r.AfterChurn != nil {
		nr, rs := 0, 0
		for _, e := range r.NotReadyEvents {
			if e.Phase == "churn" || e.Phase == "after-churn" {
				nr++
			}
		}
		for _, e := range r.RestartEvents {
			if e.Phase == "churn" || e.Phase == "after-churn" {
				rs += e.N
			}
		}
		row("churn", "", "", nr, rs, *r.AfterChurn)
	}
	if len(r.GoroutineGrowth) > 0 {
		fmt.Fprintf(&b, "\nKubelet goroutines by the function they started in, baseline → after the churn (from the dumps goroutines-baseline.txt.gz and goroutines-after-churn.txt.gz, which `make kind-e2e-chaos` keeps outside the tree in _output/kind-chaos-logs/<run>/ with test.log; the largest changes):\n\n| started in | baseline | after churn | change |\n|---|---|---|---|\n")
		for i, d := range r.GoroutineGrowth {
			if i == 15 {
				break
			}
			fmt.Fprintf(&b, "| `%s` | %d | %d | %+d |\n", d.Func, d.Before, d.After, d.After-d.Before)
		}
	}
	if ch := r.Churn; ch != nil {
		fmt.Fprintf(&b, "\nChurn: %d pods created and %d deleted in %.0f s (batches of %d, at most %d churn pods on the node, each deleted %.0f s after it turned Ready); %d Ready before deletion, %d never Ready; creation to Ready p50 %.1f s, p99 %.1f s, max %.1f s; at most %d churn pods on the node; creation held back %.0f s for room.\n",
			ch.Created, ch.Deleted, ch.Seconds, r.Config.ChurnBatch, r.Config.ChurnMaxLive, r.Config.ChurnHoldSeconds, ch.ReadyBeforeDelete, len(ch.NeverReady), ch.ReadySecondsP50, ch.ReadySecondsP99, ch.ReadySecondsMax, ch.MaxLiveSeen, ch.WaitedForRoomSecs)
	}
	if cg := r.Cgroups; cg != nil {
		fmt.Fprintf(&b, "\nCgroups after the churn: %d pod cgroup directories (%d distinct pods) under kubepods in the node's hierarchies, %d pods on the node, leftover %v (of the churn's pods: %d), pods without one %v, of no pod on the node but there before the faults %d; CRI sandboxes %d (%d ready).\n",
			cg.Dirs, cg.PodCgroups, cg.PodsOnNode, cg.Leftover, cg.ChurnLeftover, cg.Missing, len(cg.AtBaseline), cg.Sandboxes, cg.SandboxReady)
	}
	if len(r.NotReadyEvents)+len(r.RestartEvents)+len(r.NodeEvents)+len(r.UnseenTransitions) > 0 {
		fmt.Fprintf(&b, "\n## Events\n\n| time | phase | pod | what | detail |\n|---|---|---|---|---|\n")
		evs := append(append(append(append([]chaosEvent{}, r.NodeEvents...), r.NotReadyEvents...), r.RestartEvents...), r.UnseenTransitions...)
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].T < evs[j].T })
		const maxRows = 200
		for i, e := range evs {
			if i == maxRows {
				fmt.Fprintf(&b, "| … | %d more in chaos.json | | | |\n", len(evs)-maxRows)
				break
			}
			what := e.What
			if e.N > 0 {
				what = fmt.Sprintf("%s (+%d)", e.What, e.N)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", e.T, e.Phase, e.Pod, what, e.Detail)
		}
	}
	fmt.Fprintf(&b, "\nNotReady and restarts during `node-restart` (the node container's restart kills its containers) are expected, at most one restart per container; anywhere else they are unexpected restarts unless the kubelet recreated the pod's sandbox (SandboxChanged) in the minute before, and a NotReady that is not its container's restart's is a lost transition unless a failed readiness run of the pod, counted by the kubelet in the 90 s before it, explains it (the load's flaps: e2e/chaos_failures_test.go). chaos.json has every figure and event.\n")
	return b.String()
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// ---------------------------------------------------------------- watches

type podTrack struct {
	ready      bool
	everReady  bool
	firstReady time.Time
	restarts   int32
	deleting   bool
	gone       bool
}

// chaosWatch follows every pod of the namespace from a listed version on,
// re-establishing the watch where it ends (from the last version it saw),
// and records, by the phase current when they arrive, live pods turning
// NotReady and container restarts.
type chaosWatch struct {
	mu        sync.Mutex
	phase     string
	pods      map[string]*podTrack
	notReady  []chaosEvent
	restarts  []chaosEvent
	rv        string
	rewatches int
	gaps      int

	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

func startChaosWatch(t *testing.T, ns string, list *v1.PodList) *chaosWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &chaosWatch{phase: "baseline", pods: map[string]*podTrack{}, rv: list.ResourceVersion, cancel: cancel, done: make(chan struct{})}
	for i := range list.Items {
		p := &list.Items[i]
		tr := &podTrack{ready: podReady(p)}
		if tr.ready {
			tr.everReady, tr.firstReady = true, time.Now()
		}
		if cs := containerStatus(p, "target"); cs != nil {
			tr.restarts = cs.RestartCount
		}
		w.pods[p.Name] = tr
	}
	go w.run(ctx, t, ns)
	t.Cleanup(w.stop)
	return w
}

func (w *chaosWatch) stop() { w.once.Do(func() { w.cancel(); <-w.done }) }

func (w *chaosWatch) setPhase(p string) { w.mu.Lock(); w.phase = p; w.mu.Unlock() }

// countPhase counts the NotReady events and restarts recorded in a phase.
// restartedIn returns, per pod, the container restarts seen in the phase.
func (w *chaosWatch) restartedIn(phase string) map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := map[string]int{}
	for _, e := range w.restarts {
		if e.Phase == phase {
			n[e.Pod] += e.N
		}
	}
	return n
}

func (w *chaosWatch) countPhase(phase string) (notReady, restarts int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range w.notReady {
		if e.Phase == phase {
			notReady++
		}
	}
	for _, e := range w.restarts {
		if e.Phase == phase {
			restarts += e.N
		}
	}
	return notReady, restarts
}

func (w *chaosWatch) run(ctx context.Context, t *testing.T, ns string) {
	defer close(w.done)
	for ctx.Err() == nil {
		w.mu.Lock()
		rv := w.rv
		w.mu.Unlock()
		wi, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			if ctx.Err() == nil {
				t.Logf("pod watch: %v; again in 1 s", err)
				time.Sleep(time.Second)
			}
			continue
		}
		w.consume(ctx, t, ns, wi)
		wi.Stop()
		if ctx.Err() == nil {
			w.mu.Lock()
			w.rewatches++
			w.mu.Unlock()
		}
	}
}

func (w *chaosWatch) consume(ctx context.Context, t *testing.T, ns string, wi watch.Interface) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return
			}
			switch ev.Type {
			case watch.Error:
				// Most likely 410 Gone: the version is too old. Start again
				// from a fresh list, comparing it with what was last seen.
				t.Logf("pod watch error: %v; re-listing", apierrors.FromObject(ev.Object))
				list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					return
				}
				w.mu.Lock()
				w.gaps++
				w.rv = list.ResourceVersion
				w.mu.Unlock()
				for i := range list.Items {
					w.observe(t, &list.Items[i], watch.Modified)
				}
				return
			case watch.Bookmark:
				if p, ok := ev.Object.(*v1.Pod); ok {
					w.mu.Lock()
					w.rv = p.ResourceVersion
					w.mu.Unlock()
				}
			default:
				if p, ok := ev.Object.(*v1.Pod); ok {
					w.observe(t, p, ev.Type)
				}
			}
		}
	}
}

func (w *chaosWatch) observe(t *testing.T, p *v1.Pod, typ watch.EventType) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rv = p.ResourceVersion
	now := time.Now()
	tr := w.pods[p.Name]
	if tr == nil {
		tr = &podTrack{}
		if cs := containerStatus(p, "target"); cs != nil {
			tr.restarts = cs.RestartCount
		}
		w.pods[p.Name] = tr
	}
	if typ == watch.Deleted {
		tr.gone, tr.deleting = true, true
		return
	}
	if p.DeletionTimestamp != nil {
		tr.deleting = true // going away: its NotReady and kills are the deletion's
		return
	}
	stamp := now.UTC().Format("15:04:05.000")
	r := podReady(p)
	if tr.ready && !r {
		detail := ""
		for _, c := range p.Status.Conditions {
			if c.Type == v1.PodReady || c.Type == v1.ContainersReady {
				detail += fmt.Sprintf("%s=%s %s %s; ", c.Type, c.Status, c.Reason, c.Message)
			}
		}
		if cs := containerStatus(p, "target"); cs != nil {
			detail += fmt.Sprintf("container ready=%v started=%v restarts=%d", cs.Ready, deref(cs.Started), cs.RestartCount)
		}
		w.notReady = append(w.notReady, chaosEvent{T: stamp, at: now, Phase: w.phase, Pod: p.Name, What: "NotReady", Detail: strings.TrimSpace(detail)})
		t.Logf("%s [%s] %s turned NotReady: %s", stamp, w.phase, p.Name, detail)
	}
	if r && !tr.everReady {
		tr.everReady, tr.firstReady = true, now
	}
	tr.ready = r
	if cs := containerStatus(p, "target"); cs != nil && cs.RestartCount > tr.restarts {
		n := int(cs.RestartCount - tr.restarts)
		detail := ""
		if term := cs.LastTerminationState.Terminated; term != nil {
			detail = fmt.Sprintf("last: exit %d %s %s", term.ExitCode, term.Reason, strings.TrimSpace(term.Message))
		}
		w.restarts = append(w.restarts, chaosEvent{T: stamp, at: now, Phase: w.phase, Pod: p.Name, What: "restart", N: n, Detail: detail})
		t.Logf("%s [%s] %s restarted (%d -> %d) %s", stamp, w.phase, p.Name, tr.restarts, cs.RestartCount, detail)
		tr.restarts = cs.RestartCount
	}
}

// nodeWatch polls the node's Ready condition every second and records its
// changes, by the pod watch's phase (to tell a pod's NotReady from the node's).
type nodeWatch struct {
	mu     sync.Mutex
	evs    []chaosEvent
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

func startNodeWatch(node string, pw *chaosWatch) *nodeWatch {
	ctx, cancel := context.WithCancel(context.Background())
	nw := &nodeWatch{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(nw.done)
		last := "True"
		for ctx.Err() == nil {
			cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
			n, err := client.CoreV1().Nodes().Get(cctx, node, metav1.GetOptions{})
			ccancel()
			if err == nil {
				status, detail := "Unknown", ""
				for _, c := range n.Status.Conditions {
					if c.Type == v1.NodeReady {
						status, detail = string(c.Status), c.Reason+": "+c.Message
					}
				}
				if status != last {
					pw.mu.Lock()
					phase := pw.phase
					pw.mu.Unlock()
					nw.mu.Lock()
					nw.evs = append(nw.evs, chaosEvent{T: time.Now().UTC().Format("15:04:05.000"), Phase: phase, Pod: "node " + node, What: "Ready=" + status, Detail: detail})
					nw.mu.Unlock()
					last = status
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	return nw
}

func (nw *nodeWatch) stop() { nw.once.Do(func() { nw.cancel(); <-nw.done }) }

func (nw *nodeWatch) events() []chaosEvent {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return append([]chaosEvent{}, nw.evs...)
}
