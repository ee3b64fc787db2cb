package parity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/kubelet/status"

	"github.com/probewheel/probewheel/bench"
	probewheel "github.com/probewheel/probewheel/pkg/kubelet/prober"
)

// The contract, extended (issue 78, item 9). Where the exec limit binds,
// probewheel holds back exec runs that the oracle would send to the runtime
// at once, so the two would see different runtimes. probewheel is then the
// oracle on a runtime that starts each held exec later by its wait and does
// not charge the wait to the timeout: the oracle's runner, on each call,
// sleeps the wait probewheel's run of that probe had (its replayed wait) and
// only then enters the runtime, with the probe's whole timeout. A held exec
// of a worker that is stopped, before or while it waits, never starts
// (exec_limit.go's abandon and errExecStopped): there the runtime fails the
// oracle's call, at the stop or at once, with a probe error, which upstream
// throws away as probewheel drops the run (and so its retries, unless
// probewheel's retry reached the runtime at that instant). Which worker makes
// a call the oracle's runner knows from the context of the AddPod that
// created it (upstream's worker passes it on): every stop of the probe since
// that AddPod reached that worker.
//
// TestOracleLimit, TestOracleLimitSweep (PROBEWHEEL_ORACLE_LIMIT_SWEEP=<n>,
// from sequence PROBEWHEEL_ORACLE_LIMIT_SWEEP_FROM) play pseudo-random
// overloads of a model container runtime (an exec takes its command's own
// time plus a slope for every exec in flight past the runtime's capacity;
// one that would take longer than its timeout, or hangs, returns the CRI's
// "command timed out" at its timeout) against probewheel first, recording the
// instant each probe's k-th command reached the runtime and the exec limit's
// wait histogram at that instant; then against the oracle, whose runner
// replays those instants by probe and run index (probewheel grants the runs
// of different probes in its own order, by pod share, which no instant of
// the oracle's decides). Both arms then see the same commands in the model
// runtime at the same instants, and every run, every result update, every
// status UpdatePodStatus computes and every metric series at every op must
// be equal, with no tolerance (compareExact). The replay itself is held to
// probewheel's own account: at every instant, the waits the oracle replayed
// are the ones the limit observed in prober_exec_limit_wait_seconds (to a
// microsecond, the float sum's rounding), so a run that probewheel started
// late for any other reason than the limit is not passed off as a wait
// (TestOracleLimitCatches). PROBEWHEEL_ORACLE_LIMIT_DEBUG=<pod/container/kind>
// prints that probe's replay and both arms' runs and updates.
//
// Timing discipline, beyond sequence_test.go's: every op lands off a tick, at
// a multiple of 5 µs, at an offset within its second no other op has. The
// model's exec times are a whole number of microseconds plus a nanosecond,
// or a whole number of seconds (a timeout), so no run ends, and no slot of
// the limit is granted, at an op's instant: those instants are ticks, or a
// chain of fewer than a thousand execs' nanoseconds past one. The in-flight
// count an exec sees is of the execs that started before its instant,
// whatever order the goroutines of one instant run in.
//
// probewheel's play is not the same from run to run where the limit binds:
// of the runs that arrive at the limit at one instant (a tick's), which wait
// and which get a slot depends on the order their goroutines run in, and so
// does what the window's verdict counts. The replay takes whatever it did; a
// sequence's plan is its seed's, and the counts the sweep logs vary a little.

// limitSweepEnv is how many sequences TestOracleLimitSweep plays.
const limitSweepEnv = "PROBEWHEEL_ORACLE_LIMIT_SWEEP"

// limitPlan is a plan that overloads the model runtime, with what the model
// and the replay need of it.
type limitPlan struct {
	*plan
	capacity int                      // execs in flight the runtime takes before it slows
	slope    time.Duration            // what each exec past capacity adds to every new exec
	own      map[pkey]time.Duration   // each probe's command's own time
	timeout  map[pkey]time.Duration   // each probe's timeoutSeconds
	stops    map[pkey][]time.Duration // the instants ops stop the probe's worker, ascending
}

// maxLimitOps keeps every op's offset (sequence.offset) within its second.
const maxLimitOps = 120

