//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/probewheel/probewheel/bench/measure"
)

// TestExecStorm measures what exec probes cost the node's container runtime
// and what the runtime's saturation costs the probes (issue 56, step 1):
// `make kind-e2e-storm` (hack/e2e-storm.sh) runs it on the one worker of a
// kind cluster, containerd and runc as users have them.
//
// For each density of PW_E2E_STORM_PODS (e.g. "20,40,80") it creates that
// many probetarget pods, each with an exec readiness and an exec liveness
// probe (`probetarget check <name>`, period 1 s, timeout 1 s, failureThreshold
// 3), PW_E2E_STORM_HUNG of them (a fraction, default 0) with a readiness
// command that outlives its timeout. Then, for each arm of PW_E2E_STORM_ARMS
// (default "stock,probewheel,probewheel,stock": the same pods, the kubelet
// swapped in place by $PW_E2E_STORM_SWAP_CMD <node> <stock|probewheel|binary>,
// so that a drift of the shared machine does not always favour one; an arm
// may name a kubelet and environment of its own, PW_E2E_STORM_KUBELETS="<arm>=<kubelet>[+NAME=value...],..."),
// it lets the node settle
// (PW_E2E_STORM_SETTLE, 20 s) and watches it for PW_E2E_STORM_WINDOW (90 s):
//
//   - the probes: duration (prober_probe_duration_seconds of the healthy
//     pods: the ExecSync round trip as the kubelet times it, its mean over
//     the window and over each 5 s: the histogram has no finite buckets), failed and
//     unknown results of healthy pods (every one a timeout or a runtime error:
//     their commands exit 0), restarts and readiness flaps of healthy pods,
//     and the intervals between runs as the containers saw them (the exec
//     check's own record), missed runs included;
//   - the runtime: CPU of containerd's unit (containerd, its shims, and what
//     they reap: runc, the probe commands), sampled each second: the mean,
//     and the peak of 5 s means (a reaped child counts all at once);
//   - the kubelet: CPU, goroutines and OS threads.
//
// PW_E2E_STORM_STALL=<at>+<for> (e.g. 30s+6s) stops containerd that far into
// each window for that long (no exec returns), and measures the stretch from
// a minute after it ran again to the window's end; PW_E2E_STORM_SETTLE=0
// measures a storm from its onset, the swapped kubelet's first runs.
//
// Each window goes to PW_E2E_STORM_OUT/<pods>-<n>-<arm>.json. It measures; it
// judges nothing (a 2-core machine under a storm is what is being measured).
func TestExecStorm(t *testing.T) {
	out := os.Getenv("PW_E2E_STORM_OUT")
	if out == "" {
		t.Skip("PW_E2E_STORM_OUT not set; run make kind-e2e-storm")
	}
	var densities []int
	for _, f := range strings.Split(envOr("PW_E2E_STORM_PODS", "20,40"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			t.Fatalf("PW_E2E_STORM_PODS=%q: want positive integers, comma-separated", os.Getenv("PW_E2E_STORM_PODS"))
		}
		densities = append(densities, n)
	}
	arms := strings.Split(envOr("PW_E2E_STORM_ARMS", "stock,probewheel,probewheel,stock"), ",")
	// Which kubelet the swap command is given for an arm: stock, probewheel,
	// or one of PW_E2E_STORM_KUBELETS ("<arm>=<kubelet>[+NAME=value...][+--feature-gates=A=false;B=true],...",
	// the kubelet stock, probewheel or a binary, each NAME=value set in its
	// environment and unset for the other arms, and its feature gates, which
	// the other arms run without; e.g. unbounded=probewheel+--feature-gates=ProbeExecLimit=false).
	kubelets := map[string]string{"stock": "stock", "probewheel": "probewheel"}
	armEnv := map[string]map[string]string{}
	envNames := map[string]bool{}
	armGates := map[string]string{}
	if v := os.Getenv("PW_E2E_STORM_KUBELETS"); v != "" {
		for _, kv := range strings.Split(v, ",") {
			arm, spec, ok := strings.Cut(kv, "=")
			fields := strings.Split(spec, "+")
			if !ok || !armName.MatchString(arm) || fields[0] == "" {
				t.Fatalf("PW_E2E_STORM_KUBELETS=%q: want <arm>=<kubelet>[+NAME=value...],...", v)
			}
			kubelets[arm] = fields[0]
			armEnv[arm] = map[string]string{}
			for _, e := range fields[1:] {
				if gates, ok := strings.CutPrefix(e, "--feature-gates="); ok {
					armGates[arm] = strings.ReplaceAll(gates, ";", ",")
					continue
				}
				name, value, ok := strings.Cut(e, "=")
				if !ok || !envName.MatchString(name) || value == "" {
					t.Fatalf("PW_E2E_STORM_KUBELETS=%q: %q is not NAME=value", v, e)
				}
				armEnv[arm][name] = value
				envNames[name] = true
			}
		}
	}
	hung, err := strconv.ParseFloat(envOr("PW_E2E_STORM_HUNG", "0"), 64)
	if err != nil || hung < 0 || hung >= 1 {
		t.Fatalf("PW_E2E_STORM_HUNG=%q: want a fraction in [0, 1)", os.Getenv("PW_E2E_STORM_HUNG"))
	}
	settle := envDurationOrZero(t, "PW_E2E_STORM_SETTLE", 20*time.Second) // 0: from the onset
	window := envDuration(t, "PW_E2E_STORM_WINDOW", 90*time.Second)
	st := parseStall(t, os.Getenv("PW_E2E_STORM_STALL"), window)
	if window > 200*time.Second {
		t.Fatalf("PW_E2E_STORM_WINDOW=%v: probetarget keeps 256 runs per check, at most 200 s can be measured", window)
	}
	swap := strings.Fields(os.Getenv("PW_E2E_STORM_SWAP_CMD"))
	if len(swap) == 0 && len(arms) > 1 {
		t.Fatal("PW_E2E_STORM_SWAP_CMD not set: it swaps the kubelet between arms (hack/kind-swap-kubelet.sh)")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, pods := range densities {
		ns := newNamespace(t)
		nHung := int(float64(pods)*hung + 0.5)
		stormPods(t, ns, pods, nHung)
		for i, arm := range arms {
			if len(swap) > 0 {
				args := append(slices.Clone(swap[1:]), nodeName, kubelets[arm])
				for _, name := range slices.Sorted(maps.Keys(envNames)) {
					args = append(args, "--env="+name+"="+armEnv[arm][name])
				}
				if len(armGates) > 0 {
					args = append(args, "--feature-gates="+armGates[arm])
				}
				cmd := exec.Command(swap[0], args...)
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("swap to %s: %v\n%s", arm, err, b)
				}
			}
			if got := nodeKubeletVersion(t, nodeName); strings.Contains(got, "probewheel") != (kubelets[arm] != "stock") {
				t.Fatalf("arm %s, but the node runs kubelet %s", arm, got)
			}
			if len(envNames) > 0 {
				env := kubeletEnv(t, kubeletPID(t, nodeName))
				for name := range envNames {
					if env[name] != armEnv[arm][name] {
						t.Fatalf("arm %s: the kubelet runs with %s=%q, want %q", arm, name, env[name], armEnv[arm][name])
					}
				}
			}
			// The settle counts from the restarted kubelet's first runs, not
			// from its start: a node syncing its pods under a storm takes
			// tens of seconds to probe them again.
			waitProbed(t, ns, time.Now())
			res := stormWindow(t, ns, pods, nHung, settle, window, st)
			res.Arm = arm
			b, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatalf("%v: %+v", err, res)
			}
			file := filepath.Join(out, fmt.Sprintf("%03d-%d-%s.json", pods, i+1, arm))
			if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d pods, arm %d %s: exec mean %.0f ms (worst 5 s %.0f ms), %.0f failed, %d restarts, runtime CPU %.2f (peak %.2f) cores, kubelet %.2f cores",
				pods, i+1, arm, res.ExecDuration.MeanMs, res.ExecMeanMs.Max, res.HealthyFailed, res.HealthyRestarts,
				res.RuntimeCPU.Mean, res.RuntimeCPU.Max, res.KubeletCPU)
		}
		deleteNamespace(t, ns, pods)
	}
}

