//go:build linux

package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// probeTimeoutSeconds is every probe's timeoutSeconds.
const probeTimeoutSeconds = 1

var genCounter atomic.Uint32

// run is one prober manager generation: its pods, kubelet-side managers, targets and
// the drain loop. Network targets reach its targets mapping through the target
// server's slot table.
type run struct {
	cfg    *config
	sc     string
	w      workload
	impl   Impl
	gen    uint32
	slot   int
	C      int
	kinds  []int // probe kinds per container
	nInit  int   // pods added at start
	pods   []*v1.Pod
	tg     *targets
	srv    *servers
	runner *execRunner

	kubelet *Kubelet
	mgr     Manager
	ctx     context.Context
	cancel  context.CancelFunc
	logger  klog.Logger

	// Drain-loop records, per target.
	seenPrev  []results.Result // drain goroutine only
	seenTrans []atomic.Int32
	lastSucc  []atomic.Int64
	lastFail  []atomic.Int64
	updates   atomic.Int64
	drainStop chan struct{}
	drainDone chan struct{}

	addedAt []int64 // per pod: AddPod time (0 = not added)
	nAdded  int     // pods added so far (a prefix of pods)
	t0      int64   // manager creation time
	baseG   int     // goroutines before the manager existed
	baseMem uint64  // heap+stack after GC before the manager existed
	// heap spans and stacks in use after two GCs before the manager existed:
	// what the heap holds, live objects and the free room of partly used spans
	baseInuse uint64
}

type runOpts struct {
	nLate      int       // extra pods added later (first-probe delay)
	startedAt  time.Time // containers' StartedAt
	failureThr int32     // failureThreshold for all probes
	hungPct    int       // percentage of readiness/liveness targets that hang
	readyFail  bool      // readiness targets start out failing
}

// newRun builds pods, the pod/status/results managers and the targets, and starts the
// drain loop. The prober manager itself is created by (*run).startManager.
func newRun(cfg *config, sc string, w workload, impl Impl, o runOpts) (*run, error) {
	srv, err := getServers(cfg.containers)
	if err != nil {
		return nil, fmt.Errorf("starting loopback targets: %w", err)
	}
	gen := genCounter.Add(1)
	r := &run{
		cfg: cfg, sc: sc, w: w, impl: impl, gen: gen, slot: int(gen % genSlots), C: cfg.containers,
		nInit: w.pods, srv: srv,
		logger: logr.Discard(),
	}
	r.kinds = []int{kReady, kLive}
	if w.startup {
		r.kinds = []int{kStart, kReady, kLive}
	}
	nPods := w.pods + o.nLate
	if nPods > 254*250 {
		return nil, fmt.Errorf("too many pods (%d) for the loopback address plan", nPods)
	}
	nT := nPods * r.C * nKinds
	// Ring: enough for a window plus warm-up slack, at a probe per period.
	win := cfg.window(w.period)
	ringCap := 2*int(win/w.period) + 16
	thr := o.failureThr
	if r.tg, err = newTargets(nT, ringCap, r.C, [nKinds][2]int32{{1, thr}, {1, thr}, {1, thr}}); err != nil {
		return nil, fmt.Errorf("targets: %w", err)
	}
	r.seenPrev = make([]results.Result, nT)
	for i := range r.seenPrev {
		r.seenPrev[i] = initialResult[i%nKinds]
	}
	r.seenTrans = make([]atomic.Int32, nT)
	r.lastSucc = make([]atomic.Int64, nT)
	r.lastFail = make([]atomic.Int64, nT)
	r.addedAt = make([]int64, nPods)

	for i := 0; i < nT; i++ {
		k := i % nKinds
		if o.hungPct > 0 && k != kStart && hash32(uint32(i))%100 < uint32(o.hungPct) {
			r.tg.hung[i] = 1
		}
		if o.readyFail && k == kReady {
			r.tg.fail[i].Store(1)
		}
	}
	if w.handler != hExec {
		if err := srv.mapRun(r.slot, r.tg.path); err != nil {
			r.tg.close()
			return nil, fmt.Errorf("target server: %w", err)
		}
	}
	os.Remove(r.tg.path) // both sides hold the mapping now
	r.tg.path = ""

	r.kubelet = NewKubelet()
	r.ctx, r.cancel = context.WithCancel(klog.NewContext(context.Background(), r.logger))

	started := metav1.NewTime(o.startedAt)
	r.pods = make([]*v1.Pod, nPods)
	for p := 0; p < nPods; p++ {
		pod, st := r.buildPod(p, started, o.failureThr)
		r.pods[p] = pod
		r.kubelet.Pods.AddPod(pod)
		r.kubelet.Status.SetPodStatus(r.logger, pod, st)
	}
	r.drainStop = make(chan struct{})
	r.drainDone = make(chan struct{})
	go r.drain()
	return r, nil
}

