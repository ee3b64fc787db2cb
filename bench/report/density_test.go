package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDensityReport(t *testing.T) {
	dir := t.TempDir()
	run := func(name, kubelet string, cpu float64, flaps int, lat bool) {
		r := map[string]any{"kubelet": kubelet, "pods": 110, "probesPerPod": 3, "periodSeconds": 1, "windowSeconds": 300,
			"cpuCores": cpu, "rssMiB": map[string]any{"mean": 100.4, "max": 120}, "goroutines": map[string]any{"mean": 500, "max": 520},
			"probeDuration": map[string]any{"count": 99000, "meanMs": 1.5, "p99Ms": 5},
			"intervals":     map[string]any{"p50AbsDevMs": 0.5, "p99AbsDevMs": 4, "maxAbsDevMs": 20, "missed": 0},
			"readyFlaps":    flaps, "restarts": 0, "allReadySeconds": 31}
		if lat {
			r["schedulerLateness"] = map[string]any{"count": 1000, "meanMs": 1.25, "p99Ms": 2.5}
		}
		b, _ := json.Marshal(r)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("patched-1.json", "v1.37.2-probewheel.1", 0.20, 1, true)
	run("patched-2.json", "v1.37.2-probewheel.1", 0.30, 0, false)
	run("stock-1.json", "v1.37.2", 0.40, 0, false)
	run("stock-2.json", "v1.37.2", 0.50, 2, false)
	got, err := densityReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"110 pods x 3 probes (startup TCP, readiness HTTP, liveness gRPC), period 1 s, measured over 300 s once all pods were Ready; 2 round(s) per kubelet",
		// Stock first, whatever the names' order.
		"| | stock (v1.37.2) | patched (v1.37.2-probewheel.1) | patched / stock (medians) |",
		"| kubelet CPU, cores (mean over the window) | 0.450 (0.400 / 0.500) | 0.250 (0.200 / 0.300) | 0.56x |",
		// Counts sum over the rounds, with no ratio.
		"| readiness flaps (all rounds) | 2 | 1 |  |",
		"| kubelet RSS, MiB (mean) | 100 (100 / 100) | 100 (100 / 100) | 1.00x |",
		"prober_scheduler_start_lateness_seconds over a window: 1000 runs, mean 1.25 ms, p99 <= 2.5 ms",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if _, err := densityReport(t.TempDir()); err == nil {
		t.Error("no JSON: no error")
	}
}

func TestDensityCellTruncatesWholeMedians(t *testing.T) {
	// Counts: the median of 1 and 2 is 1, as the JSON's integers are counts.
	if got := densityCell([]float64{1, 2}, "%.0f", "goroutines"); got != "1 (1 / 2)" {
		t.Errorf("got %q", got)
	}
	if got := densityCell([]float64{1.5, 2}, "%.2f", "cpu"); got != "1.75 (1.50 / 2.00)" {
		t.Errorf("got %q", got)
	}
}
