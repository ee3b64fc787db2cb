package main

// The benchmark's raw dumps (bench/bench_test.go dumpInts, under _output/)
// hold one value per probe interval or probe start: megabytes per run. What
// is committed is their histograms, which is all the plots need, in
// RESULTS_DIR/summaries/ under each dump's name:
//
//	*.intervals  |interval - period| in microseconds, as counts in log-spaced
//	             bins (12 per decade from 10 us to 1000 s, plus one bin for
//	             smaller errors): the period-error CDF
//	*.restart    probe start times after the manager's creation, as counts in
//	             the restart-burst plot's bins (20 per period for periods up to
//	             1 s, 100 for longer ones)
//
// A summary is the dump's header line with " n=<values>", then
// "<upper edge> <count>" for each non-empty bin (edges in microseconds; the
// last bin, beyond every edge, is "inf"). bench/plots/inprocess.py reads them.

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const (
	binsPerDecade = 12
	lowUs         = 10.0 // the first bin holds every error below 10 us
	highUs        = 1e9
)

func intervalEdges() []float64 {
	edges := []float64{lowUs}
	for k := 1; edges[len(edges)-1] < highUs; k++ {
		edges = append(edges, lowUs*math.Pow(10, float64(k)/binsPerDecade))
	}
	return edges
}

func restartEdges(periodUs float64) []float64 {
	n := 100
	if periodUs <= 1e6 {
		n = 20
	}
	edges := make([]float64, n)
	for i := range edges {
		edges[i] = periodUs * float64(i+1) / float64(n)
	}
	return edges
}

// histogram counts each value in the bin of the first edge >= it; the last
// bin holds what is beyond every edge.
func histogram(vals, edges []float64) []int {
	counts := make([]int, len(edges)+1)
	for _, v := range vals {
		i, _ := slices.BinarySearch(edges, v)
		counts[i]++
	}
	return counts
}

// readDump returns a dump's header (its last "#" line) and its values.
func readDump(path string) (string, []float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	var header string
	var vals []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
			header = line
		case strings.TrimSpace(line) != "":
			v, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
			if err != nil {
				return "", nil, fmt.Errorf("%s: %w", path, err)
			}
			vals = append(vals, v)
		}
	}
	return header, vals, sc.Err()
}

var periodNs = regexp.MustCompile(`period_ns=(\d+)`)

// condense writes the summary of one dump, if it is one of the two kinds.
func condense(path, outDir string) error {
	name := filepath.Base(path)
	kind := filepath.Ext(name)
	if kind != ".intervals" && kind != ".restart" {
		return nil
	}
	header, vals, err := readDump(path)
	if err != nil {
		return err
	}
	var edges []float64
	if kind == ".intervals" {
		edges = intervalEdges()
		for i, v := range vals {
			vals[i] = math.Abs(v)
		}
	} else {
		m := periodNs.FindStringSubmatch(header)
		if m == nil {
			fmt.Fprintf(os.Stderr, "condense: %s: no period_ns in the header, skipped\n", path)
			return nil
		}
		ns, _ := strconv.ParseFloat(m[1], 64)
		edges = restartEdges(ns / 1e3)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s n=%d\n", header, len(vals))
	for i, c := range histogram(vals, edges) {
		if c == 0 {
			continue
		}
		edge := "inf"
		if i < len(edges) {
			edge = fmt.Sprintf("%.6g", edges[i])
		}
		fmt.Fprintf(&b, "%s %d\n", edge, c)
	}
	return os.WriteFile(filepath.Join(outDir, name), []byte(b.String()), 0o644)
}

// condenseDumps condenses every dump of dumps into results/summaries/.
func condenseDumps(dumps, results string) error {
	out := filepath.Join(results, "summaries")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dumps)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := condense(filepath.Join(dumps, e.Name()), out); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "condense: %d dumps from %s -> %s\n", len(entries), dumps, out)
	return nil
}
