package main

// The exec-probe storm on kind (hack/e2e-storm.sh, issue 56): summary.md from
// <pods>-<n>-<arm>.json, e2e/storm_test.go's windows. One table per density,
// stock first: what the runtime and the kubelet spent, what the probes saw,
// the median over an arm's windows with each window's value (counts summed),
// and probewheel/stock.

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var stormRows = []struct{ label, path, format string }{
	{"exec probes per second (nominal)", "execPerSecond", "%.0f"},
	{"runtime CPU, cores (containerd, shims and what they reap; over the window)", "runtimeCPU.mean", "%.2f"},
	{"runtime CPU, cores (peak of %s s means)", "runtimeCPU.max", "%.2f"},
	{"kubelet CPU, cores", "kubeletCPU", "%.3f"},
	{"kubelet goroutines (max)", "goroutines.max", "%.0f"},
	{"kubelet threads (max)", "threads.max", "%.0f"},
	{"healthy runs in the window", "healthyRuns", "%.0f"},
	{"exec duration of successful runs, mean ms", "execDuration.meanMs", "%.0f"},
	{"exec duration, worst 5 s mean, ms", "execMeanMs.max", "%.0f"},
	{"interval abs(dev) p50, ms (seen in the containers)", "intervals.p50AbsDevMs", "%.0f"},
	{"interval abs(dev) p99, ms", "intervals.p99AbsDevMs", "%.0f"},
	{"runs in the busiest tenth of the period, x an even share", "phases.peakSlotShare", "%.2f"},
	{"a container's readiness to liveness run, median gap ms", "phases.pairGapP50Ms", "%.0f"},
	{"failed or unknown results of healthy pods (all windows; timeouts)", "healthyFailed+healthyUnknown", "%.0f"},
	{"missed runs (all windows)", "intervals.missed", "%.0f"},
	{"checks whose record was lost with a restart (all windows; not in the intervals)", "checksUnread", "%.0f"},
	{"readiness flaps of healthy pods (all windows)", "healthyFlaps", "%.0f"},
	{"restarts of healthy containers (all windows)", "healthyRestarts", "%.0f"},
	{"exec runs' wait for a slot of the exec limit, mean ms", "limitWait.meanMs", "%.0f"},
	{"exec runs' wait for a slot, p99 ms (bucket bound)", "limitWait.p99Ms", "%.0f"},
	{"cuts of the adaptive exec limit (all windows)", "limitCuts", "%.0f"},
	{"exec runs held by the limit, any wait (all windows)", "limitHeld", "%.0f"},
	{"from a minute after the stall: healthy runs a second", "recovered.runsPerSecond", "%.1f"},
	{"from a minute after the stall: runs held (all windows)", "recovered.limitHeld", "%.0f"},
}

var stormFile = regexp.MustCompile(`^(\d+)-(\d+)-([a-z][a-z0-9]*)\.json$`)

