package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSummarizeLate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w0.late")
	// A 1 s period, the window from 1 s; target 7 closed an interval 20 ms
	// too long at 1.5 s; target 9's interval was 15 ms short, so its opening
	// arrival (at 2.2 s − 0.985 s) was late; target 9 is a pod added at the
	// window's start.
	late := "period_ns=1000000000\nwindow_start_ns=1000000000\nfirst_added_target=8\ngc_end_ms= 480 1300\n" +
		"7 1500000000 20000000\n9 2200000000 -15000000\n"
	if err := os.WriteFile(p, []byte(late), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := summarizeLate(&b, p); err != nil {
		t.Fatal(err)
	}
	want := "== " + p + ": 2 intervals off > 12 ms, worst 20.00 ms; GC ends at 480, 1300 ms\n" +
		"    20.00 ms late at     500.0 ms, target 7, nearest GC end -20 ms\n" +
		"    15.00 ms late at     215.0 ms, target 9 (added pod), nearest GC end +265 ms\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestExplainTrace(t *testing.T) {
	// G5, the wheel loop, logs target 3's arrival at 20 ms, 12 ms late; P0
	// ran a GC worker for 10 ms before; a GC mark assist too short to show
	// and a stop-the-world that does.
	parsed := strings.Join([]string{
		"M=1 P=0 G=5 StateTransition Time=1000000 GoID=5 Undetermined->Running Reason=\"\"",
		"\truntime.wheelLoop",
		"M=1 P=0 G=5 StateTransition Time=2000000 GoID=5 Running->Waiting Reason=\"select\"",
		"M=1 P=0 G=6 StateTransition Time=6000000 GoID=6 Runnable->Running Reason=\"\"",
		"\truntime.gcBgMarkWorker",
		"M=1 P=0 G=6 RangeBegin Time=6000000 Name=\"GC mark assist\" Scope=Goroutine(6)",
		"M=1 P=0 G=6 RangeEnd Time=6100000 Name=\"GC mark assist\" Scope=Goroutine(6)",
		"M=1 P=0 G=-1 RangeBegin Time=7000000 Name=\"stop-the-world (GC)\" Scope=Global",
		"M=1 P=0 G=-1 RangeEnd Time=8000000 Name=\"stop-the-world (GC)\" Scope=Global",
		"M=1 P=0 G=6 StateTransition Time=16000000 GoID=6 Running->Waiting Reason=\"\"",
		"M=1 P=0 G=5 StateTransition Time=19000000 GoID=5 Waiting->Running Reason=\"\"",
		"M=1 P=0 G=5 Log Time=20000000 Task=0 Category=\"probewheel-arrival\" Message=\"3\"",
	}, "\n")
	tr, err := parseTraceText(strings.NewReader(parsed))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	explainTrace(&b, "w0.trace", tr, 1e9, []lateInterval{{3, 20000000, 12000000}, {4, 20000000, 13000000}})
	got := b.String()
	for _, want := range []string{
		"-- target 3: arrived 12.00 ms late at +14.00 ms of the view (view starts 14.00 ms before), on G5 (wheel loop)",
		"      13.00  G5 Waiting->Running  P0", // the view starts at 20 − 12 − 2 = 6 ms
		"   P0: ran GC worker 10.00, wheel loop G5 1.00 (ms)",
		"          0.00-10.00    GC worker G6",
		"   stop-the-world (GC): 1.00-2.00 ms",
		"-- target 4 at 20000000: arrival not in the trace (before it started?)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "GC mark assist") {
		t.Errorf("a mark assist under 0.5 ms shows:\n%s", got)
	}
}
