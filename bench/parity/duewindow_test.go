package parity

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// Which runs happen must not depend on how late a run starts. Upstream's
// worker waits in its select; when its ticker fires, the tick is taken at
// that instant and the run is under way, so a trigger or a stop that comes a
// moment later is seen after that run. A scheduler that starts runs later than
// their due time (on a tick, after a wait for a slot) must not let a trigger
// or a stop in that window replace the due run. And a trigger that comes while
// a run is in flight, even at the instant it began, is a value in upstream's
// one-slot channel: the worker runs again when the run ends.
//
// The pods below are added 1 ms into a second, so that every due time falls
// between two of probewheel's 4 ms ticks, and the operations land 1 ms after
// a due time: inside the window between the due time and the tick.

// startTolerance is how much later than upstream's a run of another
// implementation may start: the wheel's tick (doc.go). Which runs happen, and
// in which order, must be the same.
const startTolerance = 4 * time.Millisecond

// sameRuns reports whether got are want's runs, each started at most
// startTolerance later.
func sameRuns(want, got []time.Duration) bool {
	return len(want) == len(got) && !slices.ContainsFunc(want, func(w time.Duration) bool {
		i := slices.Index(want, w)
		return got[i] < w || got[i]-w > startTolerance
	})
}

// wantRuns fails t for each implementation whose runs are not want's, each
// started at most startTolerance later, and where probewheel's are not
// exactly the oracle's.
func wantRuns(t *testing.T, got map[string][]time.Duration, want []time.Duration) {
	t.Helper()
	wantRunsOnTheTick(t, got, want, nil)
}

// wantRunsOnTheTick is wantRuns where a run on the tick changes which runs
// happen: the oracle's and probewheel's runs are exactly onTheTick, unless it
// is nil.
func wantRunsOnTheTick(t *testing.T, got map[string][]time.Duration, want, onTheTick []time.Duration) {
	t.Helper()
	for impl, starts := range got {
		switch {
		case onTheTick != nil && (impl == oracleName || wheelArm(impl)):
			if !slices.Equal(starts, onTheTick) {
				t.Errorf("%s: runs at %s, want %v (the oracle's)", impl, brief(starts), onTheTick)
			}
		case !sameRuns(want, starts):
			t.Errorf("%s: runs at %s, want %v (each at most %v later)", impl, brief(starts), want, startTolerance)
		}
	}
	if pw, or := got["probewheel"], got[oracleName]; or != nil && !slices.Equal(pw, or) {
		t.Errorf("probewheel: runs at %s, the oracle's at %s", brief(pw), brief(or))
	}
}

// TestDueRunIsNotSwallowed: a manual trigger or a stop that comes after a
// worker's due time, before its run begins, is taken after that run.
func TestDueRunIsNotSwallowed(t *testing.T) {
	type observed struct {
		runs    []time.Duration
		updates []string // result updates: "<at> <result>", at to the tolerance's resolution
	}
	tests := []struct {
		name string
		// play adds the pod at 1 ms, makes its target healthy (readiness) or
		// failing (liveness) at 5 s and acts at 10.002 s, 1 ms after the
		// grid point at 10.001 s.
		probe    v1.Container
		act      func(n *node, pod *v1.Pod)
		kind     string
		want     []time.Duration
		wantLast string
	}{{
		name: "UpdatePodStatus triggers a readiness run",
		// successThreshold 2: the due run at 10.001 s and the manual one at
		// 10.002 s make the container ready at 10.002 s; without the due run
		// it would be ready a period later.
		probe: v1.Container{ReadinessProbe: func() *v1.Probe {
			p := execProbe(10)
			p.SuccessThreshold = 2
			return p
		}()},
		act:      func(n *node, pod *v1.Pod) { n.updatePodStatus(pod) },
		kind:     "readiness",
		want:     secs(0.001, 10.001, 10.002, 20.002),
		wantLast: "Success",
	}, {
		name: "StopLivenessAndStartup",
		// failureThreshold 1: the due run at 10.001 s reports the failure,
		// a restart decision, before the worker exits.
		probe: v1.Container{LivenessProbe: func() *v1.Probe {
			p := execProbe(10)
			p.FailureThreshold = 1
			return p
		}()},
		act:      func(n *node, pod *v1.Pod) { n.mgr.StopLivenessAndStartup(pod) },
		kind:     "liveness",
		want:     secs(0.001, 10.001),
		wantLast: "Failure",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sideBySide(t, func(n *node) observed {
				n.afterStart(10 * time.Second)
				readiness := tc.kind == "readiness"
				n.runner.set("c", 0, readiness) // readiness: failing until 5 s; liveness: healthy until 5 s
				time.Sleep(time.Millisecond)
				pod := n.addPod("c", tc.probe)
				time.Sleep(5*time.Second - time.Millisecond)
				n.runner.set("c", 0, !readiness)
				time.Sleep(5*time.Second + 2*time.Millisecond)
				tc.act(n, pod)
				time.Sleep(15 * time.Second)
				n.close(0)
				var ups []string
				for _, u := range n.updatesOf(tc.kind) {
					ups = append(ups, fmt.Sprintf("%v", u.Result))
				}
				return observed{n.runner.startsOf("c"), ups}
			})
			for impl, o := range got {
				if !sameRuns(tc.want, o.runs) {
					t.Errorf("%s: runs at %s, want %v (each at most %v later)", impl, brief(o.runs), tc.want, startTolerance)
				}
				if len(o.updates) == 0 || o.updates[len(o.updates)-1] != tc.wantLast {
					t.Errorf("%s: %s updates %v, want the last to be %s", impl, tc.kind, o.updates, tc.wantLast)
				}
			}
		})
	}
}

