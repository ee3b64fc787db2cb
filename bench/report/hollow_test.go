package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRuns writes results as runs/<workload>/<kubelet>-<round>.json.
func writeRuns(t *testing.T, dir string, runs map[string]map[string][]result) {
	t.Helper()
	for w, byKubelet := range runs {
		for k, rs := range byKubelet {
			for i, r := range rs {
				p := filepath.Join(dir, "runs", w, k+"-"+string(rune('1'+i))+".json")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(r)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// summaryOf is the summary of a results directory.
func summaryOf(t *testing.T, dir string) string {
	t.Helper()
	ws, err := loadHollow(dir)
	if err != nil {
		t.Fatal(err)
	}
	return hollowSummary(dir, ws)
}

func TestSummary(t *testing.T) {
	one := func(kubelet string, cpu, rss, gor, p99, lost float64, extra ...any) result {
		r := result{"kubelet": kubelet, "version": "v1.37.2", "nodes": 1.0, "podsPerNode": 1000.0, "probesPerPod": 3.0,
			"periodS": 1.0, "handlers": "mixed", "windowS": 60.0, "cpuCores": cpu, "rssMiB": rss, "goroutines": gor,
			"lateness": map[string]any{"p99AbsMs": p99, "missed": 0.0}, "transitions": map[string]any{"lost": lost, "extra": 0.0, "expected": 100.0}}
		for i := 0; i+1 < len(extra); i += 2 {
			r[extra[i].(string)] = extra[i+1]
		}
		return r
	}
	dir := t.TempDir()
	writeRuns(t, dir, map[string]map[string][]result{"1x1000-1s-mixed": {
		"stock": {one("stock", 0.8, 280, 5100, 60, 0), one("stock", 0.9, 290, 5200, 70, 0), one("stock", 5, 999, 99999, 999, 9, "error", "timed out")},
		"probewheel": {one("probewheel", 0.6, 200, 2100, 55, 0), one("probewheel", 0.62, 204, 2150, 65, 1),
			one("probewheel", 0.61, 202, 2120, 60, 0)},
	}})
	if err := os.WriteFile(filepath.Join(dir, "run.txt"), []byte("command: test\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := summaryOf(t, dir)
	for _, want := range []string{
		"```\ncommand: test\n```\n",
		// The failed run is named and left out of every median and sum.
		"**Failed runs** (left out of the medians): stock round 3: timed out",
		"| kubelet CPU, cores (per node, window mean) | 0.850 (0.800 / 0.900) | 0.610 (0.600 / 0.620 / 0.610) | 0.72x |",
		"| kubelet goroutines (mean) | 5150 (5100 / 5200) | 2120 (2100 / 2150 / 2120) | 0.41x |",
		"| readiness flips lost (all rounds) | 0 | 1 |  |",
		// The failed run's flips are not counted either.
		"one-sided 95 % upper bound (exact binomial, all rounds): stock 148.7 in 10,000 (0 extra in 200 due), probewheel 99.4 in 10,000 (0 extra in 300 due).",
		// A figure no run has.
		"| kubelet RSS, MiB (max) | n/a | n/a |  |",
		// The targets, from the medians.
		"| goroutines >= 2,900 fewer | 3030 fewer (5150 -> 2120) | met |",
		"| RSS >= 25 MiB less | 83.0 MiB less (285.0 -> 202.0) | met |",
		"| kubelet CPU <= 0.8x stock | 0.72x (0.850 -> 0.610 cores) | met |",
		"| probe lateness p99 no worse than stock | 60.0 ms vs 65.0 ms | met |",
		"| no lost readiness transition (probewheel, all rounds) | 1 of 300 flips lost, 0 extra (stock: 0 lost, 0 extra); missed runs 0 (stock 0) | **missed** |",
		"## Plots\n\n\n", // no plot file: no link
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

func TestSummaryManyNodes(t *testing.T) {
	perNode := []any{map[string]any{"podUpdatesWindow": 10.0, "cpuCores": 0.1}, map[string]any{"podUpdatesWindow": 30.0, "cpuCores": 0.3}}
	r := func(k string) result {
		q := make([]any, 21)
		for i := range q {
			q[i] = float64(i)
		}
		return result{"kubelet": k, "nodes": 2.0, "podsPerNode": 250.0, "probesPerPod": 3.0, "periodS": 10.0, "handlers": "mixed",
			"windowS": 130.0, "perNode": perNode, "readyQuantilesS": q}
	}
	dir := t.TempDir()
	writeRuns(t, dir, map[string]map[string][]result{"2x250-10s-mixed": {"stock": {r("stock")}, "probewheel": {r("probewheel")}}})
	if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plots", "nodes-2x250-10s-mixed.png"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got := summaryOf(t, dir)
	for _, want := range []string{
		"No 1,000-pod, 1 s workload in this run: the targets are not evaluated.",
		"No one-node workload with both kubelets: no fleet figure.",
		"| pod status writes during the window | 20.00 (min 10.00, max 30.00) | 20.00 (min 10.00, max 30.00) |",
		"| pod status writes, creation to window start | n/a | n/a |",
		"| stock | 0.0 | 4.0 | 10.0 | 16.0 | 18.0 | 20.0 |",
		"![nodes-2x250-10s-mixed.png](plots/nodes-2x250-10s-mixed.png)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

// TestSummaryNamesTheArm: a run of an ablation arm says so above its
// figures, whose columns are named probewheel; a run without one says nothing.
func TestSummaryNamesTheArm(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{"SCALE_ARM=afterfunc\n", "**Ablation arm `afterfunc`**"},
		{"SCALE_ARM=''\n", ""},
		{"", ""},
	} {
		dir := t.TempDir()
		if c.env != "" {
			if err := os.WriteFile(filepath.Join(dir, "scale.env"), []byte("SCALE_MODE=reduced\n"+c.env), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got := hollowSummary(dir, nil)
		if has := strings.Contains(got, "Ablation arm"); has != (c.want != "") || !strings.Contains(got, c.want) {
			t.Errorf("scale.env %q: summary names an arm %v, want %q:\n%s", c.env, has, c.want, got)
		}
	}
}

func TestBinomialUpper(t *testing.T) {
	for _, c := range []struct {
		k, n int
		want float64 // per 10,000, to 0.05
	}{
		{0, 20000, 1.5}, // 1 - 0.05^(1/20000) = 1.4978e-4
		{0, 600, 49.8},  // 1 - 0.05^(1/600)
		{2, 600, 104.6}, // P(X <= 2) at p = 0.010455 is 0.05001 (exact sum)
		{1, 20000, 2.4}, // 4.74/n
		{20000, 20000, 10000},
	} {
		got := 1e4 * binomialUpper(c.k, c.n, 0.05)
		if math.Abs(got-c.want) > 0.05 {
			t.Errorf("binomialUpper(%d, %d) = %.2f in 10,000, want %.1f", c.k, c.n, got, c.want)
		}
	}
}