func hash32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}

func (r *run) target(p, c, k int) int { return (p*r.C+c)*nKinds + k }

func (r *run) buildPod(p int, started metav1.Time, failureThr int32) (*v1.Pod, v1.PodStatus) {
	ip := podIP(r.slot, p)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			UID:       types.UID(fmt.Sprintf("bench-%d-%d", r.gen, p)),
			Name:      fmt.Sprintf("pod-%d", p),
			Namespace: "bench",
		},
		Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways},
	}
	st := v1.PodStatus{
		Phase:  v1.PodRunning,
		PodIP:  ip,
		PodIPs: []v1.PodIP{{IP: ip}},
		Conditions: []v1.PodCondition{
			{Type: v1.PodReady, Status: v1.ConditionFalse},
			{Type: v1.ContainersReady, Status: v1.ConditionFalse},
		},
	}
	for c := 0; c < r.C; c++ {
		name := fmt.Sprintf("c%d", c)
		ctr := v1.Container{Name: name, Image: "bench"}
		for _, k := range r.kinds {
			spec := r.probeSpec(r.target(p, c, k), c, k, failureThr)
			switch k {
			case kLive:
				ctr.LivenessProbe = spec
			case kReady:
				ctr.ReadinessProbe = spec
			case kStart:
				ctr.StartupProbe = spec
			}
		}
		pod.Spec.Containers = append(pod.Spec.Containers, ctr)
		startedFlag := !r.w.startup
		st.ContainerStatuses = append(st.ContainerStatuses, v1.ContainerStatus{
			Name:        name,
			Image:       "bench",
			ContainerID: fmt.Sprintf("bench://%d-%d", r.slot, p*r.C+c),
			State:       v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: started}},
			Started:     &startedFlag,
		})
	}
	return pod, st
}

func (r *run) probeSpec(i, c, k int, failureThr int32) *v1.Probe {
	p := &v1.Probe{
		TimeoutSeconds:   probeTimeoutSeconds,
		PeriodSeconds:    int32(r.w.period / time.Second),
		SuccessThreshold: 1,
		FailureThreshold: failureThr,
	}
	switch r.w.handler {
	case hExec:
		p.Exec = &v1.ExecAction{Command: []string{"probe", kindNames[k]}}
	case hHTTP:
		p.HTTPGet = &v1.HTTPGetAction{Path: fmt.Sprintf("/%d/%d", r.slot, i), Port: intstr.FromInt32(int32(r.srv.httpPort))}
	case hTCP:
		port := r.srv.tcpPorts[c][k]
		if r.tg.hung[i] != 0 {
			port = r.srv.holePort
		}
		p.TCPSocket = &v1.TCPSocketAction{Port: intstr.FromInt32(int32(port))}
	case hGRPC:
		svc := fmt.Sprintf("%d/%d", r.slot, i)
		p.GRPC = &v1.GRPCAction{Port: int32(r.srv.grpcPort), Service: &svc}
	}
	return p
}

// drain is the kubelet's syncLoopIteration for probe results: it reads the three
// Updates() channels, records transitions and, like the kubelet, writes readiness and
// startup results into the status manager.
func (r *run) drain() {
	defer close(r.drainDone)
	for {
		var u results.Update
		var k int
		select {
		case u = <-r.kubelet.Liveness.Updates():
			k = kLive
		case u = <-r.kubelet.Readiness.Updates():
			k = kReady
		case u = <-r.kubelet.Startup.Updates():
			k = kStart
		case <-r.drainStop:
			return
		}
		ts := nowNs()
		r.updates.Add(1)
		cidx, ok := parseCID(u.ContainerID.ID)
		i := cidx*nKinds + k
		if !ok || i >= r.tg.n {
			continue
		}
		if u.Result != r.seenPrev[i] {
			r.seenPrev[i] = u.Result
			r.seenTrans[i].Add(1)
		}
		switch u.Result {
		case results.Success:
			r.lastSucc[i].Store(ts)
		case results.Failure:
			r.lastFail[i].Store(ts)
		}
		if r.cfg.syncStatus {
			switch k {
			case kReady:
				r.kubelet.Status.SetContainerReadiness(r.logger, u.PodUID, u.ContainerID, u.Result == results.Success)
			case kStart:
				r.kubelet.Status.SetContainerStartup(r.logger, u.PodUID, u.ContainerID, u.Result == results.Success)
			}
		}
	}
}

// startManager measures the baselines, then creates the prober manager (t0).
func (r *run) startManager() {
	r.baseMem = heapStack()
	r.baseInuse = heapInuse()
	r.baseG = runtime.NumGoroutine()
	r.runner = &execRunner{tg: r.tg, latency: r.cfg.execLat}
	if r.cfg.execModel {
		r.runner.model = newExecModel()
	}
	r.t0 = nowNs()
	r.mgr = r.kubelet.NewManager(r.impl, r.runner, nil)
}