// randomLimitPlan draws an overload for a node of floor CPUs (the limit's
// floor): a few pods whose probes learn their baselines on a runtime that
// keeps up, then pods added until their execs need some times the runtime's
// capacity, then status syncs, restarts, targets that fail, hang, error or
// panic, pods removed and added again, then most pods removed (one by one,
// or by CleanupPods) and a quiet tail in which the limit is raised or lifted.
func randomLimitPlan(r *rand.Rand, floor int) *limitPlan {
	lp := &limitPlan{
		capacity: floor * (1 + r.IntN(3)),
		slope:    time.Duration(40+r.IntN(160)) * time.Millisecond,
		own:      map[pkey]time.Duration{},
		timeout:  map[pkey]time.Duration{},
		stops:    map[pkey][]time.Duration{},
	}
	var (
		ops     []op
		steps   []step
		pods    []*fuzzPod
		live    []*fuzzPod // added and not removed since
		removed []*fuzzPod
		demand  float64 // what the live pods' execs need of the runtime, in execs in flight
	)
	gens := map[string]int{}
	emit := func(delay int, st step) {
		st.op.delay, st.op.place = delay, offTickPlace
		ops = append(ops, st.op)
		steps = append(steps, st)
	}
	podDemand := func(p *fuzzPod) (d float64) {
		for _, k := range p.keys() {
			d += lp.own[k].Seconds() / p.period(k).Seconds()
		}
		return d
	}
	newPod := func() *fuzzPod {
		p := &fuzzPod{uid: types.UID(fmt.Sprintf("p%d", len(pods)))}
		for c := range 1 + r.IntN(3) {
			cs := ctrSpec{sidecar: c > 0 && r.IntN(4) == 0}
			for !cs.has(startupKind) && !cs.has(readinessKind) && !cs.has(livenessKind) {
				for k, chance := range [numKinds]int{25, 70, 60} {
					if r.IntN(100) >= chance {
						continue
					}
					period := 1 + r.IntN(10)
					if r.IntN(2) == 0 {
						period = 1 + r.IntN(3) // busy probes: the load
					}
					pp := probeParams{period: int32(period), success: 1, failure: 1 + int32(r.IntN(3)), delay: int32(r.IntN(3))}
					if kind(k) == readinessKind {
						pp.success = 1 + int32(r.IntN(3))
					}
					cs.probes[k] = pp
				}
			}
			p.spec.ctrs = append(p.spec.ctrs, cs)
		}
		for _, k := range p.keys() {
			lp.own[k] = time.Duration(20+r.IntN(300)) * time.Millisecond
			lp.timeout[k] = time.Duration(1+r.IntN(3)) * time.Second
		}
		pods = append(pods, p)
		return p
	}
	add := func(delay int, p *fuzzPod) {
		if i := slices.Index(removed, p); i >= 0 {
			removed = slices.Delete(removed, i, i+1)
		}
		if !slices.Contains(live, p) {
			live = append(live, p)
			demand += podDemand(p)
		}
		emit(delay, step{op: op{kind: opAdd}, pod: p})
	}
	remove := func(delay int, p *fuzzPod) {
		live = slices.DeleteFunc(live, func(q *fuzzPod) bool { return q == p })
		removed = append(removed, p)
		demand -= podDemand(p)
		emit(delay, step{op: op{kind: opRemove}, pod: p, stops: p.keys()})
	}
	pick := func(ps []*fuzzPod) *fuzzPod { return ps[r.IntN(len(ps))] }
	// other is one op of the overload or the tail on a live pod.
	other := func(delay int) {
		p := pick(live)
		switch x := r.IntN(100); {
		case x < 35:
			emit(delay, step{op: op{kind: opUpdate}, pod: p})
		case x < 60:
			c := r.IntN(len(p.spec.ctrs))
			m := modeOK
			switch y := r.IntN(100); {
			case y < 15:
				m = modeFail
			case y < 30:
				m = modeTimeout
			case y < 40:
				m = modeError
			case y < 45:
				m = modePanic
			}
			hang := 0
			if r.IntN(5) == 0 {
				hang = 1
			}
			emit(delay, step{op: op{kind: opTarget, ctr: c, probe: kind(r.IntN(int(numKinds))), mode: m, hang: hang}, pod: p})
		case x < 75:
			c := r.IntN(len(p.spec.ctrs))
			name := string(p.uid) + "_" + ctrName(c, p.spec.ctrs[c])
			gens[name]++
			emit(delay, step{op: op{kind: opRestart, ctr: c}, pod: p, gen: gens[name]})
		case x < 82:
			emit(delay, step{op: op{kind: opStopLS}, pod: p, stops: slices.DeleteFunc(p.keys(), func(k pkey) bool {
				c, _ := p.ctr(k.ctr)
				return c.sidecar || k.kind == readinessKind
			})})
		case x < 88 && len(live) > 2:
			remove(delay, p)
		case x < 94 && len(removed) > 0:
			add(delay, pick(removed))
		default:
			add(delay, p) // AddPod again: its workers that have exited start anew
		}
	}

	// Calm: baselines on a runtime that keeps up.
	for range 2 + r.IntN(3) {
		add(1+r.IntN(2), newPod())
	}
	// The ramp: pods until their execs need 1.5-4 times the capacity.
	want := float64(lp.capacity) * (1.5 + 2.5*r.Float64())
	for delay := 3 + r.IntN(4); demand < want && len(ops) < maxLimitOps/2; delay = r.IntN(2) {
		add(delay, newPod())
	}
	// The overload.
	for overload := 15 + r.IntN(20); overload > 0 && len(ops) < maxLimitOps-30; {
		delay := r.IntN(3)
		overload -= delay
		other(delay)
	}
	// Relief: most pods go.
	keep := max(1, len(live)/(3+r.IntN(3)))
	if r.IntN(3) == 0 || len(ops)+len(live)-keep > maxLimitOps-10 {
		desired := slices.Clone(live[:keep])
		var stops []pkey
		for _, p := range pods {
			if !slices.Contains(desired, p) {
				stops = append(stops, p.keys()...)
			}
		}
		for _, p := range live[keep:] {
			demand -= podDemand(p)
			removed = append(removed, p)
		}
		live = slices.Clone(desired) // remove edits live in place
		emit(1+r.IntN(3), step{op: op{kind: opCleanup}, desired: desired, stops: stops})
	} else {
		for len(live) > keep {
			remove(r.IntN(2), pick(live))
		}
	}
	// The tail: the limit is raised, or lifted after execLiftAfter (30 s).
	for tail := 10 + r.IntN(30); tail > 0 && len(ops) < maxLimitOps; {
		delay := 2 + r.IntN(5)
		tail -= delay
		other(delay)
	}

	if len(ops) > maxLimitOps {
		panic(fmt.Sprintf("parity: a limit plan of %d ops", len(ops)))
	}
	seq := sequence{ops}
	for i := range steps {
		steps[i].at = seq.at(i)
		for _, k := range steps[i].stops {
			lp.stops[k] = append(lp.stops[k], steps[i].at)
		}
	}
	lp.plan = &plan{seq: seq, steps: steps, pods: pods}
	return lp
}

