package main

// A fleet is never measured: its saving is a node's saving multiplied. What
// this file adds to that multiplication is the refusal to multiply noise.
// Each ABBA round pairs one stock run with the probewheel run of the same
// round (ABBA keeps the two close in time), so a round gives one difference.
// The fleet figure is nodes x (median difference), with nodes x (smallest
// ... largest difference) beside it, shown only when at least two rounds
// agree on its sign:
//
//	RSS, MiB, rounds (stock - probewheel):  59.1, 60.2, 57.0
//	-> 59.1 MiB per node (57.0 ... 60.2), x 5,000 = 289 GiB (278 ... 294 GiB)
//	cores, rounds:  0.07, -0.01, 0.05
//	-> "not shown": one round says probewheel used more

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

const fleetNodes = 5000

const fleetHead = "Per node: stock minus probewheel in each ABBA round (that round's two runs); the median, with the rounds' " +
	"range. The fleet: that times the nodes, shown only where every round agrees on the sign (at least two " +
	"rounds). Window means of the kubelet process; a fleet is not measured.\n\n"

// A fleetFigure is one column pair of the fleet table.
type fleetFigure struct {
	label, key, unit string
	scale            float64 // per-node unit -> fleet unit
	fleetUnit        string
	perNode, fleet   func(float64) string
}

func fixed(prec int) func(float64) string {
	return func(v float64) string { return fmt.Sprintf("%.*f", prec, v) }
}

var fleetFigures = []fleetFigure{
	{"kubelet RSS", "rssMiB", "MiB", 1.0 / 1024, "GiB", fixed(1), thousands},
	{"kubelet CPU", "cpuCores", "cores", 1, "cores", fixed(3), thousands},
	{"goroutines", "goroutines", "", 1e-6, "million", thousands, fixed(1)},
}

// pairs is stock − probewheel for each round in which both runs measured and
// have key, in round order. A run's round is its "round" field, else its
// place in the list.
func pairs(w *workload, key string) []float64 {
	byRound := map[string]map[int]result{}
	for _, k := range kubelets {
		byRound[k] = map[int]result{}
		for i, r := range w.runs[k] {
			n := i + 1
			if v, ok := r.get("round"); ok {
				n = int(v)
			}
			byRound[k][n] = r
		}
	}
	var rounds []int
	for n := range byRound["stock"] {
		if _, ok := byRound["probewheel"][n]; ok {
			rounds = append(rounds, n)
		}
	}
	slices.Sort(rounds)
	var out []float64
	for _, n := range rounds {
		s, p := byRound["stock"][n], byRound["probewheel"][n]
		if !s.ok() || !p.ok() {
			continue
		}
		a, okA := s.get(key)
		b, okB := p.get(key)
		if okA && okB {
			out = append(out, a-b)
		}
	}
	return out
}

// saving is the sign and the median, smallest and largest |difference| when
// at least two rounds agree on the sign; otherwise why it is not shown.
func saving(diffs []float64) (sign int, m, lo, hi float64, why string) {
	if len(diffs) < 2 {
		return 0, 0, 0, 0, fmt.Sprintf("%d round pair(s): not shown", len(diffs))
	}
	switch {
	case !slices.ContainsFunc(diffs, func(d float64) bool { return d <= 0 }):
		sign = 1
	case !slices.ContainsFunc(diffs, func(d float64) bool { return d >= 0 }):
		sign = -1
	default:
		return 0, 0, 0, 0, "rounds disagree on the sign: not shown"
	}
	abs := make([]float64, len(diffs))
	for i, d := range diffs {
		abs[i] = math.Abs(d)
	}
	return sign, median(abs), slices.Min(abs), slices.Max(abs), ""
}

// cells are a figure's two cells: per node, and the fleet (or why not).
func (f fleetFigure) cells(diffs []float64, nodes float64) (string, string) {
	sign, m, lo, hi, why := saving(diffs)
	if sign == 0 {
		if len(diffs) == 0 {
			return "n/a", why
		}
		each := make([]string, len(diffs))
		for i, d := range diffs {
			each[i] = f.perNode(d)
		}
		return strings.TrimSpace(strings.Join(each, " / ") + " " + f.unit), why
	}
	more := ""
	if sign < 0 {
		more = "costs more: "
	}
	per := strings.ReplaceAll(fmt.Sprintf("%s%s %s (%s ... %s)", more, f.perNode(m), f.unit, f.perNode(lo), f.perNode(hi)), "  ", " ")
	fleet := func(v float64) string { return f.fleet(v * nodes * f.scale) }
	return per, fmt.Sprintf("%s%s %s (%s ... %s)", more, fleet(m), f.fleetUnit, fleet(lo), fleet(hi))
}

// fleetTable is one row per one-node workload with both kubelets, ordered by
// period, then pods.
func fleetTable(ws []*workload, nodes float64) string {
	type fleetRow struct {
		name         string
		period, pods float64
		cells        []string
	}
	var rs []fleetRow
	for _, w := range ws {
		f := w.first()
		_, hasS := w.runs["stock"]
		_, hasP := w.runs["probewheel"]
		if f == nil || f.num("nodes") != 1 || !hasS || !hasP {
			continue
		}
		var cells []string
		for _, fig := range fleetFigures {
			per, fleet := fig.cells(pairs(w, fig.key), nodes)
			cells = append(cells, per, fleet)
		}
		name := fmt.Sprintf("%s pods @%s s, %s", thousands(f.num("podsPerNode")), g(f.num("periodS")), f.str("handlers"))
		rs = append(rs, fleetRow{name, f.num("periodS"), f.num("podsPerNode"), cells})
	}
	if len(rs) == 0 {
		return "No one-node workload with both kubelets: no fleet figure.\n"
	}
	slices.SortStableFunc(rs, func(a, b fleetRow) int {
		if d := cmp.Compare(a.period, b.period); d != 0 {
			return d
		}
		return cmp.Compare(a.pods, b.pods)
	})
	head := []string{"workload"}
	for _, fig := range fleetFigures {
		head = append(head, fig.label+" saved per node (rounds' range)", "x "+thousands(nodes)+" nodes")
	}
	out := []string{"| " + strings.Join(head, " | ") + " |", "|" + strings.Repeat("---|", len(head))}
	for _, r := range rs {
		out = append(out, "| "+strings.Join(append([]string{r.name}, r.cells...), " | ")+" |")
	}
	return strings.Join(out, "\n") + "\n"
}