var (
	// armName is an arm PW_E2E_STORM_KUBELETS may name (it names the result files).
	armName = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	// envName is a variable an arm sets in the kubelet's environment.
	envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	// stormChecks are the probetarget records of a storm pod's two exec probes.
	stormChecks = []string{"exec/readiness", "exec/liveness"}
)

// stormHungLabel marks the pods whose readiness command hangs ("true").
const stormHungLabel = "probewheel.io/storm-hung"

// stormPods creates the density's pods and waits until every container runs.
// It does not wait for Ready: past the runtime's capacity, readiness is what
// is measured, and it may never hold for every pod at once.
func stormPods(t *testing.T, ns string, pods, hung int) {
	t.Helper()
	probe := func(check string) *v1.Probe {
		return &v1.Probe{ProbeHandler: execProbe(check), PeriodSeconds: 1, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	}
	for i := range pods {
		var args []string
		if i < hung {
			args = append(args, "--hang=readiness")
		}
		c := targetContainer("target", args...)
		c.ReadinessProbe = probe("readiness")
		c.LivenessProbe = probe("liveness")
		// A start under the storm can take long; the liveness probe must not
		// kill a container that has not served yet.
		c.LivenessProbe.InitialDelaySeconds = 10
		pod := targetPod(stormPodName(i), c)
		pod.Labels = map[string]string{stormHungLabel: strconv.FormatBool(i < hung)}
		createPod(t, ns, pod)
	}
	waitFor(t, 15*time.Minute, fmt.Sprintf("%d containers running in %s", pods, ns), func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		n := 0
		for _, p := range list.Items {
			if cs := containerStatus(&p, "target"); p.Status.PodIP != "" && cs != nil && cs.State.Running != nil {
				n++
			}
		}
		return n == pods, nil
	})
}

