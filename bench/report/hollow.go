package main

// The hollow-node level's summary.md: docs/scale.md's targets at 1,000 pods
// per node x 3 probes @1 s, a fleet on paper (fleet.go), then per workload
// every figure of pwscale's JSON, the median over the rounds with each
// round's value and probewheel/stock.

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// kubelets are the two kubelets of a run, in the order the tables show them.
var kubelets = []string{"stock", "probewheel"}

// workload is one workload's runs, per kubelet, in round order.
type workload struct {
	name string
	runs map[string][]result
}

// first is the workload's first run, the one that describes it.
func (w *workload) first() result {
	for _, k := range kubelets {
		if rs := w.runs[k]; len(rs) > 0 {
			return rs[0]
		}
	}
	return nil
}

var runFile = regexp.MustCompile(`^(stock|probewheel)-(\d+)\.json$`)

// loadHollow reads <dir>/runs/<workload>/<kubelet>-<round>.json, workloads in name
// order. Other files there (a failed run's log, a profile) are not results.
func loadHollow(dir string) ([]*workload, error) {
	root := filepath.Join(dir, "runs")
	entries, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var out []*workload
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, err
		}
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.Name()
		}
		kinds, runs, err := readRuns(filepath.Join(root, e.Name()), names, runFile)
		if err != nil {
			return nil, err
		}
		if len(kinds) == 0 {
			continue
		}
		w := &workload{name: e.Name(), runs: runs}
		out = append(out, w)
	}
	return out, nil
}

// A row is one figure of a workload's table: the median over the rounds with
// each round's value, or, for counts that must be 0, the sum over them.
type row struct {
	label  string
	get    getter
	format string // a fmt verb for one value; "%d" for counts
	total  bool
}

// readyS is the seconds until every pod was Ready; absent when some never were.
func readyS(r result) (float64, bool) {
	v, ok := r.get("allReadyS")
	return v, ok && v >= 0
}

var hollowRows = []row{
	{"kubelet CPU, cores (per node, window mean)", at("cpuCores"), "%.3f", false},
	{"kubelet CPU per probe run, us", at("cpuPerProbeUs"), "%.0f", false},
	{"kubelet RSS, MiB (mean)", at("rssMiB"), "%.1f", false},
	{"kubelet RSS, MiB (max)", at("rssMaxMiB"), "%.1f", false},
	{"Go heap in use, MiB (mean)", at("heapInuseMiB"), "%.1f", false},
	{"GC cycles per 1,000 probe runs (whole kubelet)", at("gcPer1kRuns"), "%.2f", false},
	{"KiB allocated per probe run (whole kubelet)", at("allocKiBPerRun"), "%.1f", false},
	{"kubelet goroutines (mean)", at("goroutines"), "%.0f", false},
	{"probe runs in the window (all nodes)", at("probeRuns"), "%.0f", false},
	{`probe interval \|dev\| p50, ms (targets)`, at("lateness.p50AbsMs"), "%.1f", false},
	{`probe interval \|dev\| p99, ms`, at("lateness.p99AbsMs"), "%.1f", false},
	{`probe interval \|dev\| p99.9, ms`, at("lateness.p999AbsMs"), "%.1f", false},
	{`probe interval \|dev\| max, ms`, at("lateness.maxAbsMs"), "%.1f", false},
	{"missed runs (all rounds; docs/benchmarks.md#missed-runs)", at("lateness.missed"), "%d", true},
	{"liveness probe failures in the window (all rounds; none intended)", at("livenessFailures"), "%d", true},
	{"container restarts (all rounds; none intended)", at("restarts"), "%d", true},
	{"flipped pods whose target answered 3+ failures in a row (all rounds)", at("transitions.exercised"), "%d", true},
	{"readiness flips due by the targets' answers (all rounds)", at("transitions.expected"), "%d", true},
	{"readiness flips lost (all rounds)", at("transitions.lost"), "%d", true},
	{"readiness flips extra (all rounds)", at("transitions.extra"), "%d", true},
	{"pods not Ready at the window's start, left out of the flip count (all rounds)", at("transitions.skipped"), "%d", true},
	{"all pods Ready after, s (-1: not all)", readyS, "%.1f", false},
	{"pods not Ready when the wait gave up (all rounds; 0 = healthy)", at("notReadyAtTimeout"), "%d", true},
	{"restart: first probe, max s after the new process", at("restart.firstMaxS"), "%.2f", false},
	{"restart: probes never run (all rounds)", at("restart.unprobed"), "%d", true},
	{"restart: burst peak/mean, first period", at("restart.burstFirst"), "%.2f", false},
	{"restart: burst peak/mean, next full period", at("restart.burstSteady"), "%.2f", false},
	{"restart: pods turned NotReady (all rounds)", at("restart.notReady"), "%d", true},
	{"machine: busy cores, all processes (window mean)", at("hostBusyCores"), "%.2f", false},
	{"machine: the harness's cores (targets, fake runtimes)", at("harnessCores"), "%.2f", false},
	{"machine: 1-min load average, max in the window", at("hostLoad1Max"), "%.1f", false},
}

