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
	// probewheel starts a run up to a tick after upstream does (every
	// start and update is compared with that tolerance); an op within that
	// tick may see the world before the run, or the run the world after the
	// op: a result set, a worker exited, a target's answer, a container.
	onTheTick = &divergence{"runs-start-on-the-tick",
		"Runs start on the first tick of the scheduler's wheel at or after their due time"}
)

// allowedDivergences are the differences the comparison accepts, each only
// where the analysis finds the situation it describes.
var allowedDivergences = []*divergence{stopFirst, triggerFirst, onTheTick}

// notReachable are doc.go's other differences and why no sequence meets
// them; they are listed here so that the table in docs/reliability.md is
// complete, and checked against doc.go like the allowed ones.
var notReachable = []struct{ doc, why string }{
	{"A trigger or a stop at the instant a tick falls due comes after the tick's run",
		"ops never land on the instant of a due time or a run (the timing discipline in sequence_test.go); TestSchedulerTriggerAtTheInstantOfATick pins it"},
	{"First runs after a kubelet restart are spread by the golden-ratio",
		"pods are added after the restart window (startAfter)"},
	{"A period that is not positive probes at the API's default period",
		"the API server never admits it, and upstream would crash the test process"},
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
}

// wheelTick is the wheel's tick (schedulerTick in pkg/kubelet/prober's
// scheduler.go).
const wheelTick = 4 * time.Millisecond

