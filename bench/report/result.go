package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A result is one pwscale JSON file as decoded, untyped: runs of older
// pwscale versions lack fields that later ones have, and a missing figure
// must read as "n/a", not as 0.
type result map[string]any

// readRuns reads the JSON results among names, files of dir whose names match
// re: re's first group names the run's kind (a kubelet, a flavor), its second
// the round (none: 0). kinds are in the order names first give them, each
// kind's results in round order.
func readRuns(dir string, names []string, re *regexp.Regexp) (kinds []string, runs map[string][]result, err error) {
	type numbered struct {
		round int
		r     result
	}
	byKind := map[string][]numbered{}
	for _, n := range names {
		m := re.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		r, err := readResult(filepath.Join(dir, n))
		if err != nil {
			return nil, nil, err
		}
		round, _ := strconv.Atoi(m[2])
		if _, ok := byKind[m[1]]; !ok {
			kinds = append(kinds, m[1])
		}
		byKind[m[1]] = append(byKind[m[1]], numbered{round, r})
	}
	runs = map[string][]result{}
	for _, k := range kinds {
		ns := byKind[k]
		slices.SortStableFunc(ns, func(a, b numbered) int { return a.round - b.round })
		for _, n := range ns {
			runs[k] = append(runs[k], n.r)
		}
	}
	return kinds, runs, nil
}

// readResult reads one JSON result.
func readResult(path string) (result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// get returns the number at a dotted path ("lateness.p99AbsMs"); ok is false
// when the path is absent or not a number.
func (r result) get(path string) (float64, bool) {
	var v any = map[string]any(r)
	for _, k := range strings.Split(path, ".") {
		m, isMap := v.(map[string]any)
		if !isMap {
			return 0, false
		}
		v = m[k]
	}
	f, isNum := v.(float64)
	return f, isNum
}

// num is get for a figure the caller knows is there; NaN when it is not.
func (r result) num(path string) float64 {
	if v, ok := r.get(path); ok {
		return v
	}
	return math.NaN()
}

func (r result) str(key string) string {
	s, _ := r[key].(string)
	return s
}

// ok: the run measured (pwscale records an error in the result of a run that
// failed part way, and the medians leave it out).
func (r result) ok() bool { return r.str("error") == "" }

// values are the figure of every run that measured and has it.
func values(rs []result, get getter) []float64 {
	var out []float64
	for _, r := range rs {
		if !r.ok() {
			continue
		}
		if v, ok := get(r); ok {
			out = append(out, v)
		}
	}
	return out
}

// getter reads one figure of a result.
type getter func(result) (float64, bool)

// at is the getter for a dotted path.
func at(path string) getter { return func(r result) (float64, bool) { return r.get(path) } }

// median of vs: the middle value, or the mean of the two middle ones.
func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// med is the median of a figure over the runs that have it.
func med(rs []result, get getter) (float64, bool) {
	v := values(rs, get)
	if len(v) == 0 {
		return 0, false
	}
	return median(v), true
}

func sum(vs []float64) float64 {
	t := 0.0
	for _, v := range vs {
		t += v
	}
	return t
}

// g formats like %g with the shortest representation: 1, 0.5, 130.
func g(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// thousands formats v rounded to an integer with comma separators: 14,845.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
