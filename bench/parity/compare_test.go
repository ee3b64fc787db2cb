package parity

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"

	"github.com/probewheel/probewheel/bench"
)

// divergence is a difference from upstream that probewheel makes on
// purpose. doc quotes the bullet of pkg/kubelet/prober/doc.go ("Differences
// from upstream, on purpose") that documents it;
// TestAllowedDivergencesAreDocumented checks that doc.go still says so.
type divergence struct {
	id  string
	doc string
}

var (
	// A run ends with a stop request pending and a tick or a trigger too:
	// upstream's select picks one at random and may probe again before it
	// exits (and stays in the workers map meanwhile); probewheel stops.
	stopFirst = &divergence{"stop-before-tick-or-trigger",
		"A stop request is taken before a tick or a trigger that is ready at the same moment"}
	// A run ends with a manual trigger and a tick pending: upstream may take
	// the tick first and run twice, probewheel runs once for the trigger.
	triggerFirst = &divergence{"trigger-before-pending-tick",
		"After a run during which both a tick and a trigger came, the trigger is taken"}
	// Runs start together on a tick, and the one probewheel's loop runs
	// first on its own goroutine (its probe's last run was quick) hangs:
	// the others start when the watchdog hands the wheel off (inline.go).
	behindInline = &divergence{"behind-an-inline-run-that-turns-slow",
		"Runs due on the same tick as a quick probe's run that turns slow on the loop's goroutine may start up to 6 ms late"}
)

// allowedDivergences are the differences the comparison accepts, each only
// where the analysis finds the situation it describes.
var allowedDivergences = []*divergence{stopFirst, triggerFirst, behindInline}

// notReachable are doc.go's other differences and why no sequence meets
// them; they are listed here so that the table in docs/reliability.md is
// complete, and checked against doc.go like the allowed ones.
var notReachable = []struct{ doc, why string }{
	{"A manual trigger that lands at the instant a run starts",
		"ops never land on the instant of a tick or a run (the timing discipline in sequence_test.go); TestSchedulerTriggerAtTheInstantOfATick pins it"},
	{"First runs after a kubelet restart are spread by the golden-ratio",
		"pods are added after the restart window (startAfter)"},
	{"Runs may wait for an executor slot",
		"a run waits only while every fast slot (32 at least) holds a run younger than slowAfter (10 ms); runs start at an op's offset, ops are 8 ms apart and one op starts at most 6 probes' grids, so at most 12 runs are that young at once (compare checks it: analysis.youngRuns)"},
	{"Runs start on the first tick of the scheduler's wheel",
		"ops fall on whole ticks (opSpacing in sequence_test.go), so every due time is on a tick; TestSchedulerRunsOfATickStartTogether pins the offset off a tick"},
	{"A period that is not positive probes every 10 s where upstream panics",
		"the API server never admits it, and upstream would crash the test process"},
	{"A worker that exits removes its map entry only if the entry is still itself",
		"through the Manager interface a key's entry is never replaced while its worker lives: AddPod skips a key whose worker is in the map"},
}

// taint marks the moment from which upstream's behaviour for a pod may
// legitimately differ: nothing of the pod from that moment on is compared.
type taint struct {
	at     time.Duration
	why    *divergence
	detail string
}

// analysis is what the reference run (upstream) says about where the
// implementations may differ.
type analysis struct {
	taints   map[types.UID]taint // the earliest per pod
	byReason map[*divergence]int // taint points found, of any pod
	// At most how many runs were in flight at once that had started less
	// than slowAfter before: more than fastSlots, and a run may have waited
	// for an executor slot, which the analysis does not account for.
	youngRuns int
}

// The executor pool's fewest fast slots (16 per CPU, at least 32) and the
// age at which a fast run hands its slot to a waiting one (pool.go).
const (
	fastSlots = 32
	slowAfter = 10 * time.Millisecond
)

// The loop hands the wheel off when a run it runs itself lasts inlineWatch
// (inline.go).
const inlineWatch = 2 * time.Millisecond

func (a *analysis) add(uid types.UID, t taint) {
	a.byReason[t.why]++
	if old, ok := a.taints[uid]; !ok || t.at < old.at {
		a.taints[uid] = t
	}
}

