package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHeadlineReport(t *testing.T) {
	var raw strings.Builder
	for round := range 5 {
		r := float64(round)
		// CPU: every probewheel round below every upstream one (significant);
		// p99: the arms interleave (not significant).
		fmt.Fprintf(&raw, "BenchmarkSteady/handler=exec/pods=1000/period=1s/impl=upstream-2 1 %v cpu-us/run %v err-p99-ms 2100 goroutines 0 missed-runs 15360 B/probe\n", 40+r, 1+r)
		fmt.Fprintf(&raw, "BenchmarkSteady/handler=exec/pods=1000/period=1s/impl=probewheel-2 1 %v cpu-us/run %v err-p99-ms 33 goroutines 0 missed-runs 3584 B/probe\n", 20+r, 1.5+r)
		fmt.Fprintf(&raw, "BenchmarkSteady/handler=exec/pods=1000/period=1s/impl=gate-off-2 1 99 cpu-us/run\n")
		fmt.Fprintf(&raw, "BenchmarkRestartBurst/handler=exec/pods=1000/period=1s/impl=upstream-2 1 1.2 burst-peak\n")
		fmt.Fprintf(&raw, "BenchmarkRestartBurst/handler=exec/pods=1000/period=1s/impl=probewheel-2 1 1.05 burst-peak\n")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "raw.txt"), []byte(raw.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := headlineReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "| Steady exec, 1,000 pods, 1 s | 3.00 → 3.50 (1.17×) | – | 0 → 0 | 2,100 → 33 (0.016×) ≠ | 15.0 → 3.50 (0.23×) ≠ | 42.0 → 22.0 (0.52×) ≠ |"
	if !strings.Contains(got, want) {
		t.Errorf("headline lacks\n%s\n%s", want, got)
	}
	// A workload that measures none of the columns has no row; the gate-off
	// arm is not part of the headline.
	if strings.Contains(got, "RestartBurst") || strings.Contains(got, "99.0") {
		t.Errorf("headline:\n%s", got)
	}
	if _, err := headlineReport(t.TempDir()); err == nil {
		t.Error("no raw.txt: no error")
	}
}

func TestRatioText(t *testing.T) {
	for r, want := range map[float64]string{0.46: "0.46", 1.754: "1.75", 0.0016: "0.0016", 0.0921: "0.092"} {
		if got := ratioText(r); got != want {
			t.Errorf("ratioText(%v) = %q, want %q", r, got, want)
		}
	}
}
