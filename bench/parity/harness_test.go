// Package parity runs the same probe scenarios against upstream's prober
// (k8s.io/kubernetes/pkg/kubelet/prober, imported from the module) and
// probewheel's, side by side, in testing/synctest bubbles: through the
// Manager interface only, with the kubelet's real status and results
// managers and an exec runner that records when each container was probed.
// Where upstream is random (its start-up sleep, its select between ready
// channels) the scenarios avoid the randomness or compare what does not
// depend on it; the differences probewheel makes on purpose are listed in
// pkg/kubelet/prober/doc.go.
//
// probewheel's contract is the oracle (bench/oracle): upstream's package with
// every run started on the next tick of probewheel's wheel. oracle_test.go
// holds probewheel to it exactly, with no tolerance: the review's scenarios,
// and make oracle-diff over the differential sweep's sequences;
// oracle_limit_test.go, where the exec limit binds.
package parity

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubepod "k8s.io/kubernetes/pkg/kubelet/pod"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/kubelet/status"
	"k8s.io/utils/ptr"

	"github.com/probewheel/probewheel/bench"
)

// runner is the exec runner both managers probe through. Each container's
// command takes hang of fake time and fails if fail is set, unless behave is
// set: then behave decides every call (the differential fuzzer's targets).
type runner struct {
	mu       sync.Mutex
	t0       time.Time
	starts   map[string][]time.Duration // container → start times since t0
	timeouts map[string]time.Duration
	hang     map[string]time.Duration
	fail     map[string]bool
	// behave, if set, is called with mu held at the start of each call.
	behave func(id string, cmd []string) behaviour
	calls  []call // every call, in the order they started
}

// behaviour is what one call does: it takes hang of fake time, then panics
// or returns err.
type behaviour struct {
	hang   time.Duration
	err    error
	panics bool
}

// call is one RunInContainer call as the runner saw it.
type call struct {
	id, cmd    string
	start, end time.Duration // since t0; end is -1 while the call is in flight
	behaviour
}

func newRunner() *runner {
	return &runner{t0: time.Now(), starts: map[string][]time.Duration{}, timeouts: map[string]time.Duration{},
		hang: map[string]time.Duration{}, fail: map[string]bool{}}
}

func (r *runner) RunInContainer(_ context.Context, id kubecontainer.ContainerID, cmd []string, timeout time.Duration) ([]byte, error) {
	name := id.ID // containers are named by their ID
	r.mu.Lock()
	start := time.Since(r.t0)
	r.starts[name] = append(r.starts[name], start)
	r.timeouts[name] = timeout
	b := behaviour{hang: r.hang[name]}
	if r.fail[name] {
		b.err = bench.ExitFailure
	}
	if r.behave != nil {
		b = r.behave(name, cmd)
	}
	i := len(r.calls)
	r.calls = append(r.calls, call{id: name, cmd: strings.Join(cmd, " "), start: start, end: -1, behaviour: b})
	r.mu.Unlock()
	time.Sleep(b.hang)
	r.mu.Lock()
	r.calls[i].end = time.Since(r.t0)
	r.mu.Unlock()
	if b.panics {
		panic(fmt.Sprintf("parity: the handler of %s %v panics", name, cmd))
	}
	return nil, b.err
}

func (r *runner) set(container string, hang time.Duration, fail bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hang[container], r.fail[container] = hang, fail
}

// runs counts the runs of every container so far.
func (r *runner) runs() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.starts {
		n += len(s)
	}
	return n
}

func (r *runner) startsOf(container string) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.starts[container])
}

// node is one manager with its kubelet-side collaborators.
type node struct {
	t       *testing.T
	ctx     context.Context
	mgr     bench.Manager
	status  status.Manager
	pods    kubepod.Manager            // the kubelet's pods (start adds each), as the status manager sees them
	results map[string]results.Manager // "liveness", "readiness", "startup"
	runner  *runner
	done    chan struct{}
	wg      sync.WaitGroup

	mu      sync.Mutex
	updates map[string][]update // probe type → what the results channel delivered
}

type update struct {
	results.Update
	at time.Duration // since runner.t0
}

func newNode(t *testing.T, impl bench.Impl) *node { return newNodeWith(t, impl, nil) }

