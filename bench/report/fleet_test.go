package main

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// oneNode is a one-node result with the three fleet figures.
func oneNode(rss, cores, gor float64, extra ...any) result {
	r := result{"nodes": 1.0, "podsPerNode": 1000.0, "periodS": 1.0, "handlers": "mixed", "rssMiB": rss, "cpuCores": cores, "goroutines": gor}
	for i := 0; i+1 < len(extra); i += 2 {
		r[extra[i].(string)] = extra[i+1]
	}
	return r
}

func TestSaving(t *testing.T) {
	tests := []struct {
		name      string
		diffs     []float64
		sign      int
		m, lo, hi float64
	}{
		{"all positive", []float64{59.1, 60.2, 57.0}, 1, 59.1, 57.0, 60.2},
		{"all negative", []float64{-2, -4, -3}, -1, 3, 2, 4},
		{"mixed signs", []float64{0.07, -0.01, 0.05}, 0, 0, 0, 0},
		{"a zero round", []float64{0, 1, 2}, 0, 0, 0, 0},
		{"one pair", []float64{5}, 0, 0, 0, 0},
		{"no pair", nil, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sign, m, lo, hi, why := saving(tc.diffs)
			if sign != tc.sign || m != tc.m || lo != tc.lo || hi != tc.hi {
				t.Errorf("saving(%v) = %d, %v, %v, %v; want %d, %v, %v, %v", tc.diffs, sign, m, lo, hi, tc.sign, tc.m, tc.lo, tc.hi)
			}
			if (why == "") != (tc.sign != 0) {
				t.Errorf("saving(%v): why %q with sign %d", tc.diffs, why, sign)
			}
		})
	}
}

func TestPairs(t *testing.T) {
	w := &workload{runs: map[string][]result{
		// Round 2 of stock failed; round 4 of stock has no figures.
		"stock":      {oneNode(250, 0.7, 5000), oneNode(260, 0.8, 5100, "error", "timeout"), oneNode(255, 0.75, 5050), {"error": ""}},
		"probewheel": {oneNode(190, 0.6, 2100), oneNode(200, 0.7, 2150), oneNode(195, 0.8, 2120), oneNode(1, 1, 1)},
	}}
	if got := pairs(w, "rssMiB"); !slices.Equal(got, []float64{60, 60}) {
		t.Errorf("rssMiB pairs = %v, want [60 60]", got)
	}
	got := pairs(w, "cpuCores")
	if len(got) != 2 || math.Abs(got[0]-0.1) > 1e-9 || math.Abs(got[1]+0.05) > 1e-9 {
		t.Errorf("cpuCores pairs = %v, want [0.1 -0.05]", got)
	}
	// Rounds pair by their number, not their place in the list.
	w = &workload{runs: map[string][]result{
		"stock":      {oneNode(10, 1, 1, "round", 1.0), oneNode(12, 1, 1, "round", 2.0)},
		"probewheel": {oneNode(9, 1, 1, "round", 2.0)},
	}}
	if got := pairs(w, "rssMiB"); !slices.Equal(got, []float64{3}) {
		t.Errorf("pairs by round = %v, want [3]", got)
	}
}

func TestFleetTable(t *testing.T) {
	ws := []*workload{
		{name: "10x500-10s-mixed", runs: map[string][]result{
			"stock": {oneNode(1, 1, 1, "nodes", 10.0)}, "probewheel": {oneNode(1, 1, 1, "nodes", 10.0)}}},
		{name: "1x1000-1s-mixed", runs: map[string][]result{
			"stock":      {oneNode(250, 0.70, 5000), oneNode(252, 0.68, 5100), oneNode(251, 0.69, 5050)},
			"probewheel": {oneNode(190, 0.62, 2100), oneNode(193, 0.70, 2150), oneNode(192, 0.61, 2120)},
		}},
	}
	got := fleetTable(ws, fleetNodes)
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 3 { // header, rule, one row: the many-nodes workload is left out
		t.Fatalf("table has %d lines, want 3:\n%s", len(lines), got)
	}
	for _, want := range []string{
		"| 1,000 pods @1 s, mixed |",
		// RSS: 60, 59, 59 -> median 59 MiB; x 5,000 / 1024 = 288 GiB.
		"| 59.0 MiB (59.0 ... 60.0) | 288 GiB (288 ... 293) |",
		// CPU: 0.08, -0.02, 0.08: the rounds disagree.
		"0.080 / -0.020 / 0.080 cores | rounds disagree on the sign: not shown |",
		// Goroutines: 2900, 2950, 2930 -> 14.65 million fewer.
		"| 2,930 (2,900 ... 2,950) | 14.6 million (14.5 ... 14.8) |",
	} {
		if !strings.Contains(lines[2], want) {
			t.Errorf("row lacks %q:\n%s", want, lines[2])
		}
	}
	if got := fleetTable(nil, fleetNodes); !strings.Contains(got, "no fleet figure") {
		t.Errorf("no workload: %q", got)
	}
}

func TestThousands(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 14845.4: "14,845", -1234567: "-1,234,567", 288.09: "288"} {
		if got := thousands(v); got != want {
			t.Errorf("thousands(%v) = %q, want %q", v, got, want)
		}
	}
}