// cutoff is the first instant not compared for a pod.
func (a *analysis) cutoff(uid types.UID, end time.Duration) time.Duration {
	if t, ok := a.taints[uid]; ok && t.at < end {
		return t.at
	}
	return end
}

// run is one probe run as the runner saw it: one call, or three when the
// prober retried an error.
type run struct {
	start, end time.Duration
	first      bool // not started at the instant the previous run ended
}

// runsOf groups a probe's calls into runs.
func runsOf(calls []call) []run {
	var out []run
	tries := 0
	for i, c := range calls {
		if i > 0 && c.start == calls[i-1].end && tries > 0 && tries < maxProbeRetries {
			out[len(out)-1].end = c.end
		} else {
			out = append(out, run{start: c.start, end: c.end, first: i == 0 || c.start != calls[i-1].end})
			tries = 0
		}
		if retried(c) {
			tries++
		} else {
			tries = 0
		}
	}
	return out
}

// maxProbeRetries is the prober's (prober_manager.go).
const maxProbeRetries = 3

// retried reports whether the prober tries again after a call: it returned
// an error other than an exit code or a timeout, and did not panic.
func retried(c call) bool {
	return c.err != nil && !c.panics && !errors.Is(c.err, bench.ExitFailure) && !errors.Is(c.err, errHung)
}

// analyse walks the plan with upstream's observation and finds every point
// where upstream may do something probewheel does not, on purpose.
func analyse(p *plan, ref *observation) *analysis {
	a := &analysis{taints: map[types.UID]taint{}, byReason: map[*divergence]int{}}
	podOf := map[types.UID]*fuzzPod{}
	for _, pod := range p.pods {
		podOf[pod.uid] = pod
	}
	runs := map[pkey][]run{}
	for k, calls := range ref.calls {
		runs[k] = runsOf(calls)
	}
	// endOfRunAt is when the run of k in flight at t ends (t if none):
	// when a stop at t takes effect.
	endOfRunAt := func(k pkey, t time.Duration) time.Duration {
		for _, r := range runs[k] {
			if r.start < t && t < r.end {
				return r.end
			}
		}
		return t
	}

	// Which workers exist, as AddPod leaves them. exit: when a stopped worker goes away.
	created := map[pkey]bool{}
	exit := map[pkey]time.Duration{}
	alive := func(k pkey, t time.Duration) bool {
		e, stopping := exit[k]
		return created[k] && (!stopping || e > t)
	}
	stops := map[pkey][]time.Duration{}
	triggers := map[pkey][]time.Duration{}
	for i, st := range p.steps {
		switch st.op.kind {
		case opAdd:
			// AddPod skips only the probes whose worker exists, in both.
			var added []pkey
			for _, keys := range st.pod.byContainer() {
				for _, k := range keys {
					if !alive(k, st.at) {
						added = append(added, k)
					}
				}
			}
			for _, k := range added {
				created[k] = true
				delete(exit, k)
			}
		case opUpdate:
			if st.pod == nil {
				continue
			}
			// A container that UpdatePodStatus leaves started and not ready
			// had its readiness worker triggered (prober_manager.go).
			for _, cs := range ref.status[i] {
				if cs.started && !cs.ready {
					k := pkey{st.pod.uid, cs.name, readinessKind}
					triggers[k] = append(triggers[k], st.at)
				}
			}
		}
		for _, k := range st.stops {
			if _, stopping := exit[k]; alive(k, st.at) && !stopping {
				exit[k] = endOfRunAt(k, st.at)
				stops[k] = append(stops[k], st.at)
			}
		}
	}

	// The premise that rules out waiting for an executor slot (notReachable).
	var starts, ends []time.Duration
	for _, rs := range runs {
		for _, r := range rs {
			starts, ends = append(starts, r.start), append(ends, r.end)
		}
	}
	for _, s := range starts {
		young := 0
		for j, t := range starts {
			if s-slowAfter < t && t <= s && ends[j] > s {
				young++
			}
		}
		a.youngRuns = max(a.youngRuns, young)
	}

	// A grid run that lasts until the watchdog, of a probe whose last run
	// may have been quick (a doProbe that calls no target, on hold or
	// without a running container, is quick and leaves no call here, so
	// any grid run counts): probewheel's loop may have run it first of its
	// tick, and the other runs of that instant start when the wheel is
	// handed off. Those are the runs that call a target at that instant,
	// and those that call none but set a result (a new container's initial
	// one) then.
	startingAt := map[time.Duration][]pkey{}
	for k, rs := range runs {
		for _, r := range rs {
			startingAt[r.start] = append(startingAt[r.start], k)
		}
	}
	for k, es := range ref.updates {
		for _, e := range es {
			startingAt[e.at] = append(startingAt[e.at], k)
		}
	}
	for k, rs := range runs {
		for _, r := range rs {
			if !r.first || r.end-r.start < inlineWatch {
				continue
			}
			for _, other := range startingAt[r.start] {
				if other != k {
					a.add(other.uid, taint{r.start, behindInline,
						fmt.Sprintf("%v starts at %.3fs with %v, whose run lasts until %.3fs", other, r.start.Seconds(), k, r.end.Seconds())})
				}
			}
		}
	}

	within := func(ts []time.Duration, r run) bool {
		return slices.ContainsFunc(ts, func(t time.Duration) bool { return r.start < t && t < r.end })
	}
	for k, rs := range runs {
		period := podOf[k.uid].period(k)
		for _, r := range rs {
			stop, trigger := within(stops[k], r), within(triggers[k], r)
			// A tick may be pending when the run ends if it lasted a period,
			// or if it started off the grid, right after another run.
			tick := r.end-r.start >= period || !r.first
			at := fmt.Sprintf("%v run %.3fs-%.3fs", k, r.start.Seconds(), r.end.Seconds())
			switch {
			case stop && trigger:
				a.add(k.uid, taint{r.end, stopFirst, at + ": a stop and a trigger came during it"})
			case stop && tick:
				a.add(k.uid, taint{r.end, stopFirst, at + ": a stop came during it and a tick may be pending"})
			case trigger && tick:
				a.add(k.uid, taint{r.end, triggerFirst, at + ": a trigger came during it and a tick may be pending"})
			}
		}
	}
	return a
}

