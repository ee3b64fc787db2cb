package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCapacityOf(t *testing.T) {
	ok := func(pods int, rate float64) capPoint { return capPoint{pods: pods, runsPerS: rate, p99Ms: 1} }
	late := capPoint{pods: 4000, runsPerS: 8000, p99Ms: 6.2}
	missed := capPoint{pods: 4000, runsPerS: 8000, p99Ms: 1, missed: 3}
	tests := []struct {
		name       string
		pts        []capPoint
		best, fail float64 // rates; 0 = none
	}{
		{"all sustained", []capPoint{ok(1000, 2000), ok(2000, 4000)}, 4000, 0},
		{"p99 over the limit", []capPoint{ok(1000, 2000), late, ok(5000, 10000)}, 2000, 8000},
		{"a missed run", []capPoint{ok(1000, 2000), missed}, 2000, 8000},
		{"first point fails", []capPoint{late}, 0, 8000},
		{"exactly the limit is sustained", []capPoint{{pods: 1, runsPerS: 5, p99Ms: p99LimitMs}}, 5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			best, fail := capacityOf(tc.pts)
			var b, f float64
			if best != nil {
				b = best.runsPerS
			}
			if fail != nil {
				f = fail.runsPerS
			}
			if b != tc.best || f != tc.fail {
				t.Errorf("capacityOf = %v, %v; want %v, %v", b, f, tc.best, tc.fail)
			}
		})
	}
}

func TestCapacityReport(t *testing.T) {
	dir := t.TempDir()
	raw := `goos: linux
BenchmarkSteady/handler=exec/pods=1000/period=1s/impl=upstream-2 	1	2000 runs/s	1.0 err-p99-ms	0 missed-runs	0.50 cpu-cores
BenchmarkSteady/handler=exec/pods=1000/period=1s/impl=upstream-2 	1	2010 runs/s	3.0 err-p99-ms	0 missed-runs	0.52 cpu-cores
BenchmarkSteady/handler=exec/pods=2000/period=1s/impl=upstream-2 	1	3900 runs/s	9.0 err-p99-ms	0 missed-runs	0.90 cpu-cores
BenchmarkSteady/handler=exec/pods=1000/period=1s/impl=probewheel-2 	1	2000 runs/s	0.5 err-p99-ms	0 missed-runs	0.20 cpu-cores
BenchmarkSteady/handler=exec/pods=2000/period=1s/impl=probewheel-2 	1	4000 runs/s	0.6 err-p99-ms	0 missed-runs	0.40 cpu-cores
BenchmarkSteady/handler=exec/pods=2000/period=10s/impl=probewheel-2 	1	400 runs/s	50 err-p99-ms	9 missed-runs	0.40 cpu-cores
BenchmarkRestart/handler=exec/pods=2000/period=1s/impl=probewheel-2 	1	400 runs/s
`
	if err := os.WriteFile(filepath.Join(dir, "raw.txt"), []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := capacityReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// Medians over the rounds: 2,005 runs/s, p99 2.00 ms; 2,000 pods fail on p99.
		"| exec | upstream | 2,005 | 1.0x | 0.51 | 2.00 | 3,900 | p99 9.0 ms |",
		"| exec | probewheel | 4,000 | 2.0x | 0.40 | 0.60 | - | every rate measured sustained (the sweep's top is a lower bound) |",
		"| exec | upstream | 1,000 | 2,005 | 2.00 | 0 | 0.51 | 2 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("capacity.md lacks %q:\n%s", want, got)
		}
	}
	// Upstream's rows come before probewheel's, and the 10 s point is not
	// part of the sweep.
	if strings.Index(got, "| exec | upstream |") > strings.Index(got, "| exec | probewheel |") || strings.Contains(got, "| 400 |") {
		t.Errorf("capacity.md:\n%s", got)
	}
	if _, err := capacityReport(t.TempDir()); err == nil {
		t.Error("no raw.txt: no error")
	}
}