// stormReport is summary.md of a storm run.
func stormReport(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	// pods -> arm -> windows in order
	by := map[int]map[string][]result{}
	type file struct {
		name    string
		pods, n int
		arm     string
	}
	var files []file
	for _, e := range entries {
		m := stormFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pods, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		files = append(files, file{e.Name(), pods, n, m[3]})
	}
	if len(files) == 0 {
		return "", fmt.Errorf("%s: no <pods>-<n>-<arm>.json", dir)
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Or(cmp.Compare(a.pods, b.pods), cmp.Compare(a.n, b.n)) })
	var densities []int
	for _, f := range files {
		r, err := readResult(filepath.Join(dir, f.name))
		if err != nil {
			return "", err
		}
		if by[f.pods] == nil {
			by[f.pods] = map[string][]result{}
			densities = append(densities, f.pods)
		}
		by[f.pods][f.arm] = append(by[f.pods][f.arm], r)
	}
	var out []string
	for _, pods := range densities {
		arms := by[pods]
		// stock first, then the arms as the files first name them
		names := []string{}
		if len(arms["stock"]) > 0 {
			names = append(names, "stock")
		}
		for _, f := range files {
			if f.pods == pods && !slices.Contains(names, f.arm) {
				names = append(names, f.arm)
			}
		}
		first := arms[names[0]][0]
		out = append(out, fmt.Sprintf("## %d pods (%s hung), exec readiness and liveness every 1 s, timeout 1 s", pods, g(first.num("hungPods"))), "",
			fmt.Sprintf("Windows of %s s, each after the kubelet's swap and a %s s settle%s, the arms in the order the files number them; median (each window), counts summed.",
				g(first.num("windowSeconds")), g(first.num("settleSeconds")), stallNote(first)), "")
		head := make([]string, len(names))
		var ratios []string
		for i, a := range names {
			head[i] = fmt.Sprintf("%s (%s)", a, arms[a][0].str("kubelet"))
			if names[0] == "stock" && a != "stock" {
				ratios = append(ratios, a)
				head = append(head, a+" / stock") // after every arm's column
			}
		}
		out = append(out, "| | "+strings.Join(head, " | ")+" |", "|---|"+strings.Repeat("---|", len(head)))
		for _, row := range stormRows {
			col := func(a string) []float64 {
				v := make([]float64, len(arms[a]))
				for i, r := range arms[a] {
					for _, p := range strings.Split(row.path, "+") {
						v[i] += r.num(p)
					}
					if strings.HasPrefix(row.path, "runtimeCPU.") && !runtimeCPUKnown(r) {
						v[i] = math.NaN()
					}
				}
				return v
			}
			// A figure no window has (an older run's JSON): no row.
			if !slices.ContainsFunc(names, func(a string) bool {
				return slices.ContainsFunc(col(a), func(v float64) bool { return !math.IsNaN(v) })
			}) {
				continue
			}
			agg := median
			if sums(row.label) {
				agg = sum
			}
			cells := make([]string, 0, len(head))
			for _, a := range names {
				if c := col(a); slices.ContainsFunc(c, math.IsNaN) {
					cells = append(cells, "n/a")
				} else {
					cells = append(cells, densityCell(c, row.format, row.label))
				}
			}
			for _, a := range ratios {
				r := ""
				if s := agg(col("stock")); s != 0 && !math.IsNaN(s) && !math.IsNaN(agg(col(a))) {
					r = fmt.Sprintf("%.2fx", agg(col(a))/s)
				}
				cells = append(cells, r)
			}
			label := row.label
			if strings.Contains(label, "%s") {
				// Runs before runtimePeakSeconds took the peak of 1 s samples.
				secs := first.num("runtimePeakSeconds")
				if math.IsNaN(secs) {
					secs = 1
				}
				label = fmt.Sprintf(label, g(secs))
			}
			out = append(out, fmt.Sprintf("| %s | %s |", label, strings.Join(cells, " | ")))
		}
		out = append(out, "")
	}
	return strings.Join(out, "\n"), nil
}

// stallNote says when each window stopped containerd (PW_E2E_STORM_STALL).
func stallNote(r result) string {
	d, at := r.num("stallSeconds"), r.num("stallAtSeconds")
	if math.IsNaN(d) || d <= 0 {
		return ""
	}
	return fmt.Sprintf(", containerd stopped %s s into each window for %s s", g(at), g(d))
}

// runtimeCPUKnown: the window's runtime CPU can be trusted. The first
// sampler (no "sampler" field) divided a sample's CPU by the ticker's
// interval, not the real one: where the loop fell behind (fewer samples than
// seconds) its figures overstate the CPU, past the machine's cores.
func runtimeCPUKnown(r result) bool {
	if v, ok := r.get("sampler"); ok && v >= 2 {
		return true
	}
	samples, _ := r["samples"].([]any)
	return float64(len(samples)) >= 0.9*r.num("windowSeconds")
}
