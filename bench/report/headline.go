package main

// The headline of an in-process `make bench` run: upstream → probewheel for
// every workload, the median over the rounds of each figure, probewheel's
// ratio, and whether the difference is significant by benchstat's own test
// (golang.org/x/perf/benchmath, Mann-Whitney U, alpha 0.05). The README's
// table is copied from headline.md, so every figure it shows is in the run's
// results as written.

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"
)

// headlineColumns are the figures, in the table's order: a unit of raw.txt,
// its heading, and a scale from that unit to the heading's.
var headlineColumns = []struct {
	unit, heading string
	scale         float64
	count         bool
}{
	{"err-p99-ms", "period error p99 (ms)", 1, false},
	{"err-max-ms", "period error max (ms)", 1, false},
	{"missed-runs", "missed runs", 1, true},
	{"goroutines", "goroutines", 1, true},
	{"B/probe", "heap+stack per probe (KiB)", 1.0 / 1024, false},
	{"cpu-us/run", "CPU per run (µs)", 1, false},
}

// significant is the marker of a difference benchstat's test finds
// significant: it says the two differ in this run, not which is better.
const significant = "≠"

// figure formats a median: a count as it is (0, 33, 2,133), other figures
// with three significant digits or fewer (0.921, 14.4, 160).
func figure(v float64, count bool) string {
	switch a := max(v, -v); {
	case count || a >= 100:
		return thousands(v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// ratioText is a ratio with two decimals, or two significant digits below
// 0.1: 0.46, 1.75, 0.0016.
func ratioText(r float64) string {
	if r < 0.1 {
		return strconv.FormatFloat(r, 'g', 2, 64)
	}
	return fmt.Sprintf("%.2f", r)
}

// workloadName is a benchmark's workload as the table names it:
// "Steady exec, 1,000 pods, 1 s" from Steady/handler=exec/pods=1000/period=1s.
func workloadName(l benchLine) string {
	parts := []string{l.scenario}
	if h := l.keys["handler"]; h != "" {
		parts[0] += " " + h
	}
	if p := l.keys["pods"]; p != "" {
		var n float64
		fmt.Sscan(p, &n)
		parts = append(parts, thousands(n)+" pods")
	}
	if p := l.keys["period"]; p != "" {
		parts = append(parts, strings.TrimSuffix(p, "s")+" s")
	}
	for _, k := range slices.Sorted(maps.Keys(l.keys)) {
		switch k {
		case "handler", "pods", "period", "impl":
		default:
			parts = append(parts, k+"="+l.keys[k])
		}
	}
	return strings.Join(parts, ", ")
}

// headlineReport is headline.md for a bench.sh results directory.
func headlineReport(dir string) (string, error) {
	lines, err := readRaw(filepath.Join(dir, "raw.txt"))
	if err != nil {
		return "", err
	}
	type key struct{ workload, impl string }
	samples := map[key]map[string][]float64{}
	var workloads []string
	rounds := 0
	for _, l := range lines {
		w := workloadName(l)
		if !slices.Contains(workloads, w) {
			workloads = append(workloads, w)
		}
		k := key{w, l.keys["impl"]}
		if samples[k] == nil {
			samples[k] = map[string][]float64{}
		}
		for u, v := range l.metrics {
			samples[k][u] = append(samples[k][u], v)
		}
		rounds = max(rounds, len(samples[k]["cpu-us/run"]))
	}
	if len(workloads) == 0 {
		return "", fmt.Errorf("%s/raw.txt: no benchmark results", dir)
	}
	head := []string{"workload"}
	for _, c := range headlineColumns {
		head = append(head, c.heading)
	}
	out := []string{
		"# upstream → probewheel",
		"",
		fmt.Sprintf("Medians over the rounds (up to %d), upstream → probewheel, and probewheel / upstream. "+
			"%s: benchstat's test finds the two different (p ≤ 0.05), whichever is better; without it "+
			"this run cannot tell them apart. –: the benchmark does not measure it. Workloads that measure none of these figures are left out.", rounds, significant),
		"",
		"| " + strings.Join(head, " | ") + " |",
		"|" + strings.Repeat("---|", len(head)),
	}
	thresholds := &benchmath.DefaultThresholds
	for _, w := range workloads {
		up, pw := samples[key{w, "upstream"}], samples[key{w, "probewheel"}]
		if up == nil || pw == nil {
			continue
		}
		cells, measured := []string{w}, false
		for _, c := range headlineColumns {
			a, b := up[c.unit], pw[c.unit]
			if len(a) == 0 || len(b) == 0 {
				cells = append(cells, "–")
				continue
			}
			measured = true
			ma, mb := median(a)*c.scale, median(b)*c.scale
			cell := figure(ma, c.count) + " → " + figure(mb, c.count)
			if ma != 0 && ma != mb {
				cell += " (" + ratioText(mb/ma) + "×)"
			}
			cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(a, thresholds), benchmath.NewSample(b, thresholds))
			if cmp.P < cmp.Alpha {
				cell += " " + significant
			}
			cells = append(cells, cell)
		}
		if measured {
			out = append(out, "| "+strings.Join(cells, " | ")+" |")
		}
	}
	return strings.Join(out, "\n") + "\n", nil
}
