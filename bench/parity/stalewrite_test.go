package parity

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/kubelet/status"

	"github.com/probewheel/probewheel/bench"
)

// An extra readiness flip no probe answer caused: the kubelet has two
// writers of a pod's status. The sync loop writes each readiness result as
// it arrives (SetContainerReadiness) and asks for a pod sync; the pod
// worker's sync reads readiness through UpdatePodStatus early in
// generateAPIPodStatus and writes the whole status (SetPodStatus) after the
// rest of SyncPod's work. A sync that reads NotReady while the target has
// recovered triggers a manual readiness run; if that run's success reaches
// the sync loop before the sync writes, the sync's NotReady lands after the
// Ready: Ready, NotReady, and Ready again at the next sync
// (kubernetes#103717, #139244). The prober decides only how soon the
// triggered run ends; the write order is the kubelet's.
//
// kubeletSync plays both writers around one manager, with the real status
// manager; shown records the pod's Ready condition after every write.
type kubeletSync struct {
	n        *node
	pod      *v1.Pod
	syncWork time.Duration // from UpdatePodStatus to SetPodStatus in one sync
	req      chan struct{} // a sync asked for; one pending at most, as in the pod workers

	mu    sync.Mutex // serialises a write and its observation
	ready bool
	shown []shownFlip
}

// shownFlip is a change of the pod's Ready condition and when, since runner.t0.
type shownFlip struct {
	ready bool
	at    time.Duration
}

func (f shownFlip) String() string {
	if f.ready {
		return "Ready@" + f.at.String()
	}
	return "NotReady@" + f.at.String()
}

func newKubeletSync(t *testing.T, impl bench.Impl, syncWork time.Duration) *kubeletSync {
	k := &kubeletSync{syncWork: syncWork, req: make(chan struct{}, 1)}
	k.n = newNodeWith(t, impl, func(kind string, u results.Update) {
		if kind != "readiness" {
			return
		}
		k.write(func() {
			k.n.status.SetContainerReadiness(klog.Background(), u.PodUID, u.ContainerID, u.Result == results.Success)
		})
		k.askSync()
	})
	k.n.wg.Add(1)
	go func() {
		defer k.n.wg.Done()
		for {
			select {
			case <-k.req:
				k.sync()
			case <-k.n.done:
				return
			}
		}
	}()
	return k
}

func (k *kubeletSync) askSync() {
	select {
	case k.req <- struct{}{}:
	default:
	}
}

// sync is the pod worker's: generateAPIPodStatus's readiness, then, after
// syncWork, the write.
func (k *kubeletSync) sync() {
	old, _ := k.n.status.GetPodStatus(k.pod.UID)
	s := *old.DeepCopy() // UpdatePodStatus writes into it; old stays the cached status, read only
	k.n.mgr.UpdatePodStatus(k.n.ctx, k.pod, &s)
	time.Sleep(k.syncWork)
	s.Conditions = []v1.PodCondition{
		status.GeneratePodReadyCondition(k.pod, &old, nil, s.ContainerStatuses, s.Phase),
		status.GenerateContainersReadyCondition(k.pod, &old, s.ContainerStatuses, s.Phase),
	}
	k.write(func() { k.n.status.SetPodStatus(klog.Background(), k.pod, s) })
}

func (k *kubeletSync) write(f func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f()
	st, _ := k.n.status.GetPodStatus(k.pod.UID)
	ready := false
	for _, c := range st.Conditions {
		if c.Type == v1.PodReady {
			ready = c.Status == v1.ConditionTrue
		}
	}
	if ready != k.ready {
		k.ready = ready
		k.shown = append(k.shown, shownFlip{ready, time.Since(k.n.runner.t0)})
	}
}

// shownSince is what the API would have seen from t on, since runner.t0.
func (k *kubeletSync) shownSince(t time.Duration) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, f := range k.shown {
		if f.at >= t {
			out = append(out, f.String())
		}
	}
	return strings.Join(out, " ")
}

// TestStaleReadinessWrite reproduces the extra flip in every arm. The pod's
// readiness probe (exec, every 10 s, failureThreshold 3) runs at 0, 10, 20,
// 30 s; it fails from 1 s to 31 s, so NotReady shows at 30 s. At 32.001 s a
// sync (a resync, say) finds the container not ready and triggers a run,
// which takes hang. The stale NotReady shows when the run's success is
// written before the sync's status: when the run ends less than syncWork
// after the sync read readiness; the sync the result asked for writes Ready
// again syncWork after that. The race is the kubelet's; the prober's part in
// it is when the triggered run starts: at the trigger in upstream's arms, on
// the wheel's next tick (32.004 s) in probewheel's, whose flips are those of
// the same race from there.
func TestStaleReadinessWrite(t *testing.T) {
	cases := []struct {
		name           string
		syncWork, hang time.Duration
		want           string // the flips shown from 31 s on, in upstream's arms
		wantWheel      string // in probewheel's
	}{
		{"the run ends before the sync writes", 5 * time.Millisecond, 0,
			"Ready@32.001s NotReady@32.006s Ready@32.011s", "Ready@32.004s NotReady@32.006s Ready@32.011s"},
		{"a run of 1 ms, a sync of 5 ms", 5 * time.Millisecond, time.Millisecond,
			"Ready@32.002s NotReady@32.006s Ready@32.011s", "Ready@32.005s NotReady@32.006s Ready@32.011s"},
		{"a run of 1 ms, a sync of 2 ms", 2 * time.Millisecond, time.Millisecond,
			"Ready@32.002s NotReady@32.003s Ready@32.005s", "Ready@32.005s"},
		{"the run ends after the sync writes", 5 * time.Millisecond, 10 * time.Millisecond,
			"Ready@32.011s", "Ready@32.014s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, impl := range bench.Impls {
				synctest.Test(t, func(t *testing.T) {
					k := newKubeletSync(t, impl, c.syncWork)
					n := k.n
					n.afterStart(10 * time.Second)
					k.pod = runningPod("p", "p", v1.Container{ReadinessProbe: &v1.Probe{
						ProbeHandler:  v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"ready"}}},
						PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1,
					}})
					n.start(k.pod)
					time.Sleep(time.Second)
					n.runner.set("p", c.hang, true)
					time.Sleep(30 * time.Second)
					n.runner.set("p", c.hang, false)
					time.Sleep(time.Second + time.Millisecond)
					k.askSync()
					time.Sleep(5 * time.Second)
					// Before: Ready at the first run, NotReady at the third failure. (The
					// first run's Ready can race a sync too, at one instant of fake
					// time, where the goroutines' order decides: not compared.)
					if got := k.shownSince(0); !strings.HasPrefix(got, "Ready@0s") {
						t.Errorf("%s: shown %q, want Ready at 0 s first", impl.Name, got)
					}
					if got := k.shownSince(29 * time.Second); !strings.HasPrefix(got, "NotReady@30") {
						t.Errorf("%s: shown from 29 s on %q, want NotReady at 30 s first", impl.Name, got)
					}
					want := c.want
					if wheelArm(impl.Name) {
						want = c.wantWheel
					}
					if got := k.shownSince(31 * time.Second); got != want {
						t.Errorf("%s: shown from 31 s on %q, want %q", impl.Name, got, want)
					}
					n.close(c.hang)
				})
			}
		})
	}
}
