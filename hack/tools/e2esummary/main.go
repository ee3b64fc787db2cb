// Command e2esummary compares ginkgo JSON reports of upstream's e2e.test run
// against the stock and the patched kubelet (hack/e2e-upstream.sh):
//
//	e2esummary -o summary.md stock=stock/report.json patched=patched/report.json
//
// It writes one Markdown table, a row per spec with its state and run time
// under each kubelet, and exits 1 when a spec that passed on the first
// kubelet (the reference, stock) did not pass on another one: the issue's
// bar is "the patched kubelet passes every spec the stock one passes". It
// also exits 1 when no spec ran at all or a kubelet passed none (a broken
// setup must not read as "no regression"). A single report gives the table
// (CI's conformance run; hack/e2e-upstream.sh then requires every spec to pass).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sort"
	"strings"
	"time"
)

// specReport is the part of ginkgo's types.SpecReport the table needs.
type specReport struct {
	ContainerHierarchyTexts []string
	LeafNodeText            string
	LeafNodeType            string
	State                   string
	RunTime                 time.Duration
	Failure                 *struct{ Message string }
}

type suiteReport struct {
	SuiteSucceeded bool
	RunTime        time.Duration
	SpecReports    []specReport
}

type result struct {
	state   string
	runTime time.Duration
	failure string
}

type run struct {
	name    string
	runTime time.Duration
	specs   map[string]result
}

func main() {
	out := flag.String("o", "", "Markdown output (default stdout)")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: e2esummary [-o out.md] name=report.json...")
	}
	var runs []run
	for _, arg := range flag.Args() {
		name, path, ok := strings.Cut(arg, "=")
		if !ok {
			log.Fatalf("%q: want name=report.json", arg)
		}
		r, err := load(name, path)
		if err != nil {
			log.Fatal(err)
		}
		runs = append(runs, r)
	}
	w := io.Writer(os.Stdout)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		w = f
	}
	regressions := table(w, runs)
	for _, r := range regressions {
		fmt.Fprintln(os.Stderr, "REGRESSION:", r)
	}
	if len(regressions) > 0 {
		os.Exit(1)
	}
}

func load(name, path string) (run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return run{}, err
	}
	var suites []suiteReport
	if err := json.Unmarshal(b, &suites); err != nil {
		return run{}, fmt.Errorf("%s: %w", path, err)
	}
	r := run{name: name, specs: map[string]result{}}
	for _, s := range suites {
		r.runTime += s.RunTime
		for _, sp := range s.SpecReports {
			if sp.LeafNodeType != "It" {
				continue // suite-level setup and teardown nodes
			}
			res := result{state: sp.State, runTime: sp.RunTime}
			if sp.Failure != nil {
				res.failure = firstLine(sp.Failure.Message)
			}
			r.specs[specName(sp)] = res
		}
	}
	if len(r.specs) == 0 {
		return run{}, fmt.Errorf("%s: no specs", path)
	}
	return r, nil
}

func specName(sp specReport) string {
	return strings.Join(append(append([]string{}, sp.ContainerHierarchyTexts...), sp.LeafNodeText), " ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// table writes the comparison and returns the specs that passed on runs[0]
// but not on a later run. Skipped specs (focus excluded them) are left out.
func table(w io.Writer, runs []run) []string {
	names := map[string]bool{}
	for _, r := range runs {
		for n, res := range r.specs {
			if res.state != "skipped" && res.state != "pending" {
				names[n] = true
			}
		}
	}
	if len(names) == 0 {
		// Every spec skipped: the focus matched nothing or the suite's setup failed.
		return []string{"no spec ran in any report (focus matched nothing, or the suite setup failed)"}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)

	fmt.Fprint(w, "| spec |")
	for _, r := range runs {
		fmt.Fprintf(w, " %s |", r.name)
	}
	fmt.Fprint(w, "\n|---|")
	for range runs {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	var regressions []string
	for _, n := range sorted {
		fmt.Fprintf(w, "| %s |", strings.ReplaceAll(n, "|", `\|`))
		for i, r := range runs {
			res, ok := r.specs[n]
			switch {
			case !ok:
				fmt.Fprint(w, " not run |")
			default:
				fmt.Fprintf(w, " %s %s |", res.state, res.runTime.Round(time.Second))
			}
			if i > 0 && runs[0].specs[n].state == "passed" && res.state != "passed" {
				regressions = append(regressions, fmt.Sprintf("%s: passed on %s, %s on %s (%s)", n, runs[0].name, orNotRun(res.state), r.name, res.failure))
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, r := range runs {
		counts := map[string]int{}
		for n := range names {
			if res, ok := r.specs[n]; ok {
				counts[res.state]++
			}
		}
		if counts["passed"] == 0 {
			regressions = append(regressions, r.name+": no spec passed (the cluster or the suite setup is broken)")
		}
		fmt.Fprintf(w, "- %s: %d passed, %d failed, %d other, suite wall time %s\n",
			r.name, counts["passed"], counts["failed"], len(names)-counts["passed"]-counts["failed"], r.runTime.Round(time.Second))
		for _, n := range sorted {
			if res, ok := r.specs[n]; ok && res.state != "passed" && res.failure != "" {
				fmt.Fprintf(w, "  - %s %s: %s\n", res.state, n, res.failure)
			}
		}
	}
	return regressions
}

func orNotRun(s string) string {
	if s == "" {
		return "not run"
	}
	return s
}