// TestReadyAfterTheDueAndTheManualRun: in the trigger case above, the
// container turns ready at the manual run, not a period later.
func TestReadyAfterTheDueAndTheManualRun(t *testing.T) {
	got := sideBySide(t, func(n *node) time.Duration {
		n.afterStart(10 * time.Second)
		n.runner.set("c", 0, true)
		time.Sleep(time.Millisecond)
		p := execProbe(10)
		p.SuccessThreshold = 2
		pod := n.addPod("c", v1.Container{ReadinessProbe: p})
		time.Sleep(5*time.Second - time.Millisecond)
		n.runner.set("c", 0, false)
		time.Sleep(5*time.Second + 2*time.Millisecond)
		n.updatePodStatus(pod)
		time.Sleep(15 * time.Second)
		n.close(0)
		for _, u := range n.updatesOf("readiness") {
			if u.Result == results.Success {
				return u.at
			}
		}
		return -1
	})
	want := 10*time.Second + 2*time.Millisecond
	for impl, at := range got {
		if at < want || at-want > startTolerance {
			t.Errorf("%s: ready at %v, want %v (at most %v later)", impl, at, want, startTolerance)
		}
	}
}

// TestTriggerAtTheFirstRun: UpdatePodStatus right after AddPod, at the same
// instant, is a trigger during the first run however far that run has got:
// upstream runs again when it ends and restarts the period there. Whether
// the first run has begun when the trigger comes (waited: every goroutine of
// the bubble is blocked, the run in its target or done) must not matter.
func TestTriggerAtTheFirstRun(t *testing.T) {
	tests := []struct {
		name   string
		hang   time.Duration
		waited bool
		want   []time.Duration
	}{
		{"a run of 1 s, not begun", time.Second, false, secs(0, 1, 11, 21)},
		{"a run of 1 s, begun", time.Second, true, secs(0, 1, 11, 21)},
		{"a run that takes no time, not begun", 0, false, secs(0, 0, 10, 20)},
		{"a run that takes no time, done", 0, true, secs(0, 0, 10, 20)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sideBySide(t, func(n *node) []time.Duration {
				n.afterStart(10 * time.Second)
				n.runner.set("c", tc.hang, true)
				pod := n.addPod("c", v1.Container{ReadinessProbe: execProbe(10)})
				if tc.waited {
					synctest.Wait()
				}
				n.updatePodStatus(pod)
				time.Sleep(25 * time.Second)
				n.close(tc.hang)
				return n.runner.startsOf("c")
			})
			wantRuns(t, got, tc.want)
		})
	}
}

// TestTriggerAfterALateRun: a run that starts late (here on the tick after
// its due time) ends, for upstream's purposes, at its due time plus its
// length; a trigger that came during it restarts the period there, not at
// the late run's real end. Otherwise each such trigger moves the worker's
// grid by the run's lateness, and the runs after it start later than the
// tick allows.
func TestTriggerAfterALateRun(t *testing.T) {
	got := sideBySide(t, func(n *node) []time.Duration {
		n.afterStart(10 * time.Second)
		n.runner.set("c", time.Millisecond, true) // every run takes 1 ms and fails
		time.Sleep(time.Millisecond)
		pod := n.addPod("c", v1.Container{ReadinessProbe: execProbe(10)})
		// 10.0015 s: during upstream's run at 10.001 s, before probewheel's
		// tick at 10.004 s.
		time.Sleep(10*time.Second + 500*time.Microsecond)
		n.updatePodStatus(pod)
		time.Sleep(25 * time.Second)
		n.close(time.Millisecond)
		return n.runner.startsOf("c")
	})
	want := secs(0.001, 10.001, 10.002, 20.002, 30.002)
	// On the tick, the trigger comes before the run at 10.004 s and is taken
	// when it ends, 10.005 s, on the tick after.
	wantRunsOnTheTick(t, got, want, secs(0.004, 10.004, 10.008, 20.008, 30.008))
}

