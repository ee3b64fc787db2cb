// Package reliability runs the prober implementations of bench.Impls through
// long, churning and stalled workloads and measures from the outside — the
// Manager interface, the results channels, runtime.NumGoroutine and the heap
// — what they lose and what they leak:
//
//   - the churn soak (soak.go): 10,000 pods added and removed in waves, with
//     container restarts, duplicate AddPods and UpdatePodStatus between
//     waves, for an hour of simulated time (testing/synctest) or ten minutes
//     of real time;
//   - the slow kubelet (slowkubelet.go): nobody reads the Updates() channels
//     for minutes while 10,000 pods' readiness results flip, then reading
//     resumes.
//
// The same code runs in a synctest bubble (time is fake: every lateness is
// a logical one, and a run takes no time) and in real time. The tests in
// this package are the short forms that go test runs; make soak, make
// soak-real and make slow-kubelet run the full ones (reliability.mk).
package reliability

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/kubelet/status"
	"k8s.io/utils/ptr"

	"github.com/probewheel/probewheel/bench"
	"github.com/probewheel/probewheel/bench/measure"
)

// world is one implementation's prober with the kubelet around it: the pods
// (a fixed number of slots, each holding one pod incarnation at a time), the
// real status manager and results managers, an exec runner whose targets the
// harness flips, and the drain loop that plays syncLoopIteration.
//
// Every pod has one container with a readiness and a liveness exec probe of
// the same period, successThreshold 1; readiness failureThreshold 1,
// liveness 3. Liveness targets always succeed; readiness targets answer
// what their slot's fail flag says.
type world struct {
	impl   bench.Impl
	period time.Duration
	ctx    context.Context
	status status.Manager
	live   results.Manager
	ready  results.Manager
	start  results.Manager
	mgr    bench.Manager

	slots []slot
	fail  []atomic.Bool // readiness target of slot i fails

	// Runner accounting.
	runs      atomic.Int64
	inFlight  atomic.Int64
	maxFlight atomic.Int64
	lateMu    sync.Mutex
	late      [2][]time.Duration // interval − period of liveness runs, while recording: fast, slow
	recording atomic.Bool
	// The liveness target of every slowEvery-th slot takes slowLatency:
	// healthy, but slow enough that the prober counts it as slow work.
	slowEvery   int
	slowLatency time.Duration
	lastLive    []atomic.Int64 // per slot: last liveness run (ns since t0), 0 = none yet
	liveGen     []atomic.Int64 // per slot: the container whose runs lastLive times
	t0          time.Time

	// Drain accounting, guarded by mu.
	mu   sync.Mutex
	acct accounting
	// Per "<kind>/<container ID>": the results the prober Set that changed
	// the cached one, in order, that the drain loop has not read yet. This
	// checks delivery itself, whatever the targets did: every change the
	// prober made reaches the kubelet, once, in order.
	unread   map[string][]results.Result
	pause    chan struct{}
	resume   chan struct{}
	stop     chan struct{}
	drainers sync.WaitGroup

	// Containers told to go since the last checkGone (harness goroutine).
	pendingGone []string

	// Baselines before the manager existed.
	baseGoroutines int
}

// slot is one pod position. The harness goroutine owns pod, podGen, ctrGen
// and alive; the drain loop reads the generations under world.mu.
type slot struct {
	pod    *v1.Pod
	podGen int64
	ctrGen int64
	alive  bool
	// Per current container, under world.mu.
	readyUpdates int            // readiness updates delivered
	readyLast    results.Result // the last one
	readyAny     bool
	expUpdates   int            // readiness updates the target's flips imply
	expLast      results.Result // what the target says now
	liveUpdates  int            // liveness updates delivered
	expLive      int            // liveness updates expected: the initial Success
}