// mismatch is one difference between an implementation and upstream.
type mismatch struct {
	impl   string
	what   string // "updates", "runs" or "status"
	key    string
	at     time.Duration // where the two first differ
	detail string
	why    *divergence // nil: nothing documented explains it
}

func (m mismatch) String() string {
	why := "UNEXPLAINED"
	if m.why != nil {
		why = fmt.Sprintf("explained by doc.go %q", m.why.doc)
	}
	return fmt.Sprintf("%s: %s of %s differ from %.3fs (%s):\n%s", m.impl, m.what, m.key, m.at.Seconds(), why, m.detail)
}

// comparison is the outcome of one sequence.
type comparison struct {
	mismatches []mismatch
	// What was compared, over all implementations.
	updates, runs, statuses, livenessFailures int
}

func (c *comparison) unexplained() []mismatch {
	return slices.DeleteFunc(slices.Clone(c.mismatches), func(m mismatch) bool { return m.why != nil })
}

// compare compares each implementation's observation with upstream's.
// Before a pod's cutoff everything must be equal; after it, a difference is
// reported as explained by the taint, if allowed lists its divergence.
func compare(p *plan, obs []*observation, allowed []*divergence) *comparison {
	ref := obs[0]
	an := analyse(p, ref)
	end := p.seq.end()
	c := &comparison{}
	for _, o := range obs[1:] {
		diff := func(what, key string, uid types.UID, want, got []string, at func(i int) time.Duration) {
			cut := an.cutoff(uid, end)
			i := 0
			for i < len(want) && i < len(got) && want[i] == got[i] {
				i++
			}
			if i == len(want) && i == len(got) {
				return
			}
			first := at(i)
			m := mismatch{impl: o.impl, what: what, key: key, at: first,
				detail: fmt.Sprintf("    %s: %s\n    %s: %s", ref.impl, brief2(want, i), o.impl, brief2(got, i))}
			if first >= cut {
				if t := an.taints[uid]; slices.Contains(allowed, t.why) {
					m.why = t.why
					m.detail += "\n    because " + t.detail
				}
			}
			c.mismatches = append(c.mismatches, m)
		}
		for _, k := range unionKeys(ref.updates, o.updates) {
			re, ge := eventsBefore(ref.updates[k], end), eventsBefore(o.updates[k], end)
			diff("updates", k.String(), k.uid, strs(re), strs(ge), firstAt(re, ge, func(e event) time.Duration { return e.at }))
		}
		for _, k := range unionKeys(ref.calls, o.calls) {
			rc, gc := callsBefore(ref.calls[k], end), callsBefore(o.calls[k], end)
			diff("runs", k.String(), k.uid, callStrs(rc), callStrs(gc), firstAt(rc, gc, func(c call) time.Duration { return c.start }))
		}
		for i, st := range p.steps {
			if st.op.kind != opUpdate || st.pod == nil {
				continue
			}
			diff("status", fmt.Sprintf("UpdatePodStatus(%s) at %.3fs", st.pod.uid, st.at.Seconds()), st.pod.uid,
				[]string{fmt.Sprint(ref.status[i])}, []string{fmt.Sprint(o.status[i])}, func(int) time.Duration { return st.at })
		}
	}
	if an.youngRuns > fastSlots {
		c.mismatches = append(c.mismatches, mismatch{impl: "analysis", what: "premise", key: "executor slots",
			detail: fmt.Sprintf("    %d runs younger than %v were in flight at once, more than the pool's %d fast slots: a run may have waited for one (doc.go), which compare does not account for",
				an.youngRuns, slowAfter, fastSlots)})
	}
	sort.SliceStable(c.mismatches, func(i, j int) bool { return c.mismatches[i].at < c.mismatches[j].at })
	c.count(p, ref, an)
	return c
}