// newNodeWith is newNode with a sync loop: each update, once recorded, is
// passed to onUpdate, as the kubelet's syncLoopIteration reads it.
func newNodeWith(t *testing.T, impl bench.Impl, onUpdate func(kind string, u results.Update)) *node {
	kubelet := bench.NewKubelet()
	n := &node{
		t:       t,
		pods:    kubelet.Pods,
		ctx:     klog.NewContext(context.Background(), klog.Background()),
		status:  kubelet.Status,
		results: kubelet.Results(),
		runner:  newRunner(),
		done:    make(chan struct{}),
		updates: map[string][]update{},
	}
	n.mgr = kubelet.NewManager(impl, n.runner, nil)
	for kind, rm := range n.results {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			for {
				select {
				case u := <-rm.Updates():
					n.mu.Lock()
					n.updates[kind] = append(n.updates[kind], update{u, time.Since(n.runner.t0)})
					n.mu.Unlock()
					if onUpdate != nil {
						onUpdate(kind, u)
					}
				case <-n.done:
					return
				}
			}
		}()
	}
	return n
}

// afterStart lets the manager's restart window pass: upstream sleeps a
// random part of the period before a worker's first probe within it.
func (n *node) afterStart(longestPeriod time.Duration) {
	time.Sleep(longestPeriod)
	n.runner.t0 = time.Now()
}

// addPod adds a running pod with one container named like the pod.
func (n *node) addPod(name string, c v1.Container) *v1.Pod {
	return n.addPodUID(name, types.UID(name), c)
}

// addPodUID adds a running pod with one container named like the pod, whose
// ID is the pod's UID: a pod created again under the same name is another pod.
func (n *node) addPodUID(name string, uid types.UID, c v1.Container) *v1.Pod {
	pod := runningPod(name, uid, c)
	n.start(pod)
	return pod
}

// runningPod is a pod with one container named like the pod.
func runningPod(name string, uid types.UID, c v1.Container) *v1.Pod {
	c.Name = name
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: uid, Name: name, Namespace: "parity"},
		Spec:       v1.PodSpec{Containers: []v1.Container{c}},
	}
}

// start does what the kubelet does for a pod whose container runs: the pod
// manager has it, the status manager has its status, the prober its workers.
func (n *node) start(pod *v1.Pod) {
	name := pod.Spec.Containers[0].Name
	n.pods.AddPod(pod)
	n.status.SetPodStatus(klog.Background(), pod, v1.PodStatus{
		Phase: v1.PodRunning,
		ContainerStatuses: []v1.ContainerStatus{{
			Name:        name,
			ContainerID: "parity://" + string(pod.UID),
			State:       v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.Now()}},
			Started:     ptr.To(true),
		}},
	})
	n.mgr.AddPod(n.ctx, pod)
}

// updatePodStatus plays the kubelet's status sync, which triggers a manual
// readiness run of a container that is not ready.
func (n *node) updatePodStatus(pod *v1.Pod) {
	st, _ := n.status.GetPodStatus(pod.UID)
	st = *st.DeepCopy()
	n.mgr.UpdatePodStatus(n.ctx, pod, &st)
}

func (n *node) updatesOf(kind string) []update {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.updates[kind])
}

// close removes every pod and lets running probes end; synctest fails the
// test if a goroutine of either manager is left. Upstream's worker may take
// a due tick over the stop request (its select is random), each time with
// even odds, so close waits until a whole period passes with no new run.
func (n *node) close(longestHang time.Duration) {
	n.mgr.CleanupPods(map[types.UID]sets.Empty{})
	for runs := -1; runs != n.runner.runs(); {
		runs = n.runner.runs()
		time.Sleep(longestHang + time.Second)
	}
	synctest.Wait()
	close(n.done)
	n.wg.Wait()
}

// sideBySide runs scenario once per implementation, and the oracle, each in a
// bubble of its own, and returns what check extracted from each, by implementation name.
func sideBySide[T any](t *testing.T, scenario func(n *node) T) map[string]T {
	got := map[string]T{}
	for _, impl := range append(slices.Clone(bench.Impls), bench.Oracle) {
		synctest.Test(t, func(t *testing.T) {
			got[impl.Name] = scenario(newNode(t, impl))
		})
	}
	return got
}

// brief prints at most the first ten of many run times.
func brief(ds []time.Duration) string {
	if len(ds) <= 10 {
		return fmt.Sprint(ds)
	}
	return fmt.Sprintf("%v ... (%d runs)", ds[:10], len(ds))
}

// secs is shorthand for durations in seconds.
func secs(ss ...float64) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = time.Duration(s * float64(time.Second))
	}
	return out
}