// tickerSlack is how long after a tick's instant the loop may run it
// (tickerPhaseSlack in loop.go): a ticker starts only that close to a tick,
// and keeps its phase while it runs.
const tickerSlack = 100 * time.Microsecond

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

	// Which workers exist, as AddPod leaves them. exit: when the stopped
	// worker of a key goes away; exits: every worker's, as a key's worker may
	// be created and stopped again.
	created := map[pkey]bool{}
	exit := map[pkey]time.Duration{}
	exits := map[pkey][]time.Duration{}
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
				exits[k] = append(exits[k], exit[k])
				stops[k] = append(stops[k], st.at)
			}
		}
	}

	// probewheel starts each run on the first tick at or after upstream's
	// instant (onTheTick). An op may therefore meet probewheel's run on the
	// other side of it: a status read before the result was set or the
	// worker exited (UpdatePodStatus), an AddPod before the worker it would
	// skip exited, a run that meets a change of the world (a restart, a
	// target's new answer, the status UpdatePodStatus writes back
	// writeBackDelay later) that upstream's missed. Upstream's runs are
	// known from its calls, and, for runs that call nothing (a probe on
	// hold, a container not started), from its grids: every period is
	// whole seconds, and a pod's grids start at the ops that add or trigger
	// its workers, so its due times fall at whole seconds past those.
	// inTick is the earliest of ts in the tick before t: the first instant
	// that may differ (ts come from maps, in no order).
	inTick := func(ts []time.Duration, t time.Duration) (first time.Duration, ok bool) {
		for _, x := range ts {
			if t-wheelTick-tickerSlack < x && x < t && (!ok || x < first) { // what happens at t itself the op at t caused
				first, ok = x, true
			}
		}
		return first, ok
	}
	grids := map[types.UID][]time.Duration{} // when ops started grids, by pod
	for _, st := range p.steps {
		if st.pod != nil && (st.op.kind == opAdd || st.op.kind == opUpdate) {
			grids[st.pod.uid] = append(grids[st.pod.uid], st.at)
		}
	}
	dueInTick := func(uid types.UID, t time.Duration) (first time.Duration, ok bool) {
		for _, g := range grids[uid] {
			if x := t - (t-g)%time.Second; g <= t && t-x < wheelTick+tickerSlack && (!ok || x < first) {
				first, ok = x, true
			}
		}
		return first, ok
	}
	podTimes := func(uid types.UID, calls, updates, withExits bool) []time.Duration {
		var ts []time.Duration
		for k, cs := range ref.calls {
			for _, c := range cs {
				if calls && k.uid == uid {
					ts = append(ts, c.start)
				}
			}
		}
		for k, es := range ref.updates {
			for _, e := range es {
				if updates && k.uid == uid {
					ts = append(ts, e.at)
				}
			}
		}
		for k, es := range exits {
			if withExits && k.uid == uid {
				ts = append(ts, es...)
			}
		}
		return ts
	}
	// tickTaint: what happened at t may differ from upstream's run or update
	// at x, within the tick before it; from's is the first instant that may
	// differ (x, where a run meets a change of the world).
	tickTaint := func(uid types.UID, from, t time.Duration, what string, x time.Duration) {
		a.add(uid, taint{from, onTheTick, fmt.Sprintf("%s at %.5fs, %v after upstream's run or update of %s at %.5fs", what, t.Seconds(), t-x, uid, x.Seconds())})
	}
	// settled: the instants at which an op of the pod came before another
	// op at the same instant (an UpdatePodStatus "with the AddPod"): the
	// player lets upstream's workers run between the two (synctest.Wait),
	// so upstream's update or exit at that very instant came before the
	// second op, where probewheel's comes on the next tick, after it.
	settled := map[types.UID]map[time.Duration]bool{}
	for _, st := range p.steps {
		if st.pod == nil {
			continue
		}
		uid, name := st.pod.uid, opNames[st.op.kind]
		switch st.op.kind {
		case opUpdate:
			changes := podTimes(uid, false, true, true)
			if x, ok := inTick(changes, st.at); ok {
				tickTaint(uid, st.at, st.at, name, x)
			} else if settled[uid][st.at] && slices.Contains(changes, st.at) {
				tickTaint(uid, st.at, st.at, name+" after an op of the same instant", st.at)
			}
			w := st.at + writeBackDelay
			if x, ok := inTick(podTimes(uid, true, false, false), w); ok {
				tickTaint(uid, x, w, "its status written back", x)
			} else if x, ok := dueInTick(uid, w); ok && x < w {
				tickTaint(uid, x, w, "its status written back", x)
			}
		case opAdd:
			if x, ok := inTick(podTimes(uid, false, false, true), st.at); ok {
				tickTaint(uid, st.at, st.at, name, x)
			}
		case opRestart, opTarget:
			if x, ok := inTick(podTimes(uid, true, false, false), st.at); ok {
				tickTaint(uid, x, st.at, name, x)
			} else if x, ok := dueInTick(uid, st.at); ok && x < st.at {
				tickTaint(uid, x, st.at, name, x)
			}
		}
		if settled[uid] == nil {
			settled[uid] = map[time.Duration]bool{}
		}
		settled[uid][st.at] = true
	}

	// A stop or a trigger at the instant a run starts (only a first run:
	// with the AddPod) comes during it.
	within := func(ts []time.Duration, r run) bool {
		return slices.ContainsFunc(ts, func(t time.Duration) bool { return r.start <= t && t < r.end })
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
	return compareWith(p, obs, allowed, analyse(p, obs[0]), tickTolerance)
}

// compareExact compares each implementation's observation with the first's,
// every instant exactly, nothing tainted: how probewheel is held to the
// oracle (bench/oracle).
func compareExact(p *plan, obs []*observation) *comparison {
	none := &analysis{taints: map[types.UID]taint{}, byReason: map[*divergence]int{}}
	return compareWith(p, obs, nil, none, func(string) time.Duration { return 0 })
}

// tickTolerance: against upstream, probewheel's times and the oracle's may be
// up to a tick after upstream's; the other arms' must match exactly.
func tickTolerance(impl string) time.Duration {
	if wheelArm(impl) || impl == oracleName {
		return wheelTick
	}
	return 0
}

