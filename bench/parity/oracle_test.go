package parity

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/probewheel/probewheel/bench"
)

// probewheel's contract is bench/oracle: upstream's prober with every run
// started on the next tick of probewheel's wheel. The tests below are the
// independent review's four groups of differences from upstream (2026-11-28),
// each a case where a run on a tick changes what an observer sees: the map
// AddPod finds, the results UpdatePodStatus reads, the metric series. Each
// states what the oracle does, and probewheel must do exactly that: every run,
// every update, every status and every series at every step, with no
// tolerance.

// againstOracle plays p against the oracle (bench.Oracle) and probewheel,
// each in a bubble, and compares them exactly: probewheel's contract.
func againstOracle(t *testing.T, p *plan) *comparison {
	t.Helper()
	obs := make([]*observation, 2)
	for i, impl := range oracleAndProbewheel(t) {
		synctest.Test(t, func(t *testing.T) { obs[i] = play(t, impl, p) })
	}
	return compareExact(p, obs)
}

// oracleAndProbewheel are the two arms the oracle's comparisons play, the
// reference first.
func oracleAndProbewheel(t *testing.T) [2]bench.Impl {
	t.Helper()
	pw, ok := bench.ImplNamed("probewheel")
	if !ok {
		t.Fatal("bench.Impls has no probewheel")
	}
	return [2]bench.Impl{bench.Oracle, pw}
}

// TestOracleSweep plays PROBEWHEEL_ORACLE_SWEEP pseudo-random sequences (the
// differential sweep's, seeded alike) against the oracle and probewheel and
// fails on every difference, at any instant: make oracle-diff.
func TestOracleSweep(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PROBEWHEEL_ORACLE_SWEEP"))
	if n <= 0 {
		t.Skip("set PROBEWHEEL_ORACLE_SWEEP=<sequences> (make oracle-diff)")
	}
	var sum oracleCount
	for i := range n {
		data := randomInput(rand.New(rand.NewPCG(uint64(i), 0x5eed)))
		seq := decode(data)
		c := againstOracle(t, resolve(seq))
		sum.add(c)
		if len(c.mismatches) > 0 {
			t.Errorf("sequence %d (input %x) differs from the oracle first at %v", i, data, c.mismatches[0])
		}
	}
	t.Logf("%d sequences against the oracle: %d differ; compared %d runs, %d result updates, %d UpdatePodStatus results", n, sum.Differ, sum.Runs, sum.Updates, sum.Statuses)
}

// seen is what a scenario observed: the runs of each container, the result
// updates of each probe type, the statuses UpdatePodStatus computed and the
// metric series at each step.
type seen struct {
	runs     map[string][]time.Duration
	updates  []string
	statuses []string
	series   [][]string
}

func (s seen) String() string {
	var b strings.Builder
	names := make([]string, 0, len(s.runs))
	for c := range s.runs {
		names = append(names, c)
	}
	slices.Sort(names)
	for _, c := range names {
		fmt.Fprintf(&b, "runs of %s: %v\n", c, s.runs[c])
	}
	fmt.Fprintf(&b, "updates: %v\nstatuses: %v\n", s.updates, s.statuses)
	for i, st := range s.series {
		fmt.Fprintf(&b, "series at step %d: %v\n", i, st)
	}
	return b.String()
}

// observe collects what seen holds of n, once its pods are gone.
func observe(n *node, containers []string, series [][]string, statuses []string) seen {
	s := seen{runs: map[string][]time.Duration{}, series: series, statuses: statuses}
	for _, c := range containers {
		s.runs[c] = n.runner.startsOf(c)
	}
	for _, kind := range []string{"startup", "readiness", "liveness"} {
		for _, u := range n.updatesOf(kind) {
			s.updates = append(s.updates, fmt.Sprintf("%.4fs %s %s %v", u.at.Seconds(), kind, u.ContainerID.ID, u.Result))
		}
	}
	return s
}