// waitProbed waits until every healthy pod's two exec checks have run since.
func waitProbed(t *testing.T, ns string, since time.Time) {
	t.Helper()
	waitFor(t, 5*time.Minute, "every healthy exec check run again in "+ns, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: stormHungLabel + "=false"})
		if err != nil {
			return false, err
		}
		for _, p := range list.Items {
			for _, check := range stormChecks {
				times, err := checkTimes(ctx, p.Status.PodIP, check)
				if err != nil {
					return false, err
				}
				if len(times) == 0 || times[len(times)-1] < since.UnixNano() {
					return false, nil
				}
			}
		}
		return true, nil
	})
}

func stormPodName(i int) string { return fmt.Sprintf("s%03d", i) }

// deleteNamespace deletes the density's pods and waits until they are gone
// from the node, so that the next density starts on a quiet runtime.
func deleteNamespace(t *testing.T, ns string, pods int) {
	t.Helper()
	if err := client.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete namespace %s: %v", ns, err)
	}
	waitFor(t, 10*time.Minute, fmt.Sprintf("the %d pods of %s gone", pods, ns), func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) == 0, nil
	})
}

// stormResult is one arm's window at one density.
type stormResult struct {
	Arm           string  `json:"arm"`
	Kubelet       string  `json:"kubelet"`
	Pods          int     `json:"pods"`
	HungPods      int     `json:"hungPods"`
	ExecPerSecond float64 `json:"execPerSecond"` // the probes' nominal rate
	WindowSeconds float64 `json:"windowSeconds"`
	SettleSeconds float64 `json:"settleSeconds"`
	// ExecDuration is the healthy pods' probe duration (prober_probe_duration_seconds:
	// successful and unknown results, not failures), ExecMeanMs its mean over
	// 5 s stretches (their mean and worst); HungDuration the hung pods'.
	ExecDuration histSummary `json:"execDuration"`
	ExecMeanMs   stats       `json:"execMeanMs"`
	HungDuration histSummary `json:"hungDuration"`
	// LimitWait is how long exec runs waited for a slot of probewheel's exec
	// limit (prober_exec_limit_wait_seconds: every exec run, hung pods' too),
	// LimitCuts how often the adaptive limit was cut; zero where the kubelet
	// has no limit.
	LimitWait histSummary `json:"limitWait"`
	LimitCuts float64     `json:"limitCuts"`
	// LimitHeld: exec runs that waited for a slot at all (past the wait
	// histogram's first bucket, half a millisecond).
	LimitHeld float64 `json:"limitHeld"`
	// StallAtSeconds, StallSeconds: containerd stopped (SIGSTOP: no exec
	// returns) that far into the window, for that long (PW_E2E_STORM_STALL);
	// Recovered: from a minute after it came back to the window's end.
	StallAtSeconds float64          `json:"stallAtSeconds,omitempty"`
	StallSeconds   float64          `json:"stallSeconds,omitempty"`
	Recovered      *recoveredResult `json:"recovered,omitempty"`
	// HealthyRuns, HealthyFailed, HealthyUnknown: the healthy pods' results
	// in the window (prober_probe_total). Their commands exit 0: a failure is
	// a timeout or a runtime error.
	HealthyRuns     float64         `json:"healthyRuns"`
	HealthyFailed   float64         `json:"healthyFailed"`
	HealthyUnknown  float64         `json:"healthyUnknown"`
	HealthyRestarts int             `json:"healthyRestarts"`
	HealthyFlaps    int             `json:"healthyFlaps"`
	Intervals       intervalSummary `json:"intervals"`
	Phases          phaseSummary    `json:"phases"`
	// ChecksUnread: the healthy checks whose record could not be read (the
	// container restarting when the window ended); Intervals and Phases leave
	// them out.
	ChecksUnread       int     `json:"checksUnread"`
	RuntimeCPU         stats   `json:"runtimeCPU"` // cores: over the window, and the peak of RuntimePeakSeconds means
	RuntimePeakSeconds float64 `json:"runtimePeakSeconds"`
	// Sampler 2 times each sample by the clock read with it (1 took the
	// ticker's time: a late tick overstated the CPU of its sample).
	Sampler    int           `json:"sampler"`
	KubeletCPU float64       `json:"kubeletCPU"` // cores over the window
	Goroutines stats         `json:"goroutines"`
	Threads    stats         `json:"threads"`
	Samples    []stormSample `json:"samples"`
}