// accounting is what the drain loop and the checks found, over all
// containers.
type accounting struct {
	Lost             int `json:"transitions_lost"`           // expected readiness updates that never came
	Extra            int `json:"transitions_extra"`          // readiness updates no target change explains
	OutOfOrder       int `json:"out_of_order"`               // a readiness update equal to the previous one for its container
	WrongFinal       int `json:"wrong_final_state"`          // last readiness update ≠ the target's state
	LivenessFailures int `json:"liveness_failures"`          // liveness Failure updates (restart decisions); targets never fail
	LivenessExtra    int `json:"liveness_updates_extra"`     // liveness updates beyond the one per container
	Stale            int `json:"updates_for_old_containers"` // updates for a container that was replaced or removed
	Delivered        int `json:"updates_delivered"`
	Containers       int `json:"containers_checked"`
	// Against what the prober Set (recordingResults), liveness and readiness:
	Changes    int `json:"changes_set"`            // Sets that changed a cached result
	Misordered int `json:"updates_misordered"`     // an update that is not the next change of its container
	Unexpected int `json:"updates_without_change"` // an update no change explains
	Unread     int `json:"changes_never_read"`     // changes still unread at the end (takeUnread)
}

const podNamespace = "reliability"

func newWorld(impl bench.Impl, slots int, period time.Duration) *world {
	w := &world{
		impl:     impl,
		period:   period,
		ctx:      klog.NewContext(context.Background(), logr.Discard()),
		slots:    make([]slot, slots),
		fail:     make([]atomic.Bool, slots),
		lastLive: make([]atomic.Int64, slots),
		liveGen:  make([]atomic.Int64, slots),
		unread:   map[string][]results.Result{},
		pause:    make(chan struct{}),
		resume:   make(chan struct{}),
		stop:     make(chan struct{}),
		t0:       time.Now(),
	}
	kubelet := bench.NewKubelet()
	w.status, w.live, w.ready, w.start = kubelet.Status, kubelet.Liveness, kubelet.Readiness, kubelet.Startup
	w.baseGoroutines = runtime.NumGoroutine()
	w.mgr = kubelet.NewManager(impl, w, func(kind string, m results.Manager) results.Manager {
		if kind == "startup" {
			return m
		}
		return &recordingResults{m, w, kind}
	})
	w.drainers.Add(1)
	go w.drain()
	return w
}

// close stops the drain loop; the caller has removed every pod.
func (w *world) close() {
	close(w.stop)
	w.drainers.Wait()
}

// ---- the exec runner: the probes' targets ----

// RunInContainer is every probe's target. The command names the probe type.
func (w *world) RunInContainer(_ context.Context, id kubecontainer.ContainerID, cmd []string, _ time.Duration) ([]byte, error) {
	w.runs.Add(1)
	n := w.inFlight.Add(1)
	defer w.inFlight.Add(-1)
	for m := w.maxFlight.Load(); n > m && !w.maxFlight.CompareAndSwap(m, n); m = w.maxFlight.Load() {
	}
	i, podGen, ctrGen, ok := parseID(id.ID)
	if !ok {
		return nil, fmt.Errorf("reliability: unknown container %q", id.ID)
	}
	if cmd[0] == "liveness" {
		slow := w.slowEvery > 0 && i%w.slowEvery == 0
		w.timeLiveness(i, podGen<<32|ctrGen, slow)
		if slow {
			time.Sleep(w.slowLatency)
		}
		return nil, nil
	}
	if w.fail[i].Load() {
		return nil, bench.ExitFailure
	}
	return nil, nil
}

// timeLiveness records how far a liveness run of slot i's container gen is
// from one period after the previous one.
func (w *world) timeLiveness(i int, gen int64, slow bool) {
	now := int64(time.Since(w.t0))
	if w.liveGen[i].Swap(gen) != gen {
		w.lastLive[i].Store(now) // a new container: its first run
		return
	}
	prev := w.lastLive[i].Swap(now)
	if prev == 0 || !w.recording.Load() {
		return
	}
	class := 0
	if slow {
		class = 1
	}
	w.lateMu.Lock()
	w.late[class] = append(w.late[class], time.Duration(now-prev)-w.period)
	w.lateMu.Unlock()
}