// asTheOracle plays scenario against the oracle and against probewheel, each
// in a bubble of its own, fails where probewheel's observation is not the
// oracle's, and returns the oracle's.
func asTheOracle(t *testing.T, scenario func(n *node, reg func() []string) seen) seen {
	t.Helper()
	arms := oracleAndProbewheel(t)
	got := map[string]seen{}
	for _, impl := range arms {
		synctest.Test(t, func(t *testing.T) {
			reg := registries[impl.Name]
			got[impl.Name] = scenario(newNode(t, impl), func() []string { return series(reg) })
		})
	}
	want, have := got[arms[0].Name], got[arms[1].Name]
	if want.String() != have.String() {
		t.Errorf("probewheel is not the oracle:\n--- oracle:\n%s--- probewheel:\n%s", want, have)
	}
	return want
}

// wantRunsOf fails t where the oracle's runs of container are not want.
func wantRunsOf(t *testing.T, s seen, container string, want []time.Duration) {
	t.Helper()
	if got := s.runs[container]; !slices.Equal(got, want) {
		t.Errorf("the oracle's runs of %s: %v, want %v", container, got, want)
	}
}

// TestOracleAddPodTwiceWhileAWorkerLeaves: a liveness worker with 1 s runs is
// stopped at 10.002 s, during its run at 10.004-11.004 s, and AddPod comes
// twice, with no RemovePod in between. The worker is in the map until that
// run ends: an AddPod before then skips the container, one after it creates a
// worker that probes on the next tick.
func TestOracleAddPodTwiceWhileAWorkerLeaves(t *testing.T) {
	tests := []struct {
		name   string
		second time.Duration
		want   []time.Duration
	}{
		{"both before the run ends", 11002 * time.Millisecond, secs(0.004, 10.004)},
		{"the second after it", 11005 * time.Millisecond, secs(0.004, 10.004, 11.008, 21.008)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := asTheOracle(t, func(n *node, _ func() []string) seen {
				n.afterStart(10 * time.Second)
				n.runner.set("c", time.Second, false)
				at := func(d time.Duration) { time.Sleep(d - time.Since(n.runner.t0)) }
				at(time.Millisecond)
				pod := n.addPod("c", v1.Container{LivenessProbe: execProbe(10)})
				at(10002 * time.Millisecond)
				n.mgr.StopLivenessAndStartup(pod)
				at(10003 * time.Millisecond)
				n.mgr.AddPod(n.ctx, pod)
				at(tc.second)
				n.mgr.AddPod(n.ctx, pod)
				at(25 * time.Second)
				n.close(time.Second)
				return observe(n, []string{"c"}, nil, nil)
			})
			wantRunsOf(t, s, "c", tc.want)
		})
	}
}

// TestOracleAddPodAfterAWorkerExits: with restartPolicy Never, the run due at
// 10.001 s starts at 10.004 s, finds the container terminated, sets Failure
// and exits. An AddPod at 10.002 s finds the worker and skips the container;
// one at 10.006 s creates a worker, whose run on the next tick sets the
// initial result again (Failure: the exit removed the result) and exits. The
// first run set the initial Failure, then Success.
func TestOracleAddPodAfterAWorkerExits(t *testing.T) {
	tests := []struct {
		name        string
		add         time.Duration
		wantRuns    []time.Duration
		wantUpdates int
	}{
		{"before the run", 10002 * time.Millisecond, secs(0.004), 3},
		{"after it", 10006 * time.Millisecond, secs(0.004), 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := asTheOracle(t, func(n *node, _ func() []string) seen {
				n.afterStart(10 * time.Second)
				at := func(d time.Duration) { time.Sleep(d - time.Since(n.runner.t0)) }
				at(time.Millisecond)
				pod := runningPod("c", "c", v1.Container{ReadinessProbe: execProbe(10)})
				pod.Spec.RestartPolicy = v1.RestartPolicyNever
				n.start(pod)
				at(5 * time.Second)
				terminate(n, pod)
				at(tc.add)
				n.mgr.AddPod(n.ctx, pod)
				at(25 * time.Second)
				n.close(0)
				return observe(n, []string{"c"}, nil, nil)
			})
			wantRunsOf(t, s, "c", tc.wantRuns)
			if len(s.updates) != tc.wantUpdates {
				t.Errorf("the oracle's updates: %v, want %d", s.updates, tc.wantUpdates)
			}
		})
	}
}

// terminate makes the pod's container terminated, with exit code 1.
func terminate(n *node, pod *v1.Pod) {
	st, _ := n.status.GetPodStatus(pod.UID)
	st = *st.DeepCopy()
	st.ContainerStatuses[0].State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 1, FinishedAt: metav1.Now()}}
	st.ContainerStatuses[0].Started = ptr.To(false)
	n.status.SetPodStatus(klog.Background(), pod, st)
}