type stormSample struct {
	T          float64 `json:"t"`
	RuntimeCPU float64 `json:"runtimeCPU"`
	KubeletCPU float64 `json:"kubeletCPU"`
	Goroutines float64 `json:"goroutines,omitempty"`
	Threads    float64 `json:"threads"`
	// ExecMeanMs is the healthy pods' mean exec duration over the last 5 s
	// (every fifth sample): the kubelet's histogram has no finite buckets.
	ExecMeanMs float64 `json:"execMeanMs,omitempty"`
}

func stormWindow(t *testing.T, ns string, pods, hung int, settle, window time.Duration, st stall) stormResult {
	t.Helper()
	time.Sleep(settle)
	list, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	healthy := map[string]string{} // name -> IP
	var healthyList v1.PodList
	healthyList.ResourceVersion = list.ResourceVersion
	for _, p := range list.Items {
		if p.Labels[stormHungLabel] == "false" {
			healthy[p.Name] = p.Status.PodIP
			healthyList.Items = append(healthyList.Items, p)
		}
	}
	isHealthy := func(labels string) bool {
		_, ok := healthy[label(labels, "pod")]
		return ok
	}
	pid := kubeletPID(t, nodeName)
	rt := newRuntimeProcs(t, pid)
	flaps, restarts := watchFlaps(t, ns, &healthyList)
	res := stormResult{
		Kubelet: nodeKubeletVersion(t, nodeName), Pods: pods, HungPods: hung,
		ExecPerSecond: 2 * float64(pods), WindowSeconds: window.Seconds(), SettleSeconds: settle.Seconds(),
		Sampler: 2,
	}
	before := string(nodeKubeletGet(t, nodeName, nil, "metrics", "probes"))

	durBefore := histogramWhere(before, "prober_probe_duration_seconds", isHealthy)
	lastDur := durBefore
	rt.sample(t)
	kBefore := procCPU(t, pid)
	start := time.Now()
	kPrev, prev := kBefore, start
	var runtimeCPU time.Duration
	stalled := st.start(t, nodeName)
	var recovered string // the metrics a minute after the runtime came back
	tick := time.NewTicker(time.Second)
	for range tick.C {
		// The CPU read and the clock read together: a sample's interval is
		// the real one, however late the tick came (the metrics fetched
		// below take seconds from a loaded node).
		k, r, now := procCPU(t, pid), rt.sample(t), time.Now()
		runtimeCPU += r
		s := stormSample{
			T:          now.Sub(start).Seconds(),
			RuntimeCPU: r.Seconds() / now.Sub(prev).Seconds(),
			KubeletCPU: (k - kPrev).Seconds() / now.Sub(prev).Seconds(),
			Threads:    float64(procThreads(t, pid)),
		}
		if len(res.Samples)%5 == 4 {
			s.Goroutines = goroutines(t, nodeName)
			h := histogramWhere(string(nodeKubeletGet(t, nodeName, nil, "metrics", "probes")), "prober_probe_duration_seconds", isHealthy)
			s.ExecMeanMs = h.since(lastDur).MeanMs
			lastDur = h
		}
		res.Samples = append(res.Samples, s)
		kPrev, prev = k, now
		if st.For > 0 && recovered == "" && now.Sub(start) >= st.At+st.For+time.Minute {
			recovered = string(nodeKubeletGet(t, nodeName, nil, "metrics", "probes"))
		}
		if now.Sub(start) >= window {
			break
		}
	}
	tick.Stop()
	<-stalled
	end := prev
	res.KubeletCPU = (kPrev - kBefore).Seconds() / end.Sub(start).Seconds()
	if kubeletPID(t, nodeName) != pid {
		t.Fatalf("the kubelet restarted during the window")
	}
	after := string(nodeKubeletGet(t, nodeName, nil, "metrics", "probes"))
	res.ExecDuration = histogramWhere(after, "prober_probe_duration_seconds", isHealthy).since(durBefore)
	notHealthy := func(l string) bool { return !isHealthy(l) }
	res.HungDuration = histogramWhere(after, "prober_probe_duration_seconds", notHealthy).
		since(histogramWhere(before, "prober_probe_duration_seconds", notHealthy))
	all := func(string) bool { return true }
	res.LimitWait = histogramWhere(after, "prober_exec_limit_wait_seconds", all).
		since(histogramWhere(before, "prober_exec_limit_wait_seconds", all))
	res.LimitCuts = sumWhere(after, "prober_exec_limit_cuts_total", all) -
		sumWhere(before, "prober_exec_limit_cuts_total", all)
	res.LimitHeld = held(after, before)
	if st.For > 0 {
		res.StallAtSeconds, res.StallSeconds = st.At.Seconds(), st.For.Seconds()
		if recovered == "" {
			t.Fatalf("PW_E2E_STORM_STALL=%v+%v: the window ended before a minute after the stall", st.At, st.For)
		}
		res.Recovered = &recoveredResult{
			Seconds:     end.Sub(start).Seconds() - (st.At + st.For + time.Minute).Seconds(),
			HealthyRuns: sumWhere(after, "prober_probe_total", isHealthy) - sumWhere(recovered, "prober_probe_total", isHealthy),
			LimitHeld:   held(after, recovered),
		}
		res.Recovered.RunsPerSecond = res.Recovered.HealthyRuns / res.Recovered.Seconds
	}
	count := func(result string) float64 {
		keep := func(l string) bool { return isHealthy(l) && strings.Contains(l, `result="`+result+`"`) }
		return sumWhere(after, "prober_probe_total", keep) - sumWhere(before, "prober_probe_total", keep)
	}
	res.HealthyFailed, res.HealthyUnknown = count("failed"), count("unknown")
	res.HealthyRuns = count("successful") + res.HealthyFailed + res.HealthyUnknown
	res.HealthyFlaps, res.HealthyRestarts = flaps(), restarts()
	times := probeTimes(t, healthy, stormChecks, t.Logf)
	res.ChecksUnread = 2 * (len(healthy) - len(times))
	res.Intervals = probeIntervals(t, times, start, end, time.Second, t.Logf)
	res.Phases = execPhases(times, start, end, time.Second)
	// The runtime's CPU: over the window, and its peak over 5 s (a shim's
	// share of a child counts when it reaps it, all at once, so 1 s peaks
	// would be reaping's).
	const peak = 5
	res.RuntimeCPU.Mean, res.RuntimePeakSeconds = runtimeCPU.Seconds()/end.Sub(start).Seconds(), peak
	for i := peak; i < len(res.Samples); i++ {
		// Samples i-peak+1..i, over their real span.
		var cpu float64
		for j := i - peak + 1; j <= i; j++ {
			cpu += res.Samples[j].RuntimeCPU * (res.Samples[j].T - res.Samples[j-1].T)
		}
		res.RuntimeCPU.Max = max(res.RuntimeCPU.Max, cpu/(res.Samples[i].T-res.Samples[i-peak].T))
	}
	// Goroutines and exec means are in every fifth sample; a zero is none.
	present := func(f func(stormSample) float64) []float64 {
		return slices.DeleteFunc(column(res.Samples, f), func(v float64) bool { return v <= 0 })
	}
	res.Goroutines = summarize(present(func(s stormSample) float64 { return s.Goroutines }))
	res.Threads = summarize(present(func(s stormSample) float64 { return s.Threads }))
	res.ExecMeanMs = summarize(present(func(s stormSample) float64 { return s.ExecMeanMs }))
	return res
}

