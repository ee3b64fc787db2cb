package parity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	remote "k8s.io/cri-client/pkg"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/utils/ptr"

	"github.com/probewheel/probewheel/bench"
)

// plan is a sequence resolved to concrete pods: which pod each op acts on,
// which probe workers it may stop. It depends on the sequence alone, not on
// how a manager behaves, so every implementation plays the same plan and
// the comparison reads it.
type plan struct {
	seq   sequence
	steps []step
	pods  []*fuzzPod
}

type step struct {
	at      time.Duration
	op      op
	pod     *fuzzPod   // nil: the op has nothing to act on and is skipped
	stops   []pkey     // the probe workers the op stops, if they exist
	desired []*fuzzPod // opCleanup
	gen     int        // opRestart: the container's new generation
}

// fuzzPod is one pod a plan creates.
type fuzzPod struct {
	uid  types.UID
	spec podSpec
}

// pkey names one probe of one pod, like the managers' probeKey.
type pkey struct {
	uid  types.UID
	ctr  string
	kind kind
}

func (k pkey) String() string { return fmt.Sprintf("%s/%s/%s", k.uid, k.ctr, k.kind) }

// keys are the pod's probes in the order AddPod visits them: containers,
// then sidecars; startup, readiness, liveness.
func (p *fuzzPod) keys() []pkey { return slices.Concat(p.byContainer()...) }

// byContainer are the pod's probes grouped by container, in AddPod's order.
func (p *fuzzPod) byContainer() [][]pkey {
	var out [][]pkey
	for _, sidecars := range []bool{false, true} {
		for i, c := range p.spec.ctrs {
			if c.sidecar != sidecars {
				continue
			}
			var keys []pkey
			for k := range numKinds {
				if c.has(k) {
					keys = append(keys, pkey{p.uid, ctrName(i, c), k})
				}
			}
			out = append(out, keys)
		}
	}
	return out
}

func (p *fuzzPod) ctr(name string) (ctrSpec, bool) {
	for i, c := range p.spec.ctrs {
		if ctrName(i, c) == name {
			return c, true
		}
	}
	return ctrSpec{}, false
}

func (p *fuzzPod) period(k pkey) time.Duration {
	c, _ := p.ctr(k.ctr)
	return time.Duration(c.probes[k.kind].period) * time.Second
}

// resolve builds a sequence's plan.
func resolve(seq sequence) *plan {
	p := &plan{seq: seq}
	var slots [numSlots]*fuzzPod
	removed := map[*fuzzPod]bool{}
	gens := map[string]int{}
	for i, o := range seq.ops {
		st := step{at: seq.at(i), op: o, pod: slots[o.slot]}
		switch o.kind {
		case opAdd:
			if st.pod == nil || o.fresh {
				st.pod = &fuzzPod{uid: types.UID(fmt.Sprintf("p%d", len(p.pods))), spec: o.spec}
				p.pods = append(p.pods, st.pod)
				slots[o.slot] = st.pod
			}
			delete(removed, st.pod)
		case opStopLS:
			if st.pod != nil {
				st.stops = slices.DeleteFunc(st.pod.keys(), func(k pkey) bool {
					c, _ := st.pod.ctr(k.ctr)
					return c.sidecar || k.kind == readinessKind
				})
			}
		case opRemove:
			if st.pod != nil {
				st.stops = st.pod.keys()
				removed[st.pod] = true
			}
		case opCleanup:
			st.pod = nil
			for s, pod := range slots {
				if pod != nil && o.mask>>s&1 != 0 && !removed[pod] {
					st.desired = append(st.desired, pod)
				}
			}
			for _, pod := range p.pods {
				if !slices.Contains(st.desired, pod) {
					st.stops = append(st.stops, pod.keys()...)
					removed[pod] = true
				}
			}
		case opRestart:
			if st.pod != nil {
				if o.ctr >= len(st.pod.spec.ctrs) {
					st.op.ctr = 0
				}
				name := string(st.pod.uid) + "_" + ctrName(st.op.ctr, st.pod.spec.ctrs[st.op.ctr])
				gens[name]++
				st.gen = gens[name]
			}
		case opTarget:
			if st.pod != nil && o.ctr >= len(st.pod.spec.ctrs) {
				st.op.ctr = 0
			}
		}
		p.steps = append(p.steps, st)
	}
	return p
}

