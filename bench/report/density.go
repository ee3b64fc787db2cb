package main

// The real-kubelet A/B (hack/e2e-density.sh): summary.md from
// <flavor>-<round>.json (or <flavor>.json), e2e/density_test.go's output,
// stock first: the kubelet's cost and the probes' timing per kubelet, the
// median over the rounds with each round's value, and patched/stock.

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
)

// densityRows are the table's rows: a label, a dotted path, a format. A label
// with "(all " ("all rounds") sums over the rounds.
var densityRows = []struct{ label, path, format string }{
	{"kubelet CPU, cores (mean over the window)", "cpuCores", "%.3f"},
	{"kubelet RSS, MiB (mean)", "rssMiB.mean", "%.0f"},
	{"kubelet RSS, MiB (max)", "rssMiB.max", "%.0f"},
	{"kubelet goroutines (mean)", "goroutines.mean", "%.0f"},
	{"kubelet goroutines (max)", "goroutines.max", "%.0f"},
	{"probe runs in the window", "probeDuration.count", "%.0f"},
	{"probe duration, mean ms", "probeDuration.meanMs", "%.2f"},
	{"probe duration, p99 ms (bucket bound)", "probeDuration.p99Ms", "%.1f"},
	{"probe interval abs(dev) p50, ms (seen by the targets)", "intervals.p50AbsDevMs", "%.1f"},
	{"probe interval abs(dev) p99, ms", "intervals.p99AbsDevMs", "%.1f"},
	{"probe interval abs(dev) max, ms", "intervals.maxAbsDevMs", "%.1f"},
	{"missed runs (all rounds; docs/benchmarks.md#missed-runs)", "intervals.missed", "%d"},
	{"readiness flaps (all rounds)", "readyFlaps", "%d"},
	{"container restarts (all rounds)", "restarts", "%d"},
	{"all pods Ready after, s", "allReadySeconds", "%.0f"},
}

var densityFile = regexp.MustCompile(`^(.+?)(?:-(\d+))?\.json$`)

// flavorRuns are one kubelet's runs in round order.
type flavorRuns struct {
	name string
	runs []result
}

// loadDensity reads the directory's JSON files: stock first, then the other
// flavors by name.
func loadDensity(dir string) ([]*flavorRuns, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	slices.SortStableFunc(names, func(a, b string) int {
		sa, sb := strings.HasPrefix(a, "stock"), strings.HasPrefix(b, "stock")
		if sa != sb {
			if sa {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	flavors, runs, err := readRuns(dir, names, densityFile)
	if err != nil {
		return nil, err
	}
	var out []*flavorRuns
	for _, f := range flavors {
		out = append(out, &flavorRuns{name: f, runs: runs[f]})
	}
	return out, nil
}

// densityCell is "median (round 1 / round 2 / ...)", or the sum over the
// rounds. The median of whole numbers is truncated to a whole number, as the
// JSON's integers are counts.
func densityCell(vals []float64, format, label string) string {
	if sums(label) {
		return one(format, sum(vals))
	}
	m := median(vals)
	if vals[0] == math.Trunc(vals[0]) {
		m = math.Trunc(m)
	}
	text := one(format, m)
	if len(vals) > 1 {
		each := make([]string, len(vals))
		for i, v := range vals {
			each[i] = one(format, v)
		}
		text += " (" + strings.Join(each, " / ") + ")"
	}
	return text
}

// sums tells a row of counts, summed over the rounds: its label says "(all ...".
func sums(label string) bool { return strings.Contains(label, "(all ") }

// densityReport is summary.md of an e2e density run.
func densityReport(dir string) (string, error) {
	fs, err := loadDensity(dir)
	if err != nil {
		return "", err
	}
	if len(fs) == 0 {
		return "", fmt.Errorf("%s: no <flavor>.json", dir)
	}
	by := map[string]*flavorRuns{}
	rounds := 0
	for _, f := range fs {
		by[f.name] = f
		rounds = max(rounds, len(f.runs))
	}
	withRatio := by["stock"] != nil && by["patched"] != nil
	first := fs[0].runs[0]
	head := make([]string, len(fs))
	for i, f := range fs {
		head[i] = fmt.Sprintf("%s (%s)", f.name, f.runs[0].str("kubelet"))
	}
	last, cols := " |", len(fs)
	if withRatio {
		last, cols = " | patched / stock (medians) |", cols+1
	}
	out := []string{
		fmt.Sprintf("%d pods x %d probes (startup TCP, readiness HTTP, liveness gRPC), period %s s, measured over %s s once all pods were Ready; "+
			"%d round(s) per kubelet, order alternating; median (each round).",
			int(first.num("pods")), int(first.num("probesPerPod")), g(first.num("periodSeconds")), g(first.num("windowSeconds")), rounds),
		"",
		"| | " + strings.Join(head, " | ") + last,
		"|---|" + strings.Repeat("---|", cols),
	}
	col := func(f *flavorRuns, path string) []float64 {
		v := make([]float64, len(f.runs))
		for i, r := range f.runs {
			v[i] = r.num(path)
		}
		return v
	}
	for _, row := range densityRows {
		cells := make([]string, len(fs))
		for i, f := range fs {
			cells[i] = densityCell(col(f, row.path), row.format, row.label)
		}
		if withRatio {
			s, p := median(col(by["stock"], row.path)), median(col(by["patched"], row.path))
			r := ""
			if s != 0 && !sums(row.label) {
				r = fmt.Sprintf("%.2fx", p/s)
			}
			cells = append(cells, r)
		}
		out = append(out, fmt.Sprintf("| %s | %s |", row.label, strings.Join(cells, " | ")))
	}
	if p := by["patched"]; p != nil {
		for _, r := range p.runs {
			lat, _ := r["schedulerLateness"].(map[string]any)
			if len(lat) == 0 {
				continue
			}
			l := result(lat)
			out = append(out, "", fmt.Sprintf("Patched kubelet, prober_scheduler_start_lateness_seconds over a window: %.0f runs, mean %.2f ms, p99 <= %s ms (bucket bound).",
				l.num("count"), l.num("meanMs"), g(l.num("p99Ms"))))
		}
	}
	return strings.Join(out, "\n") + "\n", nil
}