// wheelArm: the arm is probewheel's scheduler, with the exec limit or
// without it (no-exec-limit, the bench's control for what the limit costs,
// where it never binds: the same runs).
func wheelArm(impl string) bool { return impl == "probewheel" || impl == "no-exec-limit" }

// oracleName names the oracle's observations.
var oracleName = bench.Oracle.Name

func compareWith(p *plan, obs []*observation, allowed []*divergence, an *analysis, tolerance func(impl string) time.Duration) *comparison {
	ref := obs[0]
	end := p.seq.end()
	c := &comparison{}
	for _, o := range obs[1:] {
		// diff reports where got first differs from want: another key, or
		// another time than want's on a tick of tol (0: exactly want's).
		// got may end with items that the tick moved past end.
		diff := func(what, key string, uid types.UID, want, got []item, tol time.Duration) {
			if len(got) > len(want) && !slices.ContainsFunc(got[len(want):], func(it item) bool { return it.at < end }) {
				got = got[:len(want)]
			}
			i := 0
			for i < len(want) && i < len(got) && want[i].key == got[i].key && onTheTickOf(got[i].at, want[i].at, tol) {
				i++
			}
			if i == len(want) && i == len(got) {
				return
			}
			var first time.Duration
			switch {
			case i < len(want) && i < len(got):
				first = min(want[i].at, got[i].at)
			case i < len(want):
				first = want[i].at
			default:
				first = got[i].at
			}
			m := mismatch{impl: o.impl, what: what, key: key, at: first,
				detail: fmt.Sprintf("    %s: %s\n    %s: %s", ref.impl, brief2(itemStrs(want), i), o.impl, brief2(itemStrs(got), i))}
			if first >= an.cutoff(uid, end) {
				if t := an.taints[uid]; slices.Contains(allowed, t.why) {
					m.why = t.why
					m.detail += "\n    because " + t.detail
				}
			}
			c.mismatches = append(c.mismatches, m)
		}
		tol := tolerance(o.impl)
		for _, k := range unionKeys(ref.updates, o.updates) {
			diff("updates", k.String(), k.uid, eventItems(ref.updates[k], end), eventItems(o.updates[k], end+tol), tol)
		}
		for _, k := range unionKeys(ref.calls, o.calls) {
			diff("runs", k.String(), k.uid, callItems(ref.calls[k], end), callItems(o.calls[k], end+tol), tol)
		}
		for i, st := range p.steps {
			if st.op.kind != opUpdate || st.pod == nil {
				continue
			}
			diff("status", fmt.Sprintf("UpdatePodStatus(%s) at %.5fs", st.pod.uid, st.at.Seconds()), st.pod.uid,
				[]item{{fmt.Sprint(ref.status[i]), st.at}}, []item{{fmt.Sprint(o.status[i]), st.at}}, 0)
		}
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

// item is one element of what compare compares: what happened, and when.
type item struct {
	key string
	at  time.Duration
}

// onTheTickOf: got is want (tick 0), or on the first tick at or after want,
// up to tickerSlack after the tick's instant.
func onTheTickOf(got, want, tick time.Duration) bool {
	if tick == 0 {
		return got == want
	}
	at := onTick(want, tick)
	return at <= got && got <= at+tickerSlack
}

// onTick is t on the first tick of length tick at or after it (tick 0: t).
func onTick(t, tick time.Duration) time.Duration {
	if tick == 0 {
		return t
	}
	return (t + tick - 1) / tick * tick
}

func eventItems(es []event, before time.Duration) []item {
	var out []item
	for _, e := range eventsBefore(es, before) {
		out = append(out, item{e.cid + " " + e.result.String(), e.at})
	}
	return out
}

func callItems(cs []call, before time.Duration) []item {
	var out []item
	for _, c := range callsBefore(cs, before) {
		out = append(out, item{c.id, c.start})
	}
	return out
}

func itemStrs(its []item) []string {
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = fmt.Sprintf("%.5fs %s", it.at.Seconds(), it.key)
	}
	return out
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
