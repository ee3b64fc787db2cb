package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStormReport(t *testing.T) {
	dir := t.TempDir()
	window := func(name, kubelet string, pods int, p99, runtimeMax float64, failed, restarts int) {
		samples := make([]any, 90)
		if pods == 80 {
			samples = samples[:40] // the first sampler fell behind: its runtime CPU is unknown
		}
		r := map[string]any{"samples": samples, "arm": "", "kubelet": kubelet, "pods": pods, "hungPods": 0, "execPerSecond": 2 * pods, "windowSeconds": 90, "settleSeconds": 20,
			"runtimeCPU": map[string]any{"mean": 1.0, "max": runtimeMax}, "kubeletCPU": 0.2,
			"goroutines": map[string]any{"mean": 500, "max": 520}, "threads": map[string]any{"mean": 20, "max": 30},
			"healthyRuns": 3600, "execDuration": map[string]any{"meanMs": 60}, "execMeanMs": map[string]any{"mean": 60, "max": p99},
			"intervals":     map[string]any{"p50AbsDevMs": 5, "p99AbsDevMs": 40, "missed": 1},
			"healthyFailed": failed, "healthyUnknown": 1, "healthyFlaps": 0, "healthyRestarts": restarts}
		b, _ := json.Marshal(r)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	window("020-1-stock.json", "v1.37.2", 20, 100, 1.5, 0, 0)
	window("020-2-probewheel.json", "v1.37.2-probewheel.2", 20, 100, 1.5, 0, 0)
	window("080-1-stock.json", "v1.37.2", 80, 1000, 2.0, 30, 2)
	window("080-2-probewheel.json", "v1.37.2-probewheel.2", 80, 250, 1.0, 2, 0)
	window("080-3-probewheel.json", "v1.37.2-probewheel.2", 80, 500, 1.2, 4, 0)
	window("080-4-stock.json", "v1.37.2", 80, 2000, 1.8, 10, 1)
	window("080-5-bounded.json", "v1.37.2-probewheel.3", 80, 200, 0.9, 1, 0)
	if b, err := os.ReadFile(filepath.Join(dir, "080-5-bounded.json")); err == nil {
		// The second sampler's figures stand however few its samples.
		b = append(b[:len(b)-1], []byte(`,"sampler":2}`)...)
		if err := os.WriteFile(filepath.Join(dir, "080-5-bounded.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	window("notes.json", "", 0, 0, 0, 0, 0) // not a window: left out
	got, err := stormReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## 20 pods (0 hung)",
		"Windows of 90 s, each after the kubelet's swap and a 20 s settle",
		// Without runtimePeakSeconds, the peak is of 1 s samples.
		"| runtime CPU, cores (peak of 1 s means) |",
		"## 80 pods (0 hung)",
		"| | stock (v1.37.2) | probewheel (v1.37.2-probewheel.2) | probewheel / stock |",
		// A third arm: its column after the others, its ratio after probewheel's.
		"| | stock (v1.37.2) | probewheel (v1.37.2-probewheel.2) | bounded (v1.37.2-probewheel.3) | probewheel / stock | bounded / stock |",
		// Medians with each window, in the files' order.
		"| exec duration, worst 5 s mean, ms | 1500 (1000 / 2000) | 375 (250 / 500) | 200 | 0.25x | 0.13x |",
		// Counts: summed over the windows, failed and unknown together, the ratio of the sums.
		"| failed or unknown results of healthy pods (all windows; timeouts) | 42 | 8 | 2 | 0.19x | 0.05x |",
		"| restarts of healthy containers (all windows) | 3 | 0 | 0 | 0.00x | 0.00x |",
		// Late samples of the first sampler: no runtime CPU, and no ratio to it.
		"| runtime CPU, cores (peak of 1 s means) | n/a | n/a | 0.90 |  |  |",
		"| runtime CPU, cores (peak of 1 s means) | 1.50 | 1.50 | 1.00x |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "busiest tenth") {
		t.Errorf("a row for a figure no window has:\n%s", got)
	}
	if i, j := strings.Index(got, "## 20 pods"), strings.Index(got, "## 80 pods"); i < 0 || j < i {
		t.Errorf("densities out of order:\n%s", got)
	}
	if _, err := stormReport(t.TempDir()); err == nil {
		t.Error("no windows: no error")
	}
}