// TestOracleUpdatePodStatusReadsResultsOfRunsOnTheTick: UpdatePodStatus at
// 10.002 s reads the readiness result of before the run due at 10.001 s,
// which starts at 10.004 s. A container not ready yet triggers a run, which
// follows the one on the tick; a ready one that the run turns unready does
// not, and the next run is the grid's.
func TestOracleUpdatePodStatusReadsResultsOfRunsOnTheTick(t *testing.T) {
	tests := []struct {
		name      string
		failFrom  time.Duration // the probe fails from then on
		wantRuns  []time.Duration
		wantReady string
	}{
		{"the run turns it ready", 0, secs(0.004, 10.004, 10.004, 20.004), "false"},
		{"the run turns it unready", 5 * time.Second, secs(0.004, 10.004, 20.004), "true"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := asTheOracle(t, func(n *node, _ func() []string) seen {
				n.afterStart(10 * time.Second)
				at := func(d time.Duration) { time.Sleep(d - time.Since(n.runner.t0)) }
				n.runner.set("c", 0, tc.failFrom == 0)
				at(time.Millisecond)
				// Ready after one success at the first run, or two: then the
				// first run leaves it not ready.
				probe := execProbe(10)
				if tc.failFrom == 0 {
					probe.SuccessThreshold = 2
				}
				pod := n.addPod("c", v1.Container{ReadinessProbe: probe})
				if tc.failFrom > 0 {
					at(tc.failFrom)
					n.runner.set("c", 0, true)
				} else {
					at(5 * time.Second)
					n.runner.set("c", 0, false)
				}
				at(10002 * time.Millisecond)
				st, _ := n.status.GetPodStatus(pod.UID)
				st = *st.DeepCopy()
				n.mgr.UpdatePodStatus(n.ctx, pod, &st)
				ready := fmt.Sprint(st.ContainerStatuses[0].Ready)
				at(25 * time.Second)
				n.close(0)
				return observe(n, []string{"c"}, nil, []string{ready})
			})
			wantRunsOf(t, s, "c", tc.wantRuns)
			if s.statuses[0] != tc.wantReady {
				t.Errorf("the oracle's UpdatePodStatus at 10.002 s: ready %s, want %s", s.statuses[0], tc.wantReady)
			}
		})
	}
}

// TestOracleSeriesOfARecreatedPod: a pod deleted while its 1 s readiness run
// is in flight (0-1 s) and created again under the same name at 0.7 s. The
// new pod's run at 0.7 s observes prober_probe_duration_seconds, which has no
// pod_uid label; the old worker's exit at 1 s, when its run ends, deletes that
// series, and the new pod's next run brings it back.
func TestOracleSeriesOfARecreatedPod(t *testing.T) {
	s := asTheOracle(t, func(n *node, reg func() []string) seen {
		n.afterStart(10 * time.Second)
		at := func(d time.Duration) { time.Sleep(d - time.Since(n.runner.t0)) }
		n.runner.set("web-0-old", time.Second, false)
		old := n.addPodUID("web-0", "web-0-old", v1.Container{ReadinessProbe: execProbe(10)})
		at(500 * time.Millisecond)
		n.mgr.RemovePod(old)
		at(700 * time.Millisecond)
		n.addPodUID("web-0", "web-0-new", v1.Container{ReadinessProbe: execProbe(10)})
		var steps [][]string
		for _, d := range []time.Duration{900 * time.Millisecond, 1002 * time.Millisecond, 10702 * time.Millisecond} {
			at(d)
			steps = append(steps, reg())
		}
		n.close(0)
		return observe(n, []string{"web-0-old", "web-0-new"}, steps, nil)
	})
	durations := func(step []string) int {
		return len(slices.DeleteFunc(slices.Clone(step), func(l string) bool { return !strings.HasPrefix(l, "duration{") }))
	}
	if got := []int{durations(s.series[0]), durations(s.series[1]), durations(s.series[2])}; !slices.Equal(got, []int{1, 0, 1}) {
		t.Errorf("the oracle's duration series at 0.9, 1.002 and 10.702 s: %v, want [1 0 1]\n%s", got, s)
	}
}