// TestAddPodAfterAStop: an AddPod a moment after a stop finds upstream's
// worker gone if it had exited by then, and creates a new one, which probes
// at once; it skips the container if the worker was still in a run. The
// stop comes while the worker waits (5.001 s), or after its due time
// (10.001 s) before probewheel's tick (10.004 s), where only the length of
// upstream's run tells whether the worker had exited.
func TestAddPodAfterAStop(t *testing.T) {
	tests := []struct {
		name      string
		hang      time.Duration
		stopAt    time.Duration
		want      []time.Duration
		onTheTick []time.Duration // the oracle's, where it is not want on the tick
	}{
		{"the worker waits", 0, 5001 * time.Millisecond, secs(0.001, 5.00101, 15.00101), nil},
		// On the tick, the run has not started: the AddPod finds the worker.
		{"in a due window, the run is over", 0, 10002 * time.Millisecond, secs(0.001, 10.001, 10.00201, 20.00201), secs(0.004, 10.004)},
		{"in a due window, the run goes on", time.Second, 10002 * time.Millisecond, secs(0.001, 10.001), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sideBySide(t, func(n *node) []time.Duration {
				n.afterStart(10 * time.Second)
				n.runner.set("c", tc.hang, false)
				time.Sleep(time.Millisecond)
				pod := n.addPod("c", v1.Container{LivenessProbe: execProbe(10)})
				time.Sleep(tc.stopAt - time.Millisecond)
				n.mgr.StopLivenessAndStartup(pod)
				time.Sleep(10 * time.Microsecond)
				n.mgr.AddPod(n.ctx, pod)
				time.Sleep(12 * time.Second)
				n.close(tc.hang)
				return n.runner.startsOf("c")
			})
			wantRunsOnTheTick(t, got, tc.want, tc.onTheTick)
		})
	}
}

// TestAddPodsWhileAWorkerLeaves: AddPod, RemovePod, AddPod after a stop at
// 10.002 s, during the stopped worker's last run (10.001-11.001 s upstream,
// 10.004-11.004 s on probewheel's tick). Upstream's worker is in the map
// until its run ends: an AddPod before that skips the container, a
// RemovePod finds the leaving worker or nothing, and an AddPod after it
// creates a worker.
func TestAddPodsWhileAWorkerLeaves(t *testing.T) {
	tests := []struct {
		name                  string
		add, remove, addAgain time.Duration
		want                  []time.Duration
		onTheTick             []time.Duration // the oracle's, where it is not want on the tick
	}{
		{"the second AddPod after the exit", 10003 * time.Millisecond, 10503 * time.Millisecond, 11503 * time.Millisecond,
			secs(0.001, 10.001, 11.503, 21.503), nil},
		{"both AddPods before the exit", 10003 * time.Millisecond, 10503 * time.Millisecond, 10903 * time.Millisecond,
			secs(0.001, 10.001), nil},
		// On the tick, the run ends at 11.004 s: the AddPod finds the worker.
		{"the second AddPod within a tick of the exit", 10003 * time.Millisecond, 11002 * time.Millisecond, 11003 * time.Millisecond,
			secs(0.001, 10.001, 11.003, 21.003), secs(0.004, 10.004)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sideBySide(t, func(n *node) []time.Duration {
				n.afterStart(10 * time.Second)
				n.runner.set("c", time.Second, false)
				start := time.Now()
				at := func(d time.Duration) { time.Sleep(d - time.Since(start)) }
				at(time.Millisecond)
				pod := n.addPod("c", v1.Container{LivenessProbe: execProbe(10)})
				at(10002 * time.Millisecond)
				n.mgr.StopLivenessAndStartup(pod)
				at(tc.add)
				n.mgr.AddPod(n.ctx, pod)
				at(tc.remove)
				n.mgr.RemovePod(pod)
				at(tc.addAgain)
				n.mgr.AddPod(n.ctx, pod)
				at(tc.addAgain + 12*time.Second)
				n.close(time.Second)
				return n.runner.startsOf("c")
			})
			wantRunsOnTheTick(t, got, tc.want, tc.onTheTick)
		})
	}
}