// runtimeProcs samples the CPU of the container runtime on the kubelet's
// node: every process of containerd's systemd unit (containerd and the
// shims), with what they reaped (runc, and the probe commands, which runc
// leaves to the shims). It is read from /proc, a process's user, system and
// reaped children's time: kind's nodes have no cpuacct cgroup per unit. The
// unit's processes are found beside the kubelet's own cgroup (as this host
// sees it): <node>/kubelet.slice/kubelet.service, <node>/system.slice/containerd.service.
type runtimeProcs struct {
	procs string                // the unit's cgroup.procs
	last  map[int]time.Duration // pid -> its CPU at the previous sample
}

func newRuntimeProcs(t *testing.T, kubeletPID int) *runtimeProcs {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", kubeletPID))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || f[1] != "cpu" && f[1] != "cpu,cpuacct" {
			continue
		}
		node, ok := strings.CutSuffix(f[2], "/kubelet.slice/kubelet.service")
		if !ok {
			node, ok = strings.CutSuffix(f[2], "/system.slice/kubelet.service")
		}
		if !ok {
			t.Fatalf("the kubelet's cpu cgroup is %s, not a kubelet.service", f[2])
		}
		rp := &runtimeProcs{procs: filepath.Join("/sys/fs/cgroup", f[1], node, "system.slice", "containerd.service", "cgroup.procs")}
		rp.sample(t)
		return rp
	}
	t.Fatalf("no cpu cgroup for the kubelet (cgroup v1 expected): %s", b)
	return nil
}

