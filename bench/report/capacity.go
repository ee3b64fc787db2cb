package main

// A capacity sweep (scripts/bench.sh capacity) runs BenchmarkSteady at rising
// pod counts, a 1 s period, every round. A rate is sustained when the
// period-error p99 (the median over the rounds) is at most 5 ms and no round
// missed a run; an implementation's capacity for a handler is the highest
// measured rate below its first rate that is not sustained (the rate is the
// probe runs per second measured, not the nominal one).

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

const p99LimitMs = 5.0

// implOrder is the arms' order in every table and plot: upstream first.
var implOrder = []string{"upstream", "probewheel", "gate-off", "afterfunc"}

// A benchLine is one benchmark result line of raw.txt.
type benchLine struct {
	scenario string            // "Steady"
	keys     map[string]string // handler, pods, period, impl, ...
	metrics  map[string]float64
}

// readRaw parses the benchmark lines of a raw.txt:
// "BenchmarkSteady/handler=exec/pods=110/period=1s/impl=upstream-2 1 <value> <unit> ...".
func readRaw(path string) ([]benchLine, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []benchLine
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if !strings.HasPrefix(line, "Benchmark") || len(f) < 4 {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		parts := strings.Split(name, "/")
		l := benchLine{scenario: strings.TrimPrefix(parts[0], "Benchmark"), keys: map[string]string{}, metrics: map[string]float64{}}
		for _, p := range parts[1:] {
			if k, v, ok := strings.Cut(p, "="); ok {
				l.keys[k] = v
			}
		}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				l.metrics[f[i+1]] = v
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// A capPoint is one pod count of one arm: medians over its rounds, and the
// most missed runs of any round.
type capPoint struct {
	pods                   int
	runsPerS, p99Ms, cores float64
	missed                 float64
	rounds                 int
}

func (p capPoint) sustained() bool { return p.p99Ms <= p99LimitMs && p.missed == 0 }

// why a point is not sustained.
func (p capPoint) why() string {
	var r []string
	if p.p99Ms > p99LimitMs {
		r = append(r, fmt.Sprintf("p99 %.1f ms", p.p99Ms))
	}
	if p.missed > 0 {
		r = append(r, fmt.Sprintf("%.0f missed", p.missed))
	}
	return strings.Join(r, ", ")
}

// capacityPoints groups the 1 s BenchmarkSteady lines: handler -> impl ->
// points by pods.
func capacityPoints(lines []benchLine) map[string]map[string][]capPoint {
	type key struct {
		handler, impl string
		pods          int
	}
	acc := map[key][]map[string]float64{}
	for _, l := range lines {
		if l.scenario != "Steady" || l.keys["period"] != "1s" {
			continue
		}
		pods, _ := strconv.Atoi(l.keys["pods"])
		k := key{l.keys["handler"], l.keys["impl"], pods}
		acc[k] = append(acc[k], l.metrics)
	}
	out := map[string]map[string][]capPoint{}
	for k, ms := range acc {
		col := func(unit string) []float64 {
			v := make([]float64, len(ms))
			for i, m := range ms {
				v[i] = m[unit]
			}
			return v
		}
		if out[k.handler] == nil {
			out[k.handler] = map[string][]capPoint{}
		}
		out[k.handler][k.impl] = append(out[k.handler][k.impl], capPoint{k.pods, median(col("runs/s")), median(col("err-p99-ms")),
			median(col("cpu-cores")), slices.Max(col("missed-runs")), len(ms)})
	}
	for _, byImpl := range out {
		for _, pts := range byImpl {
			slices.SortFunc(pts, func(a, b capPoint) int { return a.pods - b.pods })
		}
	}
	return out
}

// capacityOf is the highest sustained point before the first that is not
// (nil if the first is not), and that first one (nil if all are).
func capacityOf(pts []capPoint) (best, fail *capPoint) {
	for i := range pts {
		if !pts[i].sustained() {
			return best, &pts[i]
		}
		best = &pts[i]
	}
	return best, nil
}

// impls are an arm's names in implOrder, then any other by name.
func impls(byImpl map[string][]capPoint) []string {
	var out []string
	for i := range byImpl {
		out = append(out, i)
	}
	rank := func(i string) int {
		if r := slices.Index(implOrder, i); r >= 0 {
			return r
		}
		return len(implOrder)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b)) })
	return out
}

// capacityReport is capacity.md for a capacity sweep's directory.
func capacityReport(dir string) (string, error) {
	lines, err := readRaw(filepath.Join(dir, "raw.txt"))
	if err != nil {
		return "", err
	}
	data := capacityPoints(lines)
	if len(data) == 0 {
		return "", fmt.Errorf("%s/raw.txt: no BenchmarkSteady results at a 1 s period", dir)
	}
	out := []string{
		"# Capacity: the highest probe rate each implementation sustains on this machine",
		"",
		fmt.Sprintf("Sustained: period-error p99 <= %s ms (median over the rounds) and no missed run in any round; "+
			"the rate is probe runs per second measured at a 1 s period, two probes per pod. "+
			"Capacity is the highest sustained rate below the first rate that is not.", g(p99LimitMs)),
		"",
		"| handler | implementation | capacity (runs/s) | vs upstream | CPU cores there | p99 there (ms) | first rate not sustained | why |",
		"|---|---|---:|---:|---:|---:|---:|---|",
	}
	for _, h := range slices.Sorted(maps.Keys(data)) {
		up, _ := capacityOf(data[h]["upstream"])
		for _, impl := range impls(data[h]) {
			best, fail := capacityOf(data[h][impl])
			ratio, capacity, cores, p99 := "-", "none measured", "-", "-"
			if best != nil {
				if up != nil {
					ratio = fmt.Sprintf("%.1fx", best.runsPerS/up.runsPerS)
				}
				capacity, cores, p99 = thousands(best.runsPerS), fmt.Sprintf("%.2f", best.cores), fmt.Sprintf("%.2f", best.p99Ms)
			}
			first, reason := "-", "every rate measured sustained (the sweep's top is a lower bound)"
			if fail != nil {
				first, reason = thousands(fail.runsPerS), fail.why()
			}
			out = append(out, fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |", h, impl, capacity, ratio, cores, p99, first, reason))
		}
	}
	out = append(out, "", "Every point (over the rounds: median runs/s, p99 and CPU cores; most missed runs):", "",
		"| handler | implementation | pods | runs/s | p99 (ms) | missed | CPU cores | rounds |",
		"|---|---|---:|---:|---:|---:|---:|---:|")
	for _, h := range slices.Sorted(maps.Keys(data)) {
		for _, impl := range impls(data[h]) {
			for _, p := range data[h][impl] {
				out = append(out, fmt.Sprintf("| %s | %s | %s | %s | %.2f | %.0f | %.2f | %d |", h, impl, thousands(float64(p.pods)),
					thousands(p.runsPerS), p.p99Ms, p.missed, p.cores, p.rounds))
			}
		}
	}
	return strings.Join(out, "\n") + "\n", nil
}
