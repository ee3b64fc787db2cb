//go:build linux

package bench

import (
	"net"
	"testing"
	"time"

	"k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// Unit tests of the harness's own bookkeeping (go test ./bench/ runs these, no benchmarks).

const sec = int64(time.Second)

func TestMissedIn(t *testing.T) {
	for _, c := range []struct {
		gap  float64 // periods
		want int64
	}{{0.2, 0}, {1, 0}, {1.49, 0}, {1.51, 1}, {2, 1}, {2.6, 2}, {10, 9}} {
		if got := missedIn(int64(c.gap*float64(sec)), sec); got != c.want {
			t.Errorf("missedIn(%.2f periods) = %d, want %d", c.gap, got, c.want)
		}
	}
}

func TestPeriodStats(t *testing.T) {
	ps := newPeriodStats(sec, 3, true)
	ms := int64(time.Millisecond)
	// Target 0: on time with +3 ms jitter; one run missing in the window (4 s → 6 s).
	ps.addTarget(0, []int64{1 * sec, 2*sec + 3*ms, 3 * sec, 4 * sec, 6 * sec, 7 * sec}, 2*sec+500*ms, 7*sec+400*ms, 0)
	// Target 1: stops after 3 s: the open gap at the window end counts missed runs.
	ps.addTarget(1, []int64{1 * sec, 2 * sec, 3 * sec}, 2*sec+500*ms, 7*sec+400*ms, 0)
	// Target 2: never probed; should have been from 5 s on.
	ps.addTarget(2, nil, 2*sec+500*ms, 7*sec+400*ms, 5*sec)
	if ps.runs != 4+1 {
		t.Errorf("runs = %d, want 5", ps.runs)
	}
	// Target 0: 1 (the 4→6 gap); target 1: 3→7.4 s, runs due at 4, 5, 6 (7 is not yet
	// half a period late) → 3; target 2: due at 6 → 1.
	if ps.missed != 1+3+1 {
		t.Errorf("missed = %d, want 5", ps.missed)
	}
	// Next window: target 1 resumes at 8 s (gap 5 periods → 4 missed, 3 already counted).
	ps.addTarget(1, []int64{1 * sec, 2 * sec, 3 * sec, 8 * sec}, 7*sec+400*ms, 8*sec+500*ms, 0)
	if ps.missed != 5+1 {
		t.Errorf("missed after resume = %d, want 6", ps.missed)
	}
	// Errors: target 0 intervals ending in the window: 3−2.003, 4−3, 6−4, 7−6 → 3 ms, 0, 1 s, 0;
	// target 1: 3−2 → 0; then 8−3 → 4 s.
	if len(ps.errs) != 6 || len(ps.signed) != 6 {
		t.Fatalf("errs = %v", ps.errs)
	}
	sortInt64(ps.errs)
	if got := quantile(ps.errs, 1); got != 4*sec {
		t.Errorf("max error = %d, want 4s", got)
	}
	if got := ps.errs[3]; got != 3*ms {
		t.Errorf("errs = %v, want a 3 ms entry", ps.errs)
	}
}

func TestQuantile(t *testing.T) {
	s := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		q    float64
		want int64
	}{{0.5, 5}, {0.99, 10}, {1, 10}, {0, 1}, {0.1, 1}, {0.11, 2}} {
		if got := quantile(s, c.q); got != c.want {
			t.Errorf("quantile(%v) = %d, want %d", c.q, got, c.want)
		}
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("quantile(nil) != 0")
	}
}

func TestPeakInWindow(t *testing.T) {
	w := int64(100)
	if got := peakInWindow([]int64{0, 10, 20, 99, 100, 150, 199, 200, 500}, w); got != 4 {
		t.Errorf("peak = %d, want 4", got)
	}
	if got := peakInWindow(nil, w); got != 0 {
		t.Errorf("peak(nil) = %d", got)
	}
}

func TestTargetsAccounting(t *testing.T) {
	tg, err := newTargets(2*nKinds, 16, 1, [nKinds][2]int32{{1, 3}, {1, 1}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.close()
	live, ready := kLive, nKinds+kReady
	// Readiness starts at Failure: S (→1), S, F (→2), F, S (→3).
	for _, r := range []results.Result{results.Success, results.Success, results.Failure, results.Failure, results.Success} {
		tg.answer(ready, r)
	}
	if got := tg.expected(ready); got != 3 {
		t.Errorf("readiness transitions = %d, want 3", got)
	}
	// Liveness starts at Success, failureThreshold 3: F F S F F F (→1).
	for _, r := range []results.Result{results.Failure, results.Failure, results.Success, results.Failure, results.Failure, results.Failure} {
		tg.answer(live, r)
	}
	if got := tg.expected(live); got != 1 {
		t.Errorf("liveness transitions = %d, want 1", got)
	}
	// Ring: more arrivals than its capacity keep the latest ones, in order.
	for k := 0; k < 40; k++ {
		tg.arrive(2)
	}
	arr := tg.arrivals(2, nil)
	if len(arr) != tg.ringCap() {
		t.Fatalf("arrivals = %d, want %d", len(arr), tg.ringCap())
	}
	for k := 1; k < len(arr); k++ {
		if arr[k] < arr[k-1] {
			t.Fatalf("arrivals out of order: %v", arr)
		}
	}
	if tg.first[2].Load() == 0 || tg.first[2].Load() > arr[0] {
		t.Errorf("first arrival %d not before the ring's oldest %d", tg.first[2].Load(), arr[0])
	}
}

func TestAddressing(t *testing.T) {
	for _, p := range []int{0, 1, 253, 254, 9999, 60000} {
		slot, pod, ok := decodeIP(net.ParseIP(podIP(7, p)))
		if !ok || slot != 7 || pod != p {
			t.Errorf("podIP(7, %d) = %s decodes to %d %d %v", p, podIP(7, p), slot, pod, ok)
		}
	}
	if s, i, ok := parseGenTarget([]byte("12/3456")); !ok || s != 12 || i != 3456 {
		t.Errorf("parseGenTarget = %d %d %v", s, i, ok)
	}
	if c, ok := parseCID("3-77"); !ok || c != 77 {
		t.Errorf("parseCID = %d %v", c, ok)
	}
}

// TestPeriodStatsLates: with lateOver set, intervals off by more than it are
// kept with their sign and arrival, whichever way they are off.
func TestPeriodStatsLates(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, c := range []struct {
		name     string
		lateOver int64
		arr      []int64
		want     []lateArrival
	}{
		{"off", 0, []int64{1 * sec, 2*sec + 20*ms, 3 * sec}, nil},
		{"late then early", 12 * ms, []int64{1 * sec, 2*sec + 20*ms, 3 * sec},
			[]lateArrival{{7, 2*sec + 20*ms, 20 * ms}, {7, 3 * sec, -20 * ms}}},
		{"under the bound", 12 * ms, []int64{1 * sec, 2*sec + 12*ms, 3*sec + 12*ms}, nil},
		{"before the window", 12 * ms, []int64{0, 1*sec + 50*ms, 2*sec + 50*ms}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := newPeriodStats(sec, 8, false)
			ps.lateOver = c.lateOver
			ps.addTarget(7, c.arr, sec+500*ms, 4*sec, 0)
			if len(ps.lates) != len(c.want) {
				t.Fatalf("lates = %v, want %v", ps.lates, c.want)
			}
			for k := range c.want {
				if ps.lates[k] != c.want[k] {
					t.Errorf("lates[%d] = %v, want %v", k, ps.lates[k], c.want[k])
				}
			}
		})
	}
}
