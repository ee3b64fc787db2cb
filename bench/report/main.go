// Command report writes the tables of a results directory, at every level:
//
//	report hollow DIR            summary.md of a hack/scale-bench.sh run (hollow.go)
//	report headline DIR          headline.md of a scripts/bench.sh run: upstream → probewheel (headline.go)
//	report capacity DIR          capacity.md of a scripts/bench.sh capacity sweep (capacity.go)
//	report density DIR           summary.md of a hack/e2e-density.sh run (density.go)
//	report condense DUMPS DIR    DIR/summaries/ from the benchmark's raw dumps (condense.go)
//	report late FILE...          what held up the late arrivals of a traced window (late.go)
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

func run(args []string) error {
	if len(args) < 2 {
		return errUsage
	}
	if args[0] == "late" {
		return lateReport(os.Stdout, args[1:])
	}
	switch cmd, dir := args[0], args[1]; {
	case cmd == "hollow" && len(args) == 2:
		ws, err := loadHollow(dir)
		if err != nil {
			return err
		}
		if len(ws) == 0 {
			return fmt.Errorf("%s: no runs/<workload>/<kubelet>-<round>.json", dir)
		}
		return write(filepath.Join(dir, "summary.md"), hollowSummary(dir, ws))
	case cmd == "headline" && len(args) == 2:
		text, err := headlineReport(dir)
		if err != nil {
			return err
		}
		return write(filepath.Join(dir, "headline.md"), text)
	case cmd == "capacity" && len(args) == 2:
		text, err := capacityReport(dir)
		if err != nil {
			return err
		}
		return write(filepath.Join(dir, "capacity.md"), text)
	case cmd == "density" && len(args) == 2:
		text, err := densityReport(dir)
		if err != nil {
			return err
		}
		return write(filepath.Join(dir, "summary.md"), text)
	case cmd == "condense" && len(args) == 3:
		return condenseDumps(dir, args[2])
	}
	return errUsage
}

var errUsage = errors.New("usage: report hollow|headline|capacity|density DIR, report condense DUMPS DIR, or report late FILE...")

// write writes a report and prints it.
func write(path, text string) error {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Print(text)
	return nil
}
