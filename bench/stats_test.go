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
			ps := newPeriodStats(sec, false)
			ps.lateOver = c.lateOver
			ps.Add(7, c.arr, sec+500*ms, 4*sec, 0)
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