// sample returns the CPU the unit's processes used since the previous sample
// (a process that came or went in between counts from when it was seen).
func (rp *runtimeProcs) sample(t *testing.T) time.Duration {
	t.Helper()
	b, err := os.ReadFile(rp.procs)
	if err != nil {
		t.Fatal(err)
	}
	now := map[int]time.Duration{}
	var used time.Duration
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			continue
		}
		cpu, err := measure.ProcCPUWithChildren(pid)
		if err != nil {
			continue // gone since the list was read
		}
		now[pid] = cpu
		if prev, seen := rp.last[pid]; seen && cpu >= prev {
			used += cpu - prev
		}
	}
	rp.last = now
	return used
}

func procThreads(t *testing.T, pid int) int {
	t.Helper()
	n, err := measure.ProcThreads(pid)
	if err != nil {
		t.Fatalf("kubelet threads: %v", err)
	}
	return n
}

// phaseSummary tells how the exec runs of the window lay in the period, as
// the containers saw them start: bunched runs wait for each other in the
// runtime.
type phaseSummary struct {
	// PeakSlotShare is the share of the runs that started in the busiest
	// tenth of the period (their start modulo the period), over a tenth: 1
	// is even, 10 all in one slot.
	PeakSlotShare float64 `json:"peakSlotShare"`
	// PairGapP50Ms is the median distance from a run of a container's
	// readiness probe to the nearest run of its liveness probe, at most half
	// a period: 0 when the two run in step.
	PairGapP50Ms float64 `json:"pairGapP50Ms"`
	Runs         int     `json:"runs"`
}