// containerID names slot i's podGen-th pod's ctrGen-th container.
func containerID(i int, podGen, ctrGen int64) string {
	return fmt.Sprintf("%d.%d.%d", i, podGen, ctrGen)
}

func parseID(s string) (i int, podGen, ctrGen int64, ok bool) {
	var parts [3]int64
	for k := range parts {
		field := s
		if k < 2 {
			var found bool
			field, s, found = cut(s, '.')
			if !found {
				return 0, 0, 0, false
			}
		}
		v, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		parts[k] = v
	}
	return int(parts[0]), parts[1], parts[2], true
}

func cut(s string, sep byte) (before, after string, found bool) {
	for j := 0; j < len(s); j++ {
		if s[j] == sep {
			return s[:j], s[j+1:], true
		}
	}
	return s, "", false
}

// ---- pods ----

// addPod puts a new pod in slot i and adds it to the manager; its readiness
// target answers what fail says.
func (w *world) addPod(i int, fail bool) {
	s := &w.slots[i]
	s.podGen++
	s.ctrGen = 0
	uid := types.UID(fmt.Sprintf("%s-%d-%d", w.impl.Name, i, s.podGen))
	probe := func(kind string, failureThreshold int32) *v1.Probe {
		return &v1.Probe{
			ProbeHandler:     v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{kind}}},
			PeriodSeconds:    int32(w.period / time.Second),
			TimeoutSeconds:   1,
			SuccessThreshold: 1,
			FailureThreshold: failureThreshold,
		}
	}
	s.pod = &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: uid, Name: string(uid), Namespace: podNamespace},
		Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways, Containers: []v1.Container{{
			Name: "c", ReadinessProbe: probe("readiness", 1), LivenessProbe: probe("liveness", 3),
		}}},
	}
	s.alive = true
	w.fail[i].Store(fail)
	w.newContainer(i)
	w.mgr.AddPod(w.ctx, s.pod)
}

// newContainer gives slot i's pod a new container (its first, or a restart)
// and starts accounting for it.
func (w *world) newContainer(i int) {
	s := &w.slots[i]
	s.ctrGen++
	w.status.SetPodStatus(klog.Background(), s.pod, v1.PodStatus{
		Phase: v1.PodRunning,
		ContainerStatuses: []v1.ContainerStatus{{
			Name:        "c",
			ContainerID: "rel://" + containerID(i, s.podGen, s.ctrGen),
			State:       v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.Now()}},
			Started:     ptr.To(true),
		}},
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	// The first probe sets readiness to its initial Failure, then to what the
	// target says if that differs.
	s.readyUpdates, s.readyAny, s.liveUpdates, s.expLive = 0, false, 0, 1
	s.expUpdates, s.expLast = 1, results.Failure
	if !w.fail[i].Load() {
		s.expUpdates, s.expLast = 2, results.Success
	}
}

// restart plays the runtime restarting slot i's container.
func (w *world) restart(i int) {
	w.check(i)
	w.gone(i)
	w.newContainer(i)
}

// removePod removes slot i's pod from the manager.
func (w *world) removePod(i int) {
	s := &w.slots[i]
	w.check(i)
	w.gone(i)
	w.mgr.RemovePod(s.pod)
	s.alive = false
	w.mu.Lock()
	s.readyUpdates, s.expUpdates, s.liveUpdates, s.expLive = 0, 0, 0, 0
	w.mu.Unlock()
}

// flip turns slot i's readiness target around; the probe reports it within
// a period.
func (w *world) flip(i int) {
	s := &w.slots[i]
	failing := !w.fail[i].Load()
	w.fail[i].Store(failing)
	w.mu.Lock()
	defer w.mu.Unlock()
	s.expUpdates++
	s.expLast = results.Success
	if failing {
		s.expLast = results.Failure
	}
}