// keyOfCall is the probe a runner call is of.
func keyOfCall(id string, cmd []string) pkey {
	uid, ctr, _ := parseContainerID(id)
	for k := range numKinds {
		if strings.Join(cmd, " ") == k.String() {
			return pkey{uid, ctr, k}
		}
	}
	panic(fmt.Sprintf("parity: a call of %s with command %v", id, cmd))
}

// modelRuntime is one arm's container runtime: an exec takes its command's
// own time (and its target's hang), plus the plan's slope for every exec in
// flight past its capacity, counting itself and the execs that started
// before its instant; one that would take longer than its timeout, or hangs,
// returns "command timed out" at its timeout. Guarded by the runner's mu.
type modelRuntime struct {
	lp    *limitPlan
	execs []modelExec // in flight
}

type modelExec struct{ start, end time.Time }

func (m *modelRuntime) behave(id string, cmd []string, target targetState) behaviour {
	now := time.Now()
	k := keyOfCall(id, cmd)
	n := 1
	m.execs = slices.DeleteFunc(m.execs, func(e modelExec) bool { return !e.end.After(now) })
	for _, e := range m.execs {
		if e.start.Before(now) {
			n++
		}
	}
	took := m.lp.own[k] + target.hang + m.lp.slope*time.Duration(max(0, n-m.lp.capacity))
	took = took.Truncate(time.Microsecond) + time.Nanosecond
	b := behaviour{hang: took}
	switch timeout := m.lp.timeout[k]; {
	case target.mode == modeTimeout || took > timeout:
		b = behaviour{hang: timeout, err: errHung}
	case target.mode == modeFail:
		b.err = bench.ExitFailure
	case target.mode == modeError:
		b.err = errProbe
	case target.mode == modePanic:
		b.panics = true
	}
	m.execs = append(m.execs, modelExec{now, now.Add(b.hang)})
	return b
}

// The exec limit's metrics, registered: component-base metrics are no-ops
// until they are.
var _ = func() metrics.KubeRegistry {
	r := metrics.NewKubeRegistry()
	r.MustRegister(probewheel.ProberExecLimitWait, probewheel.ProberExecLimitCuts)
	return r
}()