func execPhases(times map[string]map[string][]int64, start, end time.Time, period time.Duration) phaseSummary {
	var slots [10]int
	var s phaseSummary
	var gaps []int64
	in := func(ts int64) bool { return ts > start.UnixNano() && ts <= end.UnixNano() }
	p := int64(period)
	for _, checks := range times {
		for _, ts := range checks {
			for _, x := range ts {
				if in(x) {
					slots[(x%p)*10/p]++
					s.Runs++
				}
			}
		}
		live := checks["exec/liveness"]
		for _, r := range checks["exec/readiness"] {
			if !in(r) || len(live) == 0 {
				continue
			}
			i, _ := slices.BinarySearch(live, r)
			gap := p / 2
			for _, j := range []int{i - 1, i} {
				if j >= 0 && j < len(live) {
					gap = min(gap, max(r-live[j], live[j]-r))
				}
			}
			gaps = append(gaps, gap)
		}
	}
	if s.Runs > 0 {
		s.PeakSlotShare = float64(slices.Max(slots[:])) / float64(s.Runs) * 10
	}
	if len(gaps) > 0 {
		slices.Sort(gaps)
		s.PairGapP50Ms = float64(gaps[len(gaps)/2]) / float64(time.Millisecond)
	}
	return s
}

// kubeletEnv is the environment the kubelet (pid, as this machine sees it)
// started with.
func kubeletEnv(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatalf("the kubelet's environment: %v", err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if name, value, ok := strings.Cut(kv, "="); ok {
			env[name] = value
		}
	}
	return env
}

// recoveredResult: the stretch from a minute after a stall to the window's end.
type recoveredResult struct {
	Seconds       float64 `json:"seconds"`
	HealthyRuns   float64 `json:"healthyRuns"` // the healthy pods' results (prober_probe_total)
	RunsPerSecond float64 `json:"runsPerSecond"`
	LimitHeld     float64 `json:"limitHeld"` // exec runs that waited for a slot
}

// held counts the exec runs that waited for a slot of the limit between two
// reads of /metrics/probes: every run is observed, a run let straight through
// as 0 s, in the first bucket.
func held(after, before string) float64 {
	all := func(string) bool { return true }
	const first = 0.0005 // the first bucket of prober_exec_limit_wait_seconds
	a, b := histogramWhere(after, "prober_exec_limit_wait_seconds", all), histogramWhere(before, "prober_exec_limit_wait_seconds", all)
	return (a.count - a.buckets[first]) - (b.count - b.buckets[first])
}

// stall is a containerd stall in each window (PW_E2E_STORM_STALL=<at>+<for>,
// e.g. 30s+6s): containerd stopped with SIGSTOP, as a disk or containerd
// hiccup leaves it, so that no exec returns, then continued. Its shims and
// the containers keep running.
type stall struct{ At, For time.Duration }

func parseStall(t *testing.T, v string, window time.Duration) stall {
	t.Helper()
	if v == "" {
		return stall{}
	}
	at, d, ok := strings.Cut(v, "+")
	var st stall
	var err1, err2 error
	st.At, err1 = time.ParseDuration(at)
	st.For, err2 = time.ParseDuration(d)
	if !ok || err1 != nil || err2 != nil || st.At < 0 || st.For <= 0 || st.For > time.Minute {
		t.Fatalf("PW_E2E_STORM_STALL=%q: want <at>+<for>, e.g. 30s+6s (for at most a minute)", v)
	}
	if st.At+st.For+time.Minute >= window {
		t.Fatalf("PW_E2E_STORM_STALL=%q: the window (%v) must run past a minute after the stall", v, window)
	}
	return st
}

// start stops containerd on node at st.At from now for st.For; the channel
// closes once it runs again. A failure to continue it fails the test and is
// retried at cleanup: a node left stopped would hold every later window.
func (st stall) start(t *testing.T, node string) <-chan struct{} {
	done := make(chan struct{})
	if st.For <= 0 {
		close(done)
		return done
	}
	cont := func() error {
		_, err := docker("exec", node, "systemctl", "kill", "--kill-whom=main", "--signal=SIGCONT", "containerd")
		return err
	}
	t.Cleanup(func() { _ = cont() })
	go func() {
		defer close(done)
		time.Sleep(st.At)
		if out, err := docker("exec", node, "systemctl", "kill", "--kill-whom=main", "--signal=SIGSTOP", "containerd"); err != nil {
			t.Errorf("stall: stopping containerd: %v %s", err, out)
			return
		}
		time.Sleep(st.For)
		if err := cont(); err != nil {
			t.Errorf("stall: continuing containerd: %v", err)
		}
	}()
	return done
}
