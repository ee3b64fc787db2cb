package main

// The late probe arrivals of a traced benchmark window (bench/tracewin.go).
// PROBEWHEEL_BENCH_LATE=dir makes BenchmarkSteady write, per measured window,
// a .late list: target, arrival (the benchmark's clock, which is the
// trace's) and interval − period for every interval more than 12 ms off its
// period, with the window's start and the GC cycles' ends. For a .late file
// this prints when each late arrival came (ms after the window's start),
// whether its pod was one added at the window's start, and the nearest GC
// end.
//
// PROBEWHEEL_BENCH_TRACE=dir also writes an execution trace of each window.
// For a .trace file (its .late beside it) this prints, for each late
// arrival, what held it back: the goroutine that ran the probe (found by the
// arrival's log event), its state changes, what each P ran, and the GC's
// phases and mark assists, from the moment the run was due until it
// arrived. An interval too long means its closing arrival was late; one too
// short means its opening arrival was (that arrival is found as well).

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// lateReport prints the report of each .late or .trace file.
func lateReport(w io.Writer, paths []string) error {
	for _, p := range paths {
		var err error
		if strings.HasSuffix(p, ".late") {
			err = summarizeLate(w, p)
		} else {
			err = explainLate(w, p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// A lateInterval is one line of a .late file.
type lateInterval struct {
	target int
	at     int64 // the arrival that closed the interval, ns
	diff   int64 // interval − period, ns
}

// lateArrival is the arrival that was late and by how much: the closing one
// of an interval too long, the opening one of an interval too short.
func (l lateInterval) lateArrival(period int64) (at, held int64) {
	if l.diff > 0 {
		return l.at, l.diff
	}
	return l.at - (period + l.diff), -l.diff
}

func readLate(path string) (map[string]string, []lateInterval, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	hdr := map[string]string{}
	var lates []lateInterval
	for _, ln := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(ln, "="); ok {
			hdr[k] = v
			continue
		}
		f := strings.Fields(ln)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, nil, fmt.Errorf("%s: %q: want target, arrival, difference", path, ln)
		}
		var n [3]int64
		for i := range f {
			if n[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		lates = append(lates, lateInterval{int(n[0]), n[1], n[2]})
	}
	return hdr, lates, nil
}

func ms(ns float64) string { return fmt.Sprintf("%.2f", ns/1e6) }

func hdrInt(hdr map[string]string, k, path string) (int64, error) {
	v, err := strconv.ParseInt(hdr[k], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: header %s: %w", path, k, err)
	}
	return v, nil
}

func summarizeLate(w io.Writer, path string) error {
	hdr, lates, err := readLate(path)
	if err != nil {
		return err
	}
	period, err := hdrInt(hdr, "period_ns", path)
	if err != nil {
		return err
	}
	ws, err := hdrInt(hdr, "window_start_ns", path)
	if err != nil {
		return err
	}
	added := int64(1) << 62
	if v, ok := hdr["first_added_target"]; ok {
		if added, err = strconv.ParseInt(v, 10, 64); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	var gcs []float64
	for _, f := range strings.Fields(hdr["gc_end_ms"]) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return fmt.Errorf("%s: gc_end_ms: %w", path, err)
		}
		gcs = append(gcs, v)
	}
	worst := int64(0)
	for _, l := range lates {
		worst = max(worst, abs(l.diff))
	}
	gcText := make([]string, len(gcs))
	for i, g := range gcs {
		gcText[i] = fmt.Sprintf("%.0f", g)
	}
	gcList := strings.Join(gcText, ", ")
	if gcList == "" {
		gcList = "-"
	}
	fmt.Fprintf(w, "== %s: %d intervals off > 12 ms, worst %s ms; GC ends at %s ms\n", path, len(lates), ms(float64(worst)), gcList)
	sorted := slices.Clone(lates)
	slices.SortStableFunc(sorted, func(a, b lateInterval) int { return cmp.Compare(abs(b.diff), abs(a.diff)) })
	type key struct {
		target int
		at     int64
	}
	seen := map[key]bool{}
	for _, l := range sorted {
		at, _ := l.lateArrival(period)
		if seen[key{l.target, at}] {
			continue
		}
		seen[key{l.target, at}] = true
		off := float64(at-ws) / 1e6
		gc := ""
		if len(gcs) > 0 {
			near := slices.MinFunc(gcs, func(a, b float64) int { return cmp.Compare(math.Abs(a-off), math.Abs(b-off)) })
			gc = fmt.Sprintf(", nearest GC end %+.0f ms", near-off)
		}
		addedPod := ""
		if int64(l.target) >= added {
			addedPod = " (added pod)"
		}
		fmt.Fprintf(w, "   %6s ms late at %9.1f ms, target %d%s%s\n", ms(float64(abs(l.diff))), off, l.target, addedPod, gc)
	}
	return nil
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// ---- the execution trace, as `go tool trace -d=parsed` prints it ----

var (
	traceEvent = regexp.MustCompile(`^M=(-?\d+) P=(-?\d+) G=(-?\d+) (\w+) Time=(\d+)(.*)$`)
	traceTrans = regexp.MustCompile(`(GoID|ProcID)=(\d+) (\w+)->(\w+)(?: Reason="([^"]*)")?`)
	traceRange = regexp.MustCompile(`Name="([^"]*)" Scope=(\w+)(?:\((\d+)\))?`)
	traceLog   = regexp.MustCompile(`Category="([^"]*)" Message="([^"]*)"`)
)

// goroutineRoles: the first of these in a goroutine's stacks names it.
var goroutineRoles = []struct{ frame, role string }{
	{"gcBgMarkWorker", "GC worker"},
	{"bgsweep", "GC sweeper"},
	{"bgscavenge", "GC scavenger"},
	{"wheelLoop", "wheel loop"},
	{"(*scheduler).execute", "executor"},
	{"(*worker).run", "upstream worker"},
	{"runStallCanary", "canary"},
}

type gTransition struct {
	t                int64
	from, to, reason string
	p                int
}

type pRun struct {
	start, end int64
	g          int
}

type traceRangeEv struct {
	start, end int64
	name       string
	g          int // -1: not a goroutine's range
}

type arrival struct {
	t int64
	g int
}

type parsedTrace struct {
	gTrans   map[int][]gTransition
	pRuns    map[int][]pRun
	ranges   []traceRangeEv
	arrivals map[int][]arrival // target -> arrivals in time order
	roles    map[int]string
}

func (tr *parsedTrace) role(g int) string {
	if r, ok := tr.roles[g]; ok {
		return r
	}
	return "G"
}

func parseTrace(path string) (*parsedTrace, error) {
	out, err := exec.Command("go", "tool", "trace", "-d=parsed", path).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool trace -d=parsed %s: %w", path, err)
	}
	return parseTraceText(bytes.NewReader(out))
}

func parseTraceText(r io.Reader) (*parsedTrace, error) {
	tr := &parsedTrace{gTrans: map[int][]gTransition{}, pRuns: map[int][]pRun{}, arrivals: map[int][]arrival{}, roles: map[int]string{}}
	type running struct {
		g     int
		since int64
	}
	type rangeKey struct{ name, scope, id string }
	onP := map[int]running{}
	var pOrder []int // Ps in the order they first ran something
	openRanges := map[rangeKey]int64{}
	var openOrder []rangeKey
	curG, hasCur, tLast := 0, false, int64(0)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "\t") {
			if _, named := tr.roles[curG]; hasCur && !named {
				for _, gr := range goroutineRoles {
					if strings.Contains(line, gr.frame) {
						tr.roles[curG] = gr.role
						break
					}
				}
			}
			continue
		}
		m := traceEvent.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		p, _ := strconv.Atoi(m[2])
		g, _ := strconv.Atoi(m[3])
		kind, rest := m[4], m[6]
		t, _ := strconv.ParseInt(m[5], 10, 64)
		tLast = max(tLast, t)
		curG, hasCur = g, g >= 0
		switch kind {
		case "StateTransition":
			tm := traceTrans.FindStringSubmatch(rest)
			if tm == nil || tm[1] != "GoID" {
				continue
			}
			goid, _ := strconv.Atoi(tm[2])
			curG, hasCur = goid, true
			tr.gTrans[goid] = append(tr.gTrans[goid], gTransition{t, tm[3], tm[4], tm[5], p})
			if tm[4] == "Running" && p >= 0 {
				if run, ok := onP[p]; ok {
					tr.pRuns[p] = append(tr.pRuns[p], pRun{run.since, t, run.g})
				} else if !slices.Contains(pOrder, p) {
					pOrder = append(pOrder, p)
				}
				onP[p] = running{goid, t}
			} else if tm[3] == "Running" {
				for _, pp := range pOrder {
					if run, ok := onP[pp]; ok && run.g == goid {
						tr.pRuns[pp] = append(tr.pRuns[pp], pRun{run.since, t, run.g})
						delete(onP, pp)
					}
				}
			}
		case "RangeBegin", "RangeActive", "RangeEnd":
			rm := traceRange.FindStringSubmatch(rest)
			if rm == nil {
				continue
			}
			k := rangeKey{rm[1], rm[2], rm[3]}
			if kind == "RangeEnd" {
				st := openRanges[k]
				if i := slices.Index(openOrder, k); i >= 0 {
					openOrder = slices.Delete(openOrder, i, i+1)
				}
				delete(openRanges, k)
				tr.ranges = append(tr.ranges, traceRangeEv{st, t, k.name, rangeG(k.scope, k.id)})
			} else if _, open := openRanges[k]; !open {
				openRanges[k] = t
				openOrder = append(openOrder, k)
			}
		case "Log":
			if lm := traceLog.FindStringSubmatch(rest); lm != nil && lm[1] == "probewheel-arrival" {
				target, err := strconv.Atoi(lm[2])
				if err == nil {
					tr.arrivals[target] = append(tr.arrivals[target], arrival{t, g})
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, p := range pOrder {
		if run, ok := onP[p]; ok {
			tr.pRuns[p] = append(tr.pRuns[p], pRun{run.since, tLast, run.g})
		}
	}
	for _, k := range openOrder {
		tr.ranges = append(tr.ranges, traceRangeEv{openRanges[k], tLast, k.name, rangeG(k.scope, k.id)})
	}
	for p := range tr.pRuns {
		slices.SortFunc(tr.pRuns[p], func(a, b pRun) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end), cmp.Compare(a.g, b.g))
		})
	}
	return tr, nil
}

func rangeG(scope, id string) int {
	if scope != "Goroutine" {
		return -1
	}
	g, _ := strconv.Atoi(id)
	return g
}

func explainLate(w io.Writer, path string) error {
	hdr, lates, err := readLate(strings.TrimSuffix(path, ".trace") + ".late")
	if err != nil {
		return err
	}
	period, err := hdrInt(hdr, "period_ns", path)
	if err != nil {
		return err
	}
	if len(lates) == 0 {
		fmt.Fprintf(w, "%s: no late arrivals\n", path)
		return nil
	}
	tr, err := parseTrace(path)
	if err != nil {
		return err
	}
	explainTrace(w, path, tr, period, lates)
	return nil
}

func explainTrace(w io.Writer, path string, tr *parsedTrace, period int64, lates []lateInterval) {
	type key struct {
		target int
		at     int64
	}
	seen := map[key]bool{}
	fmt.Fprintf(w, "== %s: %d intervals off by more than 12 ms\n", path, len(lates))
	var ps []int
	for p := range tr.pRuns {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	for _, l := range lates {
		tLate, held := l.lateArrival(period)
		arr := tr.arrivals[l.target]
		k, _ := slices.BinarySearchFunc(arr, tLate-100_000, func(a arrival, t int64) int { return cmp.Compare(a.t, t) })
		if k >= len(arr) || abs(arr[k].t-tLate) > 1_000_000 {
			fmt.Fprintf(w, "-- target %d at %d: arrival not in the trace (before it started?)\n", l.target, tLate)
			continue
		}
		tArr, g := arr[k].t, arr[k].g
		if seen[key{l.target, tArr}] {
			continue
		}
		seen[key{l.target, tArr}] = true
		lo := tArr - held - 2_000_000
		fmt.Fprintf(w, "-- target %d: arrived %s ms late at +%s ms of the view (view starts %s ms before), on G%d (%s)\n",
			l.target, ms(float64(held)), ms(float64(tArr-lo)), ms(float64(held)+2e6), g, tr.role(g))
		for _, s := range tr.gTrans[g] {
			if lo <= s.t && s.t <= tArr {
				fmt.Fprintf(w, "   %8s  G%d %s->%s %s P%d\n", ms(float64(s.t-lo)), g, s.from, s.to, s.reason, s.p)
			}
		}
		for _, p := range ps {
			var segs []pRun
			busy := map[string]int64{}
			var order []string
			for _, r := range tr.pRuns[p] {
				if r.end > lo && r.start < tArr {
					s := pRun{max(r.start, lo), min(r.end, tArr), r.g}
					segs = append(segs, s)
					name := tr.role(r.g)
					if r.g == g {
						name += fmt.Sprintf(" G%d", r.g)
					}
					if _, ok := busy[name]; !ok {
						order = append(order, name)
					}
					busy[name] += s.end - s.start
				}
			}
			// Most busy first; ties in the order first seen (Counter.most_common).
			slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(busy[b], busy[a]) })
			var desc []string
			for _, n := range order[:min(6, len(order))] {
				desc = append(desc, fmt.Sprintf("%s %s", n, ms(float64(busy[n]))))
			}
			d := strings.Join(desc, ", ")
			if d == "" {
				d = "nothing"
			}
			fmt.Fprintf(w, "   P%d: ran %s (ms)\n", p, d)
			for _, s := range segs {
				if s.end-s.start >= 2_000_000 {
					fmt.Fprintf(w, "      %8s-%-8s %s G%d\n", ms(float64(s.start-lo)), ms(float64(s.end-lo)), tr.role(s.g), s.g)
				}
			}
		}
		for _, r := range tr.ranges {
			if r.end > lo && r.start < tArr && (strings.Contains(r.name, "GC") || strings.Contains(r.name, "stop-the-world")) {
				who := ""
				if r.g >= 0 {
					who = fmt.Sprintf(" G%d (%s)", r.g, tr.role(r.g))
				}
				if r.name == "GC mark assist" && r.end-r.start < 500_000 {
					continue
				}
				fmt.Fprintf(w, "   %s%s: %s-%s ms\n", r.name, who, ms(float64(max(r.start, lo)-lo)), ms(float64(min(r.end, tArr)-lo)))
			}
		}
	}
}