// limitCuts is prober_exec_limit_cuts_total now.
func limitCuts(t *testing.T) float64 {
	v, err := testutil.GetCounterMetricValue(probewheel.ProberExecLimitCuts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waitHistogram is prober_exec_limit_wait_seconds' sum and count now.
func waitHistogram() (sum float64, count uint64) {
	h := probewheel.ProberExecLimitWait.ObserverMetric
	sum, err := testutil.GetHistogramMetricValue(h)
	if err != nil {
		panic(err)
	}
	count, err = testutil.GetHistogramMetricCount(h)
	if err != nil {
		panic(err)
	}
	return sum, count
}

// waitReading is the wait histogram as a command reached probewheel's runtime.
type waitReading struct {
	at    time.Duration
	sum   float64
	count uint64
}

// recorder wraps probewheel's runner: the instant each probe's commands
// reach the runtime, and the wait histogram then.
type recorder struct {
	inner   kubecontainer.CommandRunner
	lp      *limitPlan
	t0      time.Time
	mu      sync.Mutex
	calls   map[pkey][]time.Duration
	waits   []waitReading
	base    waitReading // before the play
	charged []string    // calls whose timeout is not the probe's
	// mutant, if set, stands between probewheel and the recorder
	// (TestOracleLimitCatches): it may sleep, and returns the timeout to
	// pass on.
	mutant func(k pkey, call int, timeout time.Duration) time.Duration
	n      int // calls so far
}

func (r *recorder) RunInContainer(ctx context.Context, id kubecontainer.ContainerID, cmd []string, timeout time.Duration) ([]byte, error) {
	k := keyOfCall(id.ID, cmd)
	if r.mutant != nil {
		r.mu.Lock()
		r.n++
		n := r.n
		r.mu.Unlock()
		timeout = r.mutant(k, n, timeout)
	}
	sum, count := waitHistogram()
	r.mu.Lock()
	at := time.Since(r.t0)
	r.calls[k] = append(r.calls[k], at)
	r.waits = append(r.waits, waitReading{at, sum, count})
	if timeout != r.lp.timeout[k] {
		r.charged = append(r.charged, fmt.Sprintf("%v at %.6fs: timeout %v, the probe's %v", k, at.Seconds(), timeout, r.lp.timeout[k]))
	}
	r.mu.Unlock()
	return r.inner.RunInContainer(ctx, id, cmd, timeout)
}

// errAbandoned is the runtime's answer to a call whose run probewheel
// dropped: its worker was stopped before the run got a slot. Any error but an
// exit code or a timeout is a probe error: upstream retries it, then throws
// the run away.
var errAbandoned = errors.New("parity: the probe's worker was stopped while its run was held")

// replayer wraps the oracle's runner: each call sleeps its replayed wait,
// then enters the runtime; or, in a run that probewheel abandoned, fails.
type replayer struct {
	inner kubecontainer.CommandRunner
	lp    *limitPlan
	pw    map[pkey][]time.Duration // probewheel's calls
	end   time.Duration
	t0    time.Time

	// stopped[S] is closed once the op at S (or, at end, the player) has
	// stopped its workers: a held call abandoned at S returns after it, as
	// probewheel's run is dropped when the stop reaches it.
	stopped map[time.Duration]chan struct{}

	noWait bool   // a mutant oracle that replays no wait (TestOracleLimitCatches)
	debug  string // PROBEWHEEL_ORACLE_LIMIT_DEBUG

	mu       sync.Mutex
	keys     map[pkey]*replayKey
	problems []string
	replayed map[time.Duration]replayedAt // by the instant the command entered the runtime, before end
	stat     limitStat
}

type replayKey struct {
	next int // probewheel's next call
}

// addedAt is the context key of the instant of the AddPod whose worker makes
// a call: upstream's worker passes AddPod's context to the runner.
type addedAt struct{}

type replayedAt struct {
	wait  time.Duration
	calls int
}

// limitStat is what the sweep reports.
type limitStat struct {
	Sequences, Bound, Differ       int
	Runs, Updates, Statuses, Steps int
	Held, Abandoned                int
	Longest                        time.Duration
	Cuts                           float64
	OracleCalls, Pods              int
}

func (s *limitStat) add(o limitStat) {
	s.Sequences += o.Sequences
	s.Bound += o.Bound
	s.Differ += o.Differ
	s.Runs += o.Runs
	s.Updates += o.Updates
	s.Statuses += o.Statuses
	s.Steps += o.Steps
	s.Held += o.Held
	s.Abandoned += o.Abandoned
	s.Longest = max(s.Longest, o.Longest)
	s.Cuts += o.Cuts
	s.OracleCalls += o.OracleCalls
	s.Pods += o.Pods
}

// stopIn is the first instant in (from, to] at which an op (or the end's
// CleanupPods) stops k's worker.
func (r *replayer) stopIn(k pkey, from, to time.Duration) (time.Duration, bool) {
	for _, s := range r.lp.stops[k] {
		if from < s && s <= to {
			return s, true
		}
	}
	return r.end, from < r.end && r.end <= to
}

func (r *replayer) RunInContainer(ctx context.Context, id kubecontainer.ContainerID, cmd []string, timeout time.Duration) ([]byte, error) {
	k := keyOfCall(id.ID, cmd)
	added, _ := ctx.Value(addedAt{}).(time.Duration)
	r.mu.Lock()
	now := time.Since(r.t0)
	st := r.keys[k]
	if st == nil {
		st = &replayKey{}
		r.keys[k] = st
	}
	pw := r.pw[k]
	var wait time.Duration
	abandon := false
	if now < r.end {
		// The worker making the call was created by the AddPod at added,
		// and is the probe's only one until it exits: every stop of the
		// probe since reached it.
		_, stopped := r.stopIn(k, added, now)
		stop, stopAhead := r.stopIn(k, now, math.MaxInt64)
		switch {
		case stopped: // probewheel starts no held run of a stopped worker
			if st.next < len(pw) && pw[st.next] == now {
				st.next++
			} else {
				abandon = true
			}
		case st.next < len(pw) && pw[st.next] < now:
			r.problems = append(r.problems, fmt.Sprintf("%v: the oracle's run %d at %.6fs: probewheel's started at %.6fs, before it", k, st.next, now.Seconds(), pw[st.next].Seconds()))
			st.next++
		case st.next < len(pw) && (!stopAhead || pw[st.next] < stop):
			wait = pw[st.next] - now
			st.next++
		case stopAhead: // held until its worker stopped: dropped then
			wait, abandon = stop-now, true
		default:
			r.problems = append(r.problems, fmt.Sprintf("%v: the oracle's run %d at %.6fs: probewheel made no such run", k, st.next, now.Seconds()))
		}
		at := now + wait
		switch {
		case abandon && at < r.end:
			r.stat.Abandoned++
		case !abandon && at < r.end:
			ra := r.replayed[at]
			ra.wait += wait
			ra.calls++
			r.replayed[at] = ra
			r.stat.OracleCalls++
			if wait > 0 {
				r.stat.Held++
				r.stat.Longest = max(r.stat.Longest, wait)
			}
		}
	}
	if r.debug != "" && k.String() == r.debug {
		fmt.Printf("replay %v at %.6fs: added %.6fs, next %d of %v, wait %v, abandon %v\n", k, now.Seconds(), added.Seconds(), st.next, pw, wait, abandon)
	}
	r.mu.Unlock()

	if r.noWait {
		wait, abandon = 0, false
	}
	time.Sleep(wait)
	if abandon {
		if wait > 0 {
			<-r.stopped[now+wait]
		}
		return nil, errAbandoned
	}
	return r.inner.RunInContainer(ctx, id, cmd, timeout)
}

// checkWaits holds the replay to probewheel's account of its waits: at each
// instant before end at which commands reached probewheel's runtime, as many
// observations of the wait histogram as commands, and the waits the oracle
// replayed at that instant summing to what it observed. It also finds the
// calls of probewheel the oracle did not replay.
func (r *replayer) checkWaits(rec *recorder) {
	byAt := map[time.Duration]waitReading{}
	var ats []time.Duration
	for _, w := range rec.waits {
		if w.at >= r.end {
			continue
		}
		if old, ok := byAt[w.at]; !ok {
			ats = append(ats, w.at)
			byAt[w.at] = w
		} else {
			byAt[w.at] = waitReading{w.at, max(old.sum, w.sum), max(old.count, w.count)}
		}
	}
	slices.Sort(ats)
	calls := map[time.Duration]int{}
	for _, cs := range rec.calls {
		for _, at := range cs {
			calls[at]++
		}
	}
	prev := rec.base
	for _, at := range ats {
		w := byAt[at]
		observed, n := time.Duration(math.Round((w.sum-prev.sum)*1e9)), int(w.count-prev.count)
		ra := r.replayed[at]
		if n != calls[at] || ra.calls != n || (observed-ra.wait).Abs() > time.Microsecond {
			r.problems = append(r.problems, fmt.Sprintf("at %.6fs: %d commands reached probewheel's runtime, the limit observed %d waits summing to %v; the oracle replayed %d summing to %v",
				at.Seconds(), calls[at], n, observed, ra.calls, ra.wait))
		}
		prev = w
	}
	for at, ra := range r.replayed {
		if _, ok := byAt[at]; !ok {
			r.problems = append(r.problems, fmt.Sprintf("at %.6fs: the oracle replayed %d commands, probewheel ran none", at.Seconds(), ra.calls))
		}
	}
	for k, pw := range r.pw {
		st := r.keys[k]
		next := 0
		if st != nil {
			next = st.next
		}
		for _, at := range pw[next:] {
			if at < r.end {
				r.problems = append(r.problems, fmt.Sprintf("%v: probewheel's run at %.6fs has no run of the oracle", k, at.Seconds()))
			}
		}
	}
}

// limitOutcome is one sequence's comparison.
type limitOutcome struct {
	c        *comparison
	problems []string // of the replay and the series
	stat     limitStat
}

// againstOracleLimited plays lp against probewheel, then against the oracle
// with probewheel's waits replayed, and compares them exactly.
func againstOracleLimited(t *testing.T, lp *limitPlan) limitOutcome {
	return againstOracleMutated(t, lp, nil, false)
}

// againstOracleMutated is againstOracleLimited with a mutant between
// probewheel and the runtime, or an oracle that replays no wait.
func againstOracleMutated(t *testing.T, lp *limitPlan, mutant func(k pkey, call int, timeout time.Duration) time.Duration, noWait bool) limitOutcome {
	t.Helper()
	pw, ok := bench.ImplNamed("probewheel")
	if !ok {
		t.Fatal("bench.Impls has no probewheel")
	}
	out := limitOutcome{stat: limitStat{Sequences: 1, Pods: len(lp.pods)}}
	obs := make([]*observation, 2)
	series := make([][][]string, 2)
	hooks := func(arm int, reg metrics.KubeRegistry, onStart func(n *node), stopped map[time.Duration]chan struct{}) playHooks {
		m := &modelRuntime{lp: lp}
		return playHooks{
			behave: m.behave,
			pod: func(fp *fuzzPod, pod *v1.Pod) {
				for _, c := range slices.Concat(pod.Spec.Containers, pod.Spec.InitContainers) {
					for k, p := range map[kind]*v1.Probe{startupKind: c.StartupProbe, readinessKind: c.ReadinessProbe, livenessKind: c.LivenessProbe} {
						if p != nil {
							p.TimeoutSeconds = int32(lp.timeout[pkey{fp.uid, c.Name, k}] / time.Second)
						}
					}
				}
			},
			step: func(i int, n *node) {
				if i == 0 {
					onStart(n)
				}
				synctest.Wait()
				series[arm] = append(series[arm], seriesOf(reg))
				if i == len(lp.steps) && stopped != nil {
					close(stopped[lp.seq.end()])
				}
			},
			addCtx: func(i int, ctx context.Context) context.Context {
				return context.WithValue(ctx, addedAt{}, lp.steps[i].at)
			},
			after: func(i int, n *node) {
				if ch := stopped[lp.steps[i].at]; ch != nil {
					close(ch)
				}
			},
		}
	}

	// probewheel, recording.
	rec := &recorder{lp: lp, calls: map[pkey][]time.Duration{}, mutant: mutant}
	cuts := limitCuts(t)
	synctest.Test(t, func(t *testing.T) {
		impl := wrapRunner(pw, func(c kubecontainer.CommandRunner) kubecontainer.CommandRunner { rec.inner = c; return rec })
		obs[1] = playWith(t, impl, lp.plan, hooks(1, registries[pw.Name], func(n *node) {
			rec.mu.Lock()
			rec.t0 = n.runner.t0
			rec.base.sum, rec.base.count = waitHistogram()
			rec.mu.Unlock()
		}, nil))
	})
	out.stat.Cuts = limitCuts(t) - cuts

	// The oracle, replaying.
	rp := &replayer{lp: lp, pw: rec.calls, end: lp.seq.end(), keys: map[pkey]*replayKey{}, replayed: map[time.Duration]replayedAt{}, noWait: noWait,
		debug: os.Getenv("PROBEWHEEL_ORACLE_LIMIT_DEBUG")}
	synctest.Test(t, func(t *testing.T) {
		// Made in the bubble, so that a call blocked on one is durably blocked.
		rp.stopped = map[time.Duration]chan struct{}{lp.seq.end(): make(chan struct{})}
		for _, st := range lp.steps {
			if len(st.stops) > 0 {
				rp.stopped[st.at] = make(chan struct{})
			}
		}
		impl := wrapRunner(bench.Oracle, func(c kubecontainer.CommandRunner) kubecontainer.CommandRunner { rp.inner = c; return rp })
		obs[0] = playWith(t, impl, lp.plan, hooks(0, registries[bench.Oracle.Name], func(n *node) {
			rp.mu.Lock()
			rp.t0 = n.runner.t0
			rp.mu.Unlock()
		}, rp.stopped))
	})
	rp.checkWaits(rec)
	out.problems = append(rp.problems, rec.charged...)
	for i := range series[0] {
		if i >= len(series[1]) || !slices.Equal(series[0][i], series[1][i]) {
			var at time.Duration
			if i < len(lp.steps) {
				at = lp.steps[i].at
			} else {
				at = lp.seq.end()
			}
			var got []string
			if i < len(series[1]) {
				got = series[1][i]
			}
			out.problems = append(out.problems, fmt.Sprintf("metric series at step %d (%.6fs) differ:\n    oracle only: %q\n    probewheel only: %q", i, at.Seconds(), without(series[0][i], got), without(got, series[0][i])))
			break
		}
	}
	out.c = compareExact(lp.plan, obs)
	if key := rp.debug; key != "" {
		for _, o := range obs {
			for k, cs := range o.calls {
				if k.String() == key {
					for _, c := range cs {
						t.Logf("%s: call %.6fs-%.6fs %v panics %v", o.impl, c.start.Seconds(), c.end.Seconds(), c.err, c.panics)
					}
				}
			}
			for k, es := range o.updates {
				if k.String() == key {
					for _, e := range es {
						t.Logf("%s: update %v", o.impl, e)
					}
				}
			}
		}
	}
	out.stat.Runs, out.stat.Updates, out.stat.Statuses = out.c.runs, out.c.updates, out.c.statuses
	out.stat.Steps = len(series[0])
	out.stat.Held, out.stat.Abandoned, out.stat.Longest, out.stat.OracleCalls = rp.stat.Held, rp.stat.Abandoned, rp.stat.Longest, rp.stat.OracleCalls
	if out.stat.Cuts > 0 && out.stat.Held > 0 {
		out.stat.Bound = 1
	}
	if len(out.c.mismatches)+len(out.problems) > 0 {
		out.stat.Differ = 1
	}
	return out
}

// seriesOf is series(reg), or none for an implementation that has no registry.
func seriesOf(reg metrics.KubeRegistry) []string {
	if reg == nil {
		return nil
	}
	return series(reg)
}

// wrapRunner is impl with its exec runner wrapped.
func wrapRunner(impl bench.Impl, wrap func(kubecontainer.CommandRunner) kubecontainer.CommandRunner) bench.Impl {
	return bench.Impl{Name: impl.Name, New: func(s status.Manager, l, r, st results.Manager, c kubecontainer.CommandRunner, rec record.EventRecorderLogger) bench.Manager {
		return impl.New(s, l, r, st, wrap(c), rec)
	}}
}

// limitSeed is the sweep's i-th plan, for a node of the machine's CPUs.
func limitSeed(i int) *limitPlan {
	return randomLimitPlan(rand.New(rand.NewPCG(uint64(i), 0x11a17)), runtime.NumCPU())
}

// runLimitSweep plays n sequences from first and fails on every difference.
func runLimitSweep(t *testing.T, first, n int) limitStat {
	var sum limitStat
	for i := first; i < first+n; i++ {
		lp := limitSeed(i)
		out := againstOracleLimited(t, lp)
		sum.add(out.stat)
		if out.stat.Differ > 0 {
			var b strings.Builder
			for _, m := range out.c.mismatches {
				fmt.Fprintf(&b, "\n  %v", m)
			}
			for _, p := range out.problems {
				fmt.Fprintf(&b, "\n  %s", p)
			}
			t.Errorf("sequence %d differs from the oracle with its waits replayed:%s\nsequence:\n%v", i, b.String(), lp)
		}
	}
	return sum
}

func (s limitStat) String() string {
	return fmt.Sprintf("%d sequences against the oracle with probewheel's waits replayed (floor %d, %d pods): %d differ; the limit bound in %d (%.0f cuts), %d of %d commands held (longest wait %v), %d calls of the oracle failed as runs probewheel dropped; compared %d runs, %d result updates, %d UpdatePodStatus results, the metric series at %d steps",
		s.Sequences, runtime.NumCPU(), s.Pods, s.Differ, s.Bound, s.Cuts, s.Held, s.OracleCalls, s.Longest, s.Abandoned, s.Runs, s.Updates, s.Statuses, s.Steps)
}

// TestOracleLimit is the always-on part of the sweep: a few sequences, in
// each of which the limit must bind.
func TestOracleLimit(t *testing.T) {
	skipUnderRace(t)
	const n = 3
	sum := runLimitSweep(t, 0, n)
	t.Log(sum)
	if sum.Bound != n {
		t.Errorf("the limit bound in %d of %d sequences", sum.Bound, n)
	}
}

// TestOracleLimitCatches: the comparison is not blind. A run that reaches
// probewheel's runtime a tick later than the limit let it go (a scheduler
// that starts it late) is not passed off as a wait; a wait charged to the
// timeout is seen; an oracle that replays no wait differs.
func TestOracleLimitCatches(t *testing.T) {
	skipUnderRace(t)
	tests := []struct {
		name   string
		mutant func(k pkey, call int, timeout time.Duration) time.Duration
		noWait bool
		want   string // in the report
	}{
		{"a run a tick late", func(k pkey, call int, timeout time.Duration) time.Duration {
			if call == 500 {
				time.Sleep(wheelTick)
			}
			return timeout
		}, false, "the limit observed"},
		{"the wait charged to the timeout", func(k pkey, call int, timeout time.Duration) time.Duration {
			if call == 500 {
				return timeout - time.Millisecond
			}
			return timeout
		}, false, "the probe's"},
		{"no wait replayed", nil, true, "differ"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := againstOracleMutated(t, limitSeed(0), tc.mutant, tc.noWait)
			var b strings.Builder
			for _, m := range out.c.mismatches {
				fmt.Fprintf(&b, "%v\n", m)
			}
			for _, p := range out.problems {
				fmt.Fprintf(&b, "%s\n", p)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("the report does not say %q:\n%s", tc.want, b.String())
			}
			t.Logf("%.600s", b.String())
		})
	}
}

// TestOracleLimitSweep plays PROBEWHEEL_ORACLE_LIMIT_SWEEP sequences.
// skipUnderRace: the race runtime crashes now and then in these bubbles, in
// its timer code under the oracle's per-probe tickers (a SIGSEGV in
// runtime.(*timer).maybeRunChan from the oracle's select, once in 200 runs
// of these two tests with -race, 2026-12-07; golang/go#78156; the slow
// kubelet's short form meets it too, bench/reliability). The oracle is
// upstream's code, not ours to race-check, and the limiter is raced in
// pkg/kubelet/prober's tests: make test runs these without -race (unit).
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("under -race the runtime crashes in the oracle's tickers now and then (golang/go#78156): make test runs this test without -race")
	}
}