// one formats a value with a row's verb ("%d" takes the value's integer part).
func one(format string, v float64) string {
	if format == "%d" {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf(format, v)
}

// naOr formats v, or "n/a" when it is absent or negative (not measured).
func naOr(format string, v float64, ok bool) string {
	if !ok || v < 0 {
		return "n/a"
	}
	return one(format, v)
}

// cell is a row's cell for one kubelet: "median (round 1 / round 2 / ...)",
// or the sum over the rounds.
func (rw row) cell(rs []result) string {
	v := values(rs, rw.get)
	if len(v) == 0 {
		return "n/a"
	}
	if rw.total {
		return one("%d", sum(v))
	}
	text := one(rw.format, median(v))
	if len(v) > 1 {
		each := make([]string, len(v))
		for i, x := range v {
			each[i] = one(rw.format, x)
		}
		text += " (" + strings.Join(each, " / ") + ")"
	}
	return text
}

// ratio is probewheel's median over stock's, "" when either is missing or
// stock's is 0.
func ratio(w *workload, get getter) string {
	s, okS := med(w.runs["stock"], get)
	p, okP := med(w.runs["probewheel"], get)
	if !okS || !okP || s == 0 {
		return ""
	}
	return fmt.Sprintf("%.2fx", p/s)
}

// describeWorkload is a workload's one-line description, from its first run.
func describeWorkload(r result) string {
	lat := ""
	if l, ok := r.get("execLatencyMs"); ok && l != 0 {
		lat = fmt.Sprintf(", exec latency %s ms", g(l))
	}
	return fmt.Sprintf("%d node(s) x %d pods x %d probes, period %s s, handlers %s%s, window %s s",
		int(r.num("nodes")), int(r.num("podsPerNode")), int(r.num("probesPerPod")), g(r.num("periodS")),
		r.str("handlers"), lat, g(r.num("windowS")))
}

// present are the kubelets a workload has runs of, in table order.
func (w *workload) present() []string {
	var out []string
	for _, k := range kubelets {
		if _, ok := w.runs[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

func workloadTable(w *workload) string {
	first := w.first()
	rounds := 0
	for _, rs := range w.runs {
		rounds = max(rounds, len(rs))
	}
	names := w.present()
	out := []string{"### " + w.name, "", describeWorkload(first) + fmt.Sprintf("; %d round(s) per kubelet, ABBA; median (each round).", rounds), ""}
	var errs, viol, ex []string
	for _, k := range names {
		for i, r := range w.runs[k] {
			if e := r.str("error"); e != "" {
				errs = append(errs, fmt.Sprintf("%s round %d: %s", k, i+1, e))
			}
			vs, _ := r["violations"].([]any)
			for _, v := range vs {
				viol = append(viol, fmt.Sprint(v))
			}
			t, _ := r["transitions"].(map[string]any)
			es, _ := t["examples"].([]any)
			for _, e := range es {
				ex = append(ex, fmt.Sprintf("%s round %d: %v", k, i+1, e))
			}
		}
	}
	if len(errs) > 0 {
		out = append(out, "**Failed runs** (left out of the medians): "+strings.Join(errs, "; "), "")
	}
	if len(viol) > 0 {
		out = append(out, "**Network rule violated**: "+strings.Join(viol, "; "), "")
	}
	if len(ex) > 0 {
		out = append(out, "Readiness flips lost or extra (up to 10 pods per run; seconds from the window's start):", "")
		for _, e := range ex[:min(20, len(ex))] {
			out = append(out, "- "+e)
		}
		out = append(out, "")
	}
	head := make([]string, len(names))
	for i, k := range names {
		v := w.runs[k][0].str("version")
		if v == "" {
			v = "?"
		}
		head[i] = fmt.Sprintf("%s (%s)", k, v)
	}
	out = append(out, "| | "+strings.Join(head, " | ")+" | probewheel / stock |", "|---|"+strings.Repeat("---|", len(names)+1))
	for _, rw := range hollowRows {
		cells := make([]string, len(names))
		for i, k := range names {
			cells[i] = rw.cell(w.runs[k])
		}
		r := ""
		if !rw.total {
			r = ratio(w, rw.get)
		}
		out = append(out, fmt.Sprintf("| %s | %s | %s |", rw.label, strings.Join(cells, " | "), r))
	}
	if line := flipRateBounds(w, names); line != "" {
		out = append(out, "", line)
	}
	for _, r := range w.runs["probewheel"] {
		lat, _ := r["schedulerLateness"].(map[string]any)
		if !r.ok() || len(lat) == 0 {
			continue
		}
		l := result(lat)
		out = append(out, "", fmt.Sprintf("probewheel's own prober_scheduler_start_lateness_seconds (node 0, round 1): %.0f runs, mean %.2f ms, p99 <= %s ms (bucket bound).",
			l.num("count"), l.num("meanMs"), g(l.num("p99Ms"))))
		break
	}
	if first.num("nodes") > 1 {
		out = append(out, "", "What the control plane saw per node (median over nodes and rounds):", "",
			"| | "+strings.Join(names, " | ")+" |", "|---|"+strings.Repeat("---|", len(names)))
		for _, f := range []struct{ label, key string }{
			{"pod status writes, creation to window start", "podUpdatesStartup"},
			{"pod status writes during the window", "podUpdatesWindow"},
			{"node status writes per minute", "nodeUpdatesPerMin"},
			{"lease renewals per minute", "leaseUpdatesPerMin"},
			{"kubelet CPU, cores", "cpuCores"},
			{"kubelet RSS, MiB", "rssMiB"},
			{"kubelet goroutines", "goroutines"},
		} {
			cells := make([]string, len(names))
			for i, k := range names {
				var v []float64
				for _, r := range w.runs[k] {
					if !r.ok() {
						continue
					}
					nodes, _ := r["perNode"].([]any)
					for _, n := range nodes {
						m, _ := n.(map[string]any)
						if x, ok := result(m).get(f.key); ok {
							v = append(v, x)
						}
					}
				}
				cells[i] = "n/a"
				if len(v) > 0 {
					cells[i] = fmt.Sprintf("%.2f (min %.2f, max %.2f)", median(v), slices.Min(v), slices.Max(v))
				}
			}
			out = append(out, fmt.Sprintf("| %s | %s |", f.label, strings.Join(cells, " | ")))
		}
		out = append(out, "", "Pod readiness timeline, seconds from the first creation until this share of the pods was Ready (median over rounds):", "")
		qs := []int{0, 4, 10, 16, 18, 20} // 0 %, 20 %, 50 %, 80 %, 90 %, 100 %
		head := make([]string, len(qs))
		for i, q := range qs {
			head[i] = fmt.Sprintf("%d%%", q*5)
		}
		out = append(out, "| | "+strings.Join(head, " | ")+" |", "|---|"+strings.Repeat("---|", len(qs)))
		for _, k := range names {
			cells := make([]string, len(qs))
			for i, q := range qs {
				v, ok := med(w.runs[k], func(r result) (float64, bool) {
					qv, _ := r["readyQuantilesS"].([]any)
					if q >= len(qv) {
						return 0, false
					}
					f, isNum := qv[q].(float64)
					return f, isNum
				})
				cells[i] = naOr("%.1f", v, ok)
			}
			out = append(out, fmt.Sprintf("| %s | %s |", k, strings.Join(cells, " | ")))
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// hollowTargets evaluates docs/scale.md's targets at 1,000 pods per node x 3
// probes @1 s, one node, for each such workload.
func hollowTargets(ws []*workload) string {
	var out []string
	for _, w := range ws {
		f := w.first()
		if f.num("nodes") != 1 || f.num("podsPerNode") != 1000 || f.num("periodS") != 1 {
			continue
		}
		s, p := w.runs["stock"], w.runs["probewheel"]
		m := func(rs []result, path string) float64 {
			if v, ok := med(rs, at(path)); ok {
				return v
			}
			return math.NaN()
		}
		tot := func(rs []result, path string) float64 { return sum(values(rs, at(path))) }
		var lines []string
		add := func(name, value string, good bool) {
			verdict := "**missed**"
			if good {
				verdict = "met"
			}
			lines = append(lines, fmt.Sprintf("| %s | %s | %s |", name, value, verdict))
		}
		sg, okSG := med(s, at("goroutines"))
		pg, okPG := med(p, at("goroutines"))
		if okSG && okPG {
			d := sg - pg
			add("goroutines >= 2,900 fewer", fmt.Sprintf("%.0f fewer (%.0f -> %.0f)", d, sg, pg), d >= 2900)
			sr, pr := m(s, "rssMiB"), m(p, "rssMiB")
			add("RSS >= 25 MiB less", fmt.Sprintf("%.1f MiB less (%.1f -> %.1f)", sr-pr, sr, pr), sr-pr >= 25)
			sc, pc := m(s, "cpuCores"), m(p, "cpuCores")
			add("kubelet CPU <= 0.8x stock", fmt.Sprintf("%.2fx (%.3f -> %.3f cores)", pc/sc, sc, pc), pc/sc <= 0.8)
			a, b := m(s, "lateness.p99AbsMs"), m(p, "lateness.p99AbsMs")
			add("probe lateness p99 no worse than stock", fmt.Sprintf("%.1f ms vs %.1f ms", b, a), b <= a)
			lost, extra := tot(p, "transitions.lost"), tot(p, "transitions.extra")
			add("no lost readiness transition (probewheel, all rounds)",
				fmt.Sprintf("%.0f of %.0f flips lost, %.0f extra (stock: %.0f lost, %.0f extra); missed runs %.0f (stock %.0f)",
					lost, tot(p, "transitions.expected"), extra,
					tot(s, "transitions.lost"), tot(s, "transitions.extra"), tot(p, "lateness.missed"), tot(s, "lateness.missed")),
				lost == 0 && extra == 0)
			bf, okF := med(p, at("restart.burstFirst"))
			bs, okB := med(p, at("restart.burstSteady"))
			if okF && okB {
				sf, okSF := med(s, at("restart.burstFirst"))
				ss, okSS := med(s, at("restart.burstSteady"))
				add("restart burst peak/mean <= 1.15 (first period after the first probe; first full period after every probe ran)",
					fmt.Sprintf("%.2f and %.2f (stock %s and %s)", bf, bs, naOr("%.2f", sf, okSF), naOr("%.2f", ss, okSS)),
					bf <= 1.15 && bs <= 1.15)
			}
		}
		out = append(out, fmt.Sprintf("Workload %s: %s; medians over %d stock and %d probewheel round(s).", w.name, describeWorkload(f), len(s), len(p)), "",
			"| target | measured | |", "|---|---|---|")
		out = append(out, lines...)
		out = append(out, "")
	}
	if len(out) == 0 {
		return "No 1,000-pod, 1 s workload in this run: the targets are not evaluated.\n"
	}
	return strings.Join(out, "\n")
}

// hollowPlots are the plot files bench/plots/hollow.py writes for these workloads,
// in its order, that exist in dir/plots.
func hollowPlots(dir string, ws []*workload) []string {
	type group struct {
		period, lat float64
		handlers    string
	}
	var groups []group
	for _, w := range ws {
		f := w.first()
		if f.num("nodes") != 1 {
			continue
		}
		lat, _ := f.get("execLatencyMs")
		gr := group{f.num("periodS"), lat, f.str("handlers")}
		if !slices.Contains(groups, gr) {
			groups = append(groups, gr)
		}
	}
	slices.SortFunc(groups, func(a, b group) int {
		switch {
		case a.period != b.period:
			return cmp.Compare(a.period, b.period)
		case a.handlers != b.handlers:
			return strings.Compare(a.handlers, b.handlers)
		}
		return cmp.Compare(a.lat, b.lat)
	})
	var names []string
	for _, gr := range groups {
		n := fmt.Sprintf("vs-pods-%ss-%s", g(gr.period), gr.handlers)
		if gr.lat != 0 {
			n += fmt.Sprintf("-exec%sms", g(gr.lat))
		}
		names = append(names, n+".png")
	}
	for _, w := range ws {
		if w.first().num("nodes") != 1 {
			names = append(names, "nodes-"+w.name+".png")
		}
	}
	for _, w := range ws {
		names = append(names, "restart-"+w.name+".png")
	}
	var out []string
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, "plots", n)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// hollowSummary is summary.md for a results directory.
func hollowSummary(dir string, ws []*workload) string {
	var b strings.Builder
	b.WriteString("# Hollow-kubelet scale benchmark\n\n")
	if run, err := os.ReadFile(filepath.Join(dir, "run.txt")); err == nil {
		b.WriteString("```\n" + strings.TrimRightFunc(string(run), unicode.IsSpace) + "\n```\n\n")
	}
	if arm := scaleArm(dir); arm != "" {
		b.WriteString(fmt.Sprintf("**Ablation arm `%s`**: the kubelet named probewheel below is probewheel with bench/ablation/%s.patch (hack/scale-bench.sh SCALE_ARM); every probewheel column, ratio and saving is that arm's.\n\n", arm, arm))
	}
	b.WriteString("## Targets\n\n" + hollowTargets(ws))
	b.WriteString(fmt.Sprintf("\n## A %s-node fleet, on paper\n\n", thousands(fleetNodes)) + fleetHead)
	b.WriteString(fleetTable(ws, fleetNodes))
	order := slices.Clone(ws)
	slices.SortStableFunc(order, func(a, c *workload) int {
		fa, fc := a.first(), c.first()
		for _, k := range []string{"nodes", "periodS"} {
			if d := cmp.Compare(fa.num(k), fc.num(k)); d != 0 {
				return d
			}
		}
		if d := strings.Compare(fa.str("handlers"), fc.str("handlers")); d != 0 {
			return d
		}
		return cmp.Compare(fa.num("podsPerNode"), fc.num("podsPerNode"))
	})
	tables := make([]string, len(order))
	for i, w := range order {
		tables[i] = workloadTable(w)
	}
	b.WriteString("\n## Workloads\n\n" + strings.Join(tables, "\n"))
	var links []string
	for _, f := range hollowPlots(dir, ws) {
		links = append(links, fmt.Sprintf("![%s](plots/%s)", f, f))
	}
	b.WriteString("\n## Plots\n\n" + strings.Join(links, "\n") + "\n")
	return b.String()
}

// flipRateBounds states, per kubelet, the highest extra-flip rate its runs
// leave plausible: a count of 0 in n due flips does not say the rate is 0,
// and two kubelets' counts are compared by these bounds. "" when no run was
// due a flip.
func flipRateBounds(w *workload, names []string) string {
	var parts []string
	for _, k := range names {
		due := sum(values(w.runs[k], at("transitions.expected")))
		if due == 0 {
			continue
		}
		extra := sum(values(w.runs[k], at("transitions.extra")))
		parts = append(parts, fmt.Sprintf("%s %s in 10,000 (%.0f extra in %.0f due)",
			k, one("%.1f", 1e4*binomialUpper(int(extra), int(due), 0.05)), extra, due))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Extra readiness flips per 10,000 due, one-sided 95 % upper bound (exact binomial, all rounds): " +
		strings.Join(parts, ", ") + "."
}

// binomialUpper is the Clopper-Pearson one-sided upper bound of a rate of
// which k events were seen in n trials: the p at which seeing k or fewer
// has probability alpha. For k = 0 it is 1 - alpha^(1/n), about 3/n at 95 %.
func binomialUpper(k, n int, alpha float64) float64 {
	if k >= n {
		return 1
	}
	// P(X <= k) falls as p rises: bisect for the p where it equals alpha.
	lo, hi := 0.0, 1.0
	for range 100 {
		p := (lo + hi) / 2
		if binomialCDF(k, n, p) > alpha {
			lo = p
		} else {
			hi = p
		}
	}
	return (lo + hi) / 2
}

// binomialCDF is P(X <= k) for X ~ Binomial(n, p), summed in log space so
// that n in the tens of thousands neither overflows nor underflows.
func binomialCDF(k, n int, p float64) float64 {
	lgN, _ := math.Lgamma(float64(n + 1))
	total := 0.0
	for i := 0; i <= k; i++ {
		lgI, _ := math.Lgamma(float64(i + 1))
		lgR, _ := math.Lgamma(float64(n - i + 1))
		total += math.Exp(lgN - lgI - lgR + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return total
}

// scaleArm is the SCALE_ARM a results directory's run was made with
// (scale.env, as hack/scale-bench.sh writes it with printf %q), or "".
func scaleArm(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "scale.env"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SCALE_ARM="); ok {
			return strings.Trim(v, "'")
		}
	}
	return ""
}