// addPods calls AddPod for the next n pods, recording when each was added.
func (r *run) addPods(n int) {
	end := r.nAdded + n
	if end > len(r.pods) {
		end = len(r.pods)
	}
	for p := r.nAdded; p < end; p++ {
		r.addedAt[p] = nowNs()
		r.mgr.AddPod(r.ctx, r.pods[p])
	}
	r.nAdded = end
}

// probes is the number of probe workers the manager should have.
func (r *run) probes() int { return r.nAdded * r.C * len(r.kinds) }

// forEachTarget calls f for the targets of added pods that have a probe.
func (r *run) forEachTarget(f func(i, p, k int)) {
	for p := 0; p < r.nAdded; p++ {
		for c := 0; c < r.C; c++ {
			for _, k := range r.kinds {
				f(r.target(p, c, k), p, k)
			}
		}
	}
}

// lostTransitions compares the transitions the targets' answers imply with the ones
// seen on the Updates() channels, waiting up to settle for in-flight updates.
func (r *run) lostTransitions(settle time.Duration) (lost, extra int64) {
	deadline := time.Now().Add(settle)
	for {
		lost, extra = 0, 0
		r.forEachTarget(func(i, p, k int) {
			if r.tg.hung[i] != 0 {
				return
			}
			d := int64(r.tg.expected(i)) - int64(r.seenTrans[i].Load())
			if d > 0 {
				lost += d
			} else {
				extra -= d
			}
		})
		if lost == 0 || time.Now().After(deadline) {
			return lost, extra
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// teardown stops all probes, waits (bounded) for the manager's goroutines to go
// away, and stops the drain loop.
func (r *run) teardown() {
	if r.mgr != nil {
		r.mgr.CleanupPods(map[types.UID]sets.Empty{})
		// Upstream workers exit at their next tick; one sleeping its initial random
		// delay exits after it. Bounded wait.
		// Wait until the goroutine count is back at the baseline (so the next run's
		// baseline is clean), or has stopped changing for longer than a probe can
		// take (goroutines the implementation keeps), or the deadline passes.
		start := time.Now()
		deadline := start.Add(r.w.period + 3*probeTimeoutSeconds*time.Second + time.Second)
		last, lastChange := runtime.NumGoroutine(), start
		for {
			g, now := runtime.NumGoroutine(), time.Now()
			if g <= r.baseG+2 {
				break
			}
			if g != last {
				last, lastChange = g, now
			}
			// A probe in flight holds its goroutine up to 3 retries × timeout.
			if now.Sub(lastChange) > 3*probeTimeoutSeconds*time.Second+500*time.Millisecond || now.After(deadline) {
				r.cfg.progressf("  teardown: %d goroutines above the baseline remain after CleanupPods (waited %.1fs)",
					g-r.baseG, now.Sub(start).Seconds())
				if os.Getenv("PROBEWHEEL_BENCH_DEBUG") != "" {
					pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
				}
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	r.cancel()
	close(r.drainStop)
	<-r.drainDone
	if r.w.handler != hExec {
		if err := r.srv.unmapRun(r.slot); err != nil {
			fmt.Fprintf(os.Stderr, "bench: target server unmap: %v\n", err)
		}
	}
	// A straggling probe may still reach the exec runner: it stops touching the
	// mapping now, and the mapping goes away once nothing can still be using it.
	if r.runner != nil {
		r.runner.closed.Store(true)
	}
	time.AfterFunc(unmapDelay, r.tg.close)
}

// ---- process-level measurements ----

// heapInuse is the heap's spans in use plus the stacks, after two GCs: the
// memory the process holds for its heap, fragmentation included, which
// HeapAlloc (heapStack) leaves out.
func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

func heapStack() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

// procUsage is the process's CPU time in ns, and how many times one of its
// threads blocked (voluntary context switches: a futex wait or an epoll_wait
// that slept), so that every goroutine hand-off that parked and woke an OS
// thread counts once.
func procUsage() (cpu, sleeps int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), ru.Nvcsw
}

// raiseNoFile lifts RLIMIT_NOFILE's soft limit to the hard limit.
func raiseNoFile() (uint64, error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, err
	}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			return 0, err
		}
	}
	return rl.Cur, nil
}

var benchStart = time.Now()

func (c *config) progressf(format string, args ...any) {
	if !c.progress {
		return
	}
	round := ""
	if c.round != "" {
		round = " round " + c.round
	}
	fmt.Fprintf(os.Stderr, "[bench%s +%s] %s\n", round,
		strconv.FormatFloat(time.Since(benchStart).Seconds(), 'f', 0, 64)+"s", fmt.Sprintf(format, args...))
}