// syncPod plays one SyncPod of slot i: AddPod again (the kubelet calls it on
// every sync) and UpdatePodStatus.
func (w *world) syncPod(i int) {
	s := &w.slots[i]
	w.mgr.AddPod(w.ctx, s.pod)
	st, _ := w.status.GetPodStatus(s.pod.UID)
	st = *st.DeepCopy()
	w.mgr.UpdatePodStatus(w.ctx, s.pod, &st)
}

// forgetRemoved drops the statuses of removed pods, as the kubelet's
// housekeeping does.
func (w *world) forgetRemoved() {
	keep := map[types.UID]bool{}
	for i := range w.slots {
		if s := &w.slots[i]; s.alive {
			keep[s.pod.UID] = true
		}
	}
	w.status.RemoveOrphanedStatuses(klog.Background(), keep)
}

// check closes the books on slot i's current container: the readiness
// updates delivered for it against the ones its target implied. The caller
// makes sure the last flip is more than a period old.
func (w *world) check(i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := &w.slots[i]
	a := &w.acct
	a.Containers++
	if d := s.expUpdates - s.readyUpdates; d > 0 {
		a.Lost += d
	} else {
		a.Extra -= d
	}
	if s.readyUpdates == s.expUpdates && s.readyLast != s.expLast {
		a.WrongFinal++
	}
	if s.liveUpdates > s.expLive {
		a.LivenessExtra += s.liveUpdates - s.expLive
	}
}

// checkAll closes the books on every live container.
func (w *world) checkAll() {
	for i := range w.slots {
		if w.slots[i].alive {
			w.check(i)
			w.mu.Lock()
			s := &w.slots[i]
			// Start over for the same container: what is delivered from now on
			// is checked against what its target does from now on.
			s.readyUpdates, s.expUpdates, s.liveUpdates, s.expLive = 0, 0, 0, 0
			w.mu.Unlock()
		}
	}
}

// ---- the drain loop: syncLoopIteration's results cases ----

func (w *world) drain() {
	defer w.drainers.Done()
	for {
		var u results.Update
		var live bool
		select {
		case <-w.pause:
			select {
			case <-w.resume:
			case <-w.stop:
				return
			}
			continue
		case u = <-w.live.Updates():
			live = true
		case u = <-w.ready.Updates():
		case <-w.start.Updates():
			continue
		case <-w.stop:
			return
		}
		w.record(u, live)
	}
}

func (w *world) record(u results.Update, live bool) {
	i, podGen, ctrGen, ok := parseID(u.ContainerID.ID)
	w.mu.Lock()
	defer w.mu.Unlock()
	a := &w.acct
	a.Delivered++
	kind := "readiness"
	if live {
		kind = "liveness"
	}
	key := kind + "/" + u.ContainerID.ID
	switch q := w.unread[key]; {
	case len(q) == 0:
		a.Unexpected++
	case q[0] != u.Result:
		a.Misordered++
		fallthrough
	default:
		if len(q) == 1 {
			delete(w.unread, key)
		} else {
			w.unread[key] = q[1:]
		}
	}
	if !ok || i >= len(w.slots) {
		a.Stale++
		return
	}
	s := &w.slots[i]
	if !s.alive || s.podGen != podGen || s.ctrGen != ctrGen {
		a.Stale++
		return
	}
	if live {
		s.liveUpdates++
		if u.Result == results.Failure {
			a.LivenessFailures++
		}
		return
	}
	if s.readyAny && u.Result == s.readyLast {
		a.OutOfOrder++
	}
	s.readyUpdates++
	s.readyLast, s.readyAny = u.Result, true
}

// recordingResults is the results manager the prober under test writes
// to: it notes every Set that changes the cached result before passing it on.
type recordingResults struct {
	results.Manager
	w    *world
	kind string
}