// count records how much of upstream's behaviour the comparison covered:
// what happened before each pod's cutoff.
func (c *comparison) count(p *plan, ref *observation, an *analysis) {
	end := p.seq.end()
	for k, es := range ref.updates {
		for _, e := range eventsBefore(es, an.cutoff(k.uid, end)) {
			c.updates++
			if k.kind == livenessKind && e.result == results.Failure {
				c.livenessFailures++
			}
		}
	}
	for k, cs := range ref.calls {
		c.runs += len(callsBefore(cs, an.cutoff(k.uid, end)))
	}
	for _, st := range p.steps {
		if st.op.kind == opUpdate && st.pod != nil && st.at < an.cutoff(st.pod.uid, end) {
			c.statuses++
		}
	}
}

func unionKeys[V any](a, b map[pkey]V) []pkey {
	var keys []pkey
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

func eventsBefore(es []event, t time.Duration) []event {
	i := sort.Search(len(es), func(i int) bool { return es[i].at >= t })
	return es[:i]
}

func callsBefore(cs []call, t time.Duration) []call {
	i := sort.Search(len(cs), func(i int) bool { return cs[i].start >= t })
	return cs[:i]
}

func strs(es []event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

func callStrs(cs []call) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%.3fs %s", c.start.Seconds(), c.id)
	}
	return out
}

// firstAt returns when the i-th elements of a and b happen, the earlier one
// if both exist.
func firstAt[T any](a, b []T, at func(T) time.Duration) func(int) time.Duration {
	return func(i int) time.Duration {
		switch {
		case i < len(a) && i < len(b):
			return min(at(a[i]), at(b[i]))
		case i < len(a):
			return at(a[i])
		default:
			return at(b[i])
		}
	}
}

// brief2 shows a list around index i, where two lists first differ.
func brief2(s []string, i int) string {
	lo := max(0, i-2)
	hi := min(len(s), i+3)
	var b strings.Builder
	if lo > 0 {
		fmt.Fprintf(&b, "... ")
	}
	for j := lo; j < hi; j++ {
		mark := ""
		if j == i {
			mark = ">>"
		}
		fmt.Fprintf(&b, "%s[%s] ", mark, s[j])
	}
	if i >= len(s) {
		b.WriteString(">>(nothing)")
	} else if hi < len(s) {
		fmt.Fprintf(&b, "... (%d in all)", len(s))
	}
	return b.String()
}