func TestOracleLimitSweep(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(limitSweepEnv))
	if n <= 0 {
		t.Skip("set " + limitSweepEnv + "=<sequences>")
	}
	from, _ := strconv.Atoi(os.Getenv(limitSweepEnv + "_FROM"))
	start := time.Now()
	sum := runLimitSweep(t, from, n)
	t.Logf("%v; %.0f s", sum, time.Since(start).Seconds())
	// The generator aims past the runtime's capacity by a random factor;
	// where its slope is gentle the policy finds no overload, and those
	// sequences hold probewheel to the oracle as the plain sweep does.
	if n >= 20 && 4*sum.Bound < 3*n {
		t.Errorf("the limit bound in %d of %d sequences: want three quarters at least", sum.Bound, n)
	}
}

// String shows a limit plan: its model, its pods and its ops.
func (lp *limitPlan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  model: capacity %d, slope %v\n", lp.capacity, lp.slope)
	for _, p := range lp.pods {
		fmt.Fprintf(&b, "  pod %s %v:", p.uid, p.spec)
		for _, k := range p.keys() {
			fmt.Fprintf(&b, " %s/%s own %v timeout %v;", k.ctr, k.kind, lp.own[k], lp.timeout[k])
		}
		b.WriteString("\n")
	}
	for _, st := range lp.steps {
		o := st.op
		what := opNames[o.kind]
		switch o.kind {
		case opCleanup:
			var names []string
			for _, p := range st.desired {
				names = append(names, string(p.uid))
			}
			what += fmt.Sprintf(" desired %v", names)
		case opRestart:
			what += fmt.Sprintf(" %s container %d (generation %d)", st.pod.uid, o.ctr, st.gen)
		case opTarget:
			what += fmt.Sprintf(" %s container %d %s: %s after %v", st.pod.uid, o.ctr, o.probe, modeNames[o.mode], hangs[o.hang])
		default:
			what += " " + string(st.pod.uid)
		}
		fmt.Fprintf(&b, "  %10.6fs %s\n", st.at.Seconds(), what)
	}
	fmt.Fprintf(&b, "  %10.6fs end", lp.seq.end().Seconds())
	return b.String()
}

// without is a less b.
func without(a, b []string) []string {
	return slices.DeleteFunc(slices.Clone(a), func(x string) bool { return slices.Contains(b, x) })
}