// containerID is the ID of a container's gen-th incarnation; the runner and
// the comparison parse it back.
func containerID(uid types.UID, ctr string, gen int) string {
	return fmt.Sprintf("%s_%s_%d", uid, ctr, gen)
}

func parseContainerID(id string) (uid types.UID, ctr string, gen int) {
	parts := strings.Split(id, "_")
	if len(parts) != 3 {
		return "", "", -1
	}
	gen, _ = strconv.Atoi(parts[2])
	return types.UID(parts[0]), parts[1], gen
}

// observation is what one implementation did with a plan, as seen from
// outside: the results channels, the probe runs and UpdatePodStatus.
type observation struct {
	impl    string
	updates map[pkey][]event
	calls   map[pkey][]call
	status  map[int][]ctrStatus // step index → what UpdatePodStatus said
}

// event is one update on a results channel.
type event struct {
	at     time.Duration
	cid    string
	result results.Result
}

func (e event) String() string { return fmt.Sprintf("%.3fs %s %v", e.at.Seconds(), e.cid, e.result) }

// ctrStatus is what UpdatePodStatus set for one container.
type ctrStatus struct {
	name           string
	started, ready bool
}

// targetState is what the handler of one probe of one container does, for
// every incarnation of the container.
type targetState struct {
	mode mode
	hang time.Duration
}

var (
	errProbe = errors.New("parity: probe error")
	errHung  = fmt.Errorf("%w: parity: hung", remote.ErrCommandTimedOut)
)

func (s targetState) behaviour() behaviour {
	b := behaviour{hang: s.hang}
	switch s.mode {
	case modeFail:
		b.err = bench.ExitFailure
	case modeTimeout:
		b.err = errHung
	case modeError:
		b.err = errProbe
	case modePanic:
		b.panics = true
	}
	return b
}

// maxRun bounds how long one probe run can take: three tries of the
// longest hang.
var maxRun = 3 * hangs[len(hangs)-1]

// play runs a plan against one implementation in the current bubble.
func play(t *testing.T, impl bench.Impl, p *plan) *observation {
	return playWith(t, impl, p, playHooks{})
}

// playHooks are what a variant of the sweep changes in play (the oracle
// sweep with the exec limit binding, oracle_limit_test.go); each nil: play's.
type playHooks struct {
	// behave decides each call instead of its target's behaviour(), from
	// the target's state; called with the runner's mu held.
	behave func(id string, cmd []string, target targetState) behaviour
	// pod adjusts a plan's pod when play first makes it.
	pod func(fp *fuzzPod, pod *v1.Pod)
	// addCtx is the context step i's AddPod passes, from play's.
	addCtx func(i int, ctx context.Context) context.Context
	// step is called at each step's instant before its op, and at the end
	// with i = len(p.steps); after, right after each step's op.
	step, after func(i int, n *node)
}

