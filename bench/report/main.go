// Command report writes the tables of a results directory, at every level:
//
//	report hollow DIR            summary.md of a hack/scale-bench.sh run (hollow.go)
//	report headline DIR          headline.md of a scripts/bench.sh run: upstream → probewheel (headline.go)
//	report capacity DIR          capacity.md of a scripts/bench.sh capacity sweep (capacity.go)
//	report density DIR           summary.md of a hack/e2e-density.sh run (density.go)
//	report storm DIR             summary.md of a hack/e2e-storm.sh run (storm.go)
//	report condense DUMPS DIR    DIR/summaries/ from the benchmark's raw dumps (condense.go)
//	report late FILE...          what held up the late arrivals of a traced window (late.go)
//	report shares DIR PROFILES   shares.md: a run's CPU by part, from the windows' CPU profiles (shares.go)
//
// Each writes its file and prints it. The plots are bench/plots/'s (Python,
// matplotlib); a summary links the ones it finds. scripts/plot.sh runs both.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// dirReports are the reports of one results directory: the file each
// writes there, and how it is made.
var dirReports = map[string]struct {
	file string
	make func(dir string) (string, error)
}{
	"hollow": {"summary.md", func(dir string) (string, error) {
		ws, err := loadHollow(dir)
		if err == nil && len(ws) == 0 {
			err = fmt.Errorf("%s: no runs/<workload>/<kubelet>-<round>.json", dir)
		}
		if err != nil {
			return "", err
		}
		return hollowSummary(dir, ws), nil
	}},
	"headline": {"headline.md", headlineReport},
	"capacity": {"capacity.md", capacityReport},
	"density":  {"summary.md", densityReport},
	"storm":    {"summary.md", stormReport},
}

func run(args []string) error {
	if len(args) < 2 {
		return errUsage
	}
	switch cmd := args[0]; {
	case cmd == "late":
		return lateReport(os.Stdout, args[1:])
	case cmd == "condense" && len(args) == 3:
		return condenseDumps(args[1], args[2])
	case cmd == "shares" && len(args) == 3:
		return sharesReport(args[1], args[2])
	}
	r, ok := dirReports[args[0]]
	if !ok || len(args) != 2 {
		return errUsage
	}
	text, err := r.make(args[1])
	if err != nil {
		return err
	}
	return write(filepath.Join(args[1], r.file), text)
}

var errUsage = errors.New("usage: report hollow|headline|capacity|density|storm DIR, report condense DUMPS DIR, report shares DIR PROFILES, or report late FILE...")

// write writes a report and prints it.
func write(path, text string) error {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Print(text)
	return nil
}
