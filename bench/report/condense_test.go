package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestHistogram(t *testing.T) {
	edges := []float64{10, 20, 30}
	tests := []struct {
		vals []float64
		want []int
	}{
		{[]float64{0, 10}, []int{2, 0, 0, 0}}, // at an edge: that edge's bin
		{[]float64{10.5, 20, 25}, []int{0, 2, 1, 0}},
		{[]float64{31, 1e12}, []int{0, 0, 0, 2}}, // beyond the last edge
		{nil, []int{0, 0, 0, 0}},
	}
	for _, tc := range tests {
		if got := histogram(tc.vals, edges); !slices.Equal(got, tc.want) {
			t.Errorf("histogram(%v) = %v, want %v", tc.vals, got, tc.want)
		}
	}
}

func TestIntervalEdges(t *testing.T) {
	e := intervalEdges()
	// 12 per decade from 10 us: 10, 12.1, ..., up to the first at or past 1000 s.
	if e[0] != 10 || e[binsPerDecade] < 99.99 || e[binsPerDecade] > 100.01 || e[len(e)-1] < highUs || e[len(e)-2] >= highUs {
		t.Errorf("edges %v ... %v", e[:3], e[len(e)-2:])
	}
}

func TestCondenseDumps(t *testing.T) {
	dumps, results := t.TempDir(), t.TempDir()
	files := map[string]string{
		"a.intervals": "# impl=probewheel period_ns=1000000000\n-5\n5\n11\n2000000000000\n",
		"b.restart":   "# impl=upstream period_ns=1000000000\n0\n50000\n999999\n",
		"c.restart":   "# no period here\n5\n",
		"d.other":     "not a number\n",
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dumps, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := condenseDumps(dumps, results); err != nil {
		t.Fatal(err)
	}
	read := func(n string) string {
		b, _ := os.ReadFile(filepath.Join(results, "summaries", n))
		return string(b)
	}
	// |−5| and 5 fall below 10 us, 11 in the second bin, 2e12 beyond the last edge.
	if got, want := read("a.intervals"), "# impl=probewheel period_ns=1000000000 n=4\n10 2\n12.1153 1\ninf 1\n"; got != want {
		t.Errorf("a.intervals:\n%s\nwant:\n%s", got, want)
	}
	// A 1 s period: 20 bins of 50 ms (edges in us).
	if got, want := read("b.restart"), "# impl=upstream period_ns=1000000000 n=3\n50000 2\n1e+06 1\n"; got != want {
		t.Errorf("b.restart:\n%s\nwant:\n%s", got, want)
	}
	if read("c.restart") != "" || read("d.other") != "" {
		t.Error("a dump without a period, or not a dump, was summarised")
	}
}