// playWith is play with hooks.
func playWith(t *testing.T, impl bench.Impl, p *plan, h playHooks) *observation {
	n := newNode(t, impl)
	// Panicking handlers are part of the plan; their stack traces are noise.
	n.ctx = klog.NewContext(context.Background(), logr.Discard())
	targets := map[string]targetState{} // "<uid>_<ctr>/<kind>", guarded by n.runner.mu
	n.runner.behave = func(id string, cmd []string) behaviour {
		uid, ctr, _ := parseContainerID(id)
		target := targets[string(uid)+"_"+ctr+"/"+strings.Join(cmd, " ")]
		if h.behave != nil {
			return h.behave(id, cmd, target)
		}
		return target.behaviour()
	}
	n.afterStart(startAfter)
	obs := &observation{impl: impl.Name, status: map[int][]ctrStatus{}}
	pods := map[*fuzzPod]*v1.Pod{}
	// An op at the instant of the one before (an op "with the AddPod") waits
	// until every goroutine has done what it does at this instant: upstream's
	// new worker goroutine races the caller otherwise, and a first run that
	// takes no time may or may not have set its result when UpdatePodStatus
	// reads it (upstream played twice differs from itself). A first run that
	// takes time (a hanging target) is in flight either way.
	sleepUntil := func(at time.Duration) {
		if d := at - time.Since(n.runner.t0); d > 0 {
			time.Sleep(d)
		} else {
			synctest.Wait()
		}
	}
	for i, st := range p.steps {
		sleepUntil(st.at)
		if h.step != nil {
			h.step(i, n)
		}
		switch st.op.kind {
		case opAdd:
			if pods[st.pod] == nil {
				pods[st.pod] = newFuzzPod(n, st.pod)
				if h.pod != nil {
					h.pod(st.pod, pods[st.pod])
				}
			}
			ctx := n.ctx
			if h.addCtx != nil {
				ctx = h.addCtx(i, ctx)
			}
			n.mgr.AddPod(ctx, pods[st.pod])
		case opUpdate:
			if st.pod == nil {
				break
			}
			pod := pods[st.pod]
			status, _ := n.status.GetPodStatus(pod.UID)
			status = *status.DeepCopy()
			n.mgr.UpdatePodStatus(n.ctx, pod, &status)
			obs.status[i] = statusOf(status)
			writeBack(n, pod, status)
		case opStopLS:
			if st.pod != nil {
				n.mgr.StopLivenessAndStartup(pods[st.pod])
			}
		case opRemove:
			if st.pod != nil {
				n.mgr.RemovePod(pods[st.pod])
			}
		case opCleanup:
			desired := map[types.UID]sets.Empty{}
			for _, pod := range st.desired {
				desired[pod.uid] = sets.Empty{}
			}
			n.mgr.CleanupPods(desired)
		case opRestart:
			if st.pod != nil {
				restartContainer(n, pods[st.pod], st.pod, st.op.ctr, st.gen)
			}
		case opTarget:
			if st.pod != nil {
				c := st.pod.spec.ctrs[st.op.ctr]
				key := string(st.pod.uid) + "_" + ctrName(st.op.ctr, c) + "/" + st.op.probe.String()
				n.runner.mu.Lock()
				targets[key] = targetState{st.op.mode, hangs[st.op.hang]}
				n.runner.mu.Unlock()
			}
		}
		if h.after != nil {
			h.after(i, n)
		}
	}
	sleepUntil(p.seq.end())
	if h.step != nil {
		h.step(len(p.steps), n)
	}
	// Healthy, quick targets from here on, so that close does not wait long.
	n.runner.mu.Lock()
	clear(targets)
	n.runner.mu.Unlock()
	n.close(maxRun)

	obs.updates = map[pkey][]event{}
	for _, k := range []kind{startupKind, readinessKind, livenessKind} {
		for _, u := range n.updatesOf(k.String()) {
			uid, ctr, _ := parseContainerID(u.ContainerID.ID)
			key := pkey{uid, ctr, k}
			obs.updates[key] = append(obs.updates[key], event{u.at, u.ContainerID.ID, u.Result})
		}
	}
	obs.calls = map[pkey][]call{}
	n.runner.mu.Lock()
	defer n.runner.mu.Unlock()
	for _, c := range n.runner.calls {
		uid, ctr, _ := parseContainerID(c.id)
		for k := range numKinds {
			if c.cmd == k.String() {
				key := pkey{uid, ctr, k}
				obs.calls[key] = append(obs.calls[key], c)
			}
		}
	}
	return obs
}

// writeBackDelay is when the kubelet writes back the status an
// UpdatePodStatus filled in: after the rest of its sync. A run that the call
// triggered reads the status before, in upstream (at once) and in
// probewheel (on the next tick) alike.
const writeBackDelay = 5 * time.Millisecond