func (r *recordingResults) Set(id kubecontainer.ContainerID, result results.Result, pod *v1.Pod) {
	// Only the probe's own worker writes its container's result, so the
	// cached value cannot change between Get and Set.
	if prev, ok := r.Manager.Get(id); !ok || prev != result {
		key := r.kind + "/" + id.ID
		r.w.mu.Lock()
		r.w.acct.Changes++
		r.w.unread[key] = append(r.w.unread[key], result)
		r.w.mu.Unlock()
	}
	r.Manager.Set(id, result, pod)
}

// takeUnread counts the changes the drain loop has not read, into the
// accounting; called once nothing can be in flight.
func (w *world) takeUnread() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key, q := range w.unread {
		w.acct.Unread += len(q)
		delete(w.unread, key)
	}
}

// stall stops the drain loop from reading until unstall.
func (w *world) stall()   { w.pause <- struct{}{} }
func (w *world) unstall() { w.resume <- struct{}{} }

// ---- measurements ----

// memory is the process's heap and goroutine stacks after a GC, and its
// goroutines.
type memory struct {
	HeapMB     float64 `json:"heap_mb"`
	StackMB    float64 `json:"stack_mb"`
	Goroutines int     `json:"goroutines"`
}

func readMemory() memory {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memory{float64(m.HeapAlloc) / (1 << 20), float64(m.StackInuse) / (1 << 20), runtime.NumGoroutine()}
}

// lateness summarises the recorded liveness intervals' distance from the
// period.
type lateness struct {
	Runs  int     `json:"intervals"` // |interval − period| below
	P50ms float64 `json:"p50_ms"`
	P99ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
	// Missed is the runs missed (measure.Missed), the open gaps at the
	// phase's end included.
	Missed int `json:"missed_runs"`
}

// closeGaps ends a recording phase: a live container whose liveness probe
// has missed a run by now (measure.Missed) counts as an interval up to now,
// and its next run starts a new interval, so that a probe held up across the
// phase's end counts in this phase, once.
func (w *world) closeGaps() {
	now := time.Duration(time.Since(w.t0))
	w.lateMu.Lock()
	defer w.lateMu.Unlock()
	for i := range w.slots {
		last := time.Duration(w.lastLive[i].Load())
		if !w.slots[i].alive || last == 0 || measure.Missed(int64(now-last), int64(w.period)) == 0 {
			continue
		}
		if w.lastLive[i].CompareAndSwap(int64(last), 0) {
			class := 0
			if w.slowEvery > 0 && i%w.slowEvery == 0 {
				class = 1
			}
			w.late[class] = append(w.late[class], now-last-w.period)
		}
	}
}

// takeLateness summarises and clears what was recorded of the fast (0) or
// slow (1) liveness probes.
func (w *world) takeLateness(class int) lateness {
	w.lateMu.Lock()
	ds := w.late[class]
	w.late[class] = nil
	w.lateMu.Unlock()
	l := lateness{Runs: len(ds)}
	abs := make([]int64, len(ds))
	for i, d := range ds {
		abs[i] = int64(max(d, -d))
		l.Missed += int(measure.Missed(int64(d+w.period), int64(w.period)))
	}
	if len(abs) == 0 {
		return l
	}
	slices.Sort(abs)
	q := func(p float64) float64 { return float64(measure.Quantile(abs, p)) / 1e6 }
	l.P50ms, l.P99ms, l.MaxMs = q(0.5), q(0.99), q(1)
	return l
}

// gone notes containers whose workers have been told to go (restarted or
// removed): by the next checkGone their cached results must be gone.
func (w *world) gone(i int) {
	s := &w.slots[i]
	w.pendingGone = append(w.pendingGone, containerID(i, s.podGen, s.ctrGen))
}

// checkGone counts the noted containers that still have a cached result, and
// forgets them.
func (w *world) checkGone() int {
	n := 0
	for _, id := range w.pendingGone {
		cid := kubecontainer.ContainerID{Type: "rel", ID: id}
		_, r := w.ready.Get(cid)
		_, l := w.live.Get(cid)
		if r || l {
			n++
		}
	}
	w.pendingGone = w.pendingGone[:0]
	return n
}