// writeBack writes the Started and Ready that UpdatePodStatus set into the
// status manager writeBackDelay later, for the containers that have not been
// restarted meanwhile: ops in between go on at their own instants.
func writeBack(n *node, pod *v1.Pod, computed v1.PodStatus) {
	time.AfterFunc(writeBackDelay, func() {
		status, _ := n.status.GetPodStatus(pod.UID)
		status = *status.DeepCopy()
		for _, list := range [][]v1.ContainerStatus{status.ContainerStatuses, status.InitContainerStatuses} {
			for i := range list {
				for _, c := range slices.Concat(computed.ContainerStatuses, computed.InitContainerStatuses) {
					if c.Name == list[i].Name && c.ContainerID == list[i].ContainerID {
						list[i].Started, list[i].Ready = c.Started, c.Ready
					}
				}
			}
		}
		n.status.SetPodStatus(klog.Background(), pod, status)
	})
}

// newFuzzPod makes the v1.Pod of a plan's pod and its first status: every
// container running since now, started unless it has a startup probe (what
// UpdatePodStatus would say), not ready.
func newFuzzPod(n *node, fp *fuzzPod) *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: fp.uid, Name: string(fp.uid), Namespace: "parity"},
		Spec:       v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways},
	}
	status := v1.PodStatus{Phase: v1.PodRunning}
	for i, c := range fp.spec.ctrs {
		name := ctrName(i, c)
		ctr := v1.Container{Name: name}
		specs := [numKinds]**v1.Probe{&ctr.StartupProbe, &ctr.ReadinessProbe, &ctr.LivenessProbe}
		for k := range numKinds {
			if p := c.probes[k]; c.has(k) {
				*specs[k] = &v1.Probe{
					ProbeHandler:        v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{k.String()}}},
					PeriodSeconds:       p.period,
					TimeoutSeconds:      1,
					SuccessThreshold:    p.success,
					FailureThreshold:    p.failure,
					InitialDelaySeconds: p.delay,
				}
			}
		}
		cs := runningStatus(fp.uid, name, 0, !c.has(startupKind))
		if c.sidecar {
			ctr.RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways)
			pod.Spec.InitContainers = append(pod.Spec.InitContainers, ctr)
			status.InitContainerStatuses = append(status.InitContainerStatuses, cs)
		} else {
			pod.Spec.Containers = append(pod.Spec.Containers, ctr)
			status.ContainerStatuses = append(status.ContainerStatuses, cs)
		}
	}
	n.status.SetPodStatus(klog.Background(), pod, status)
	return pod
}

func runningStatus(uid types.UID, name string, gen int, started bool) v1.ContainerStatus {
	return v1.ContainerStatus{
		Name:        name,
		ContainerID: "fz://" + containerID(uid, name, gen),
		State:       v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.Now()}},
		Started:     ptr.To(started),
	}
}

// restartContainer plays the runtime restarting container i: a new ID and
// start time, not ready, started unless it has a startup probe.
func restartContainer(n *node, pod *v1.Pod, fp *fuzzPod, i, gen int) {
	c := fp.spec.ctrs[i]
	name := ctrName(i, c)
	status, _ := n.status.GetPodStatus(pod.UID)
	status = *status.DeepCopy()
	for _, list := range []([]v1.ContainerStatus){status.ContainerStatuses, status.InitContainerStatuses} {
		for j := range list {
			if list[j].Name == name {
				list[j] = runningStatus(fp.uid, name, gen, !c.has(startupKind))
			}
		}
	}
	n.status.SetPodStatus(klog.Background(), pod, status)
}

func statusOf(status v1.PodStatus) []ctrStatus {
	var out []ctrStatus
	for _, cs := range slices.Concat(status.ContainerStatuses, status.InitContainerStatuses) {
		out = append(out, ctrStatus{cs.Name, cs.Started != nil && *cs.Started, cs.Ready})
	}
	return out
}
