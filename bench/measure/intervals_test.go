package measure

import (
	"os"
	"slices"
	"testing"
	"time"
)

const (
	sec = int64(time.Second)
	ms  = int64(time.Millisecond)
)

func TestMissed(t *testing.T) {
	for _, c := range []struct {
		name   string
		gap    int64
		period int64
		want   int64
	}{
		{"a run on time", sec, sec, 0},
		{"early", 200 * ms, sec, 0},
		{"late by under half a period", 1499 * ms, sec, 0},
		{"exactly 1.5 periods: late, not missed", 1500 * ms, sec, 0},
		{"just over 1.5 periods", 1500*ms + 1, sec, 1},
		{"exactly 2 periods", 2 * sec, sec, 1},
		{"exactly 2.5 periods", 2500 * ms, sec, 1},
		{"just over 2.5 periods", 2500*ms + 1, sec, 2},
		{"exactly 3 periods", 3 * sec, sec, 2},
		{"10 periods", 10 * sec, sec, 9},
		{"a 10 s period, 25 s gap", 25 * sec, 10 * sec, 1},
		{"an hour-long period, a day's gap", 24 * 3600 * sec, 3600 * sec, 23},
		{"no gap", 0, sec, 0},
		{"a negative gap", -sec, sec, 0},
		{"no period", 5 * sec, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Missed(c.gap, c.period); got != c.want {
				t.Errorf("Missed(%v, %v) = %d, want %d", time.Duration(c.gap), time.Duration(c.period), got, c.want)
			}
		})
	}
}

func TestIntervals(t *testing.T) {
	type window struct {
		runs            []int64
		start, end, due int64
		wantMissed      int64 // total after this window
		wantRuns        int64 // total after this window
	}
	for _, c := range []struct {
		name       string
		windows    []window
		wantAbsDev []int64 // sorted
	}{
		{
			name:       "on time, with jitter",
			windows:    []window{{[]int64{1 * sec, 2*sec + 3*ms, 3 * sec, 4 * sec}, 1500 * ms, 4200 * ms, 0, 0, 3}},
			wantAbsDev: []int64{0, 3 * ms, 3 * ms},
		},
		{
			name:       "one run missing: a gap of 2 periods",
			windows:    []window{{[]int64{1 * sec, 2 * sec, 4 * sec, 5 * sec}, 1500 * ms, 5200 * ms, 0, 1, 3}},
			wantAbsDev: []int64{0, 0, sec},
		},
		{
			name:       "a gap of exactly 1.5 periods is late, not missed",
			windows:    []window{{[]int64{1 * sec, 2500 * ms, 3500 * ms}, 500 * ms, 3600 * ms, 0, 0, 3}},
			wantAbsDev: []int64{0, 500 * ms},
		},
		{
			name:       "a gap of 3 periods misses two",
			windows:    []window{{[]int64{1 * sec, 4 * sec, 5 * sec}, 500 * ms, 5200 * ms, 0, 2, 3}},
			wantAbsDev: []int64{0, 2 * sec},
		},
		{
			// Runs due at 4, 5 and 6 s are over half a period overdue at 7.4 s; 7 is not yet.
			name:       "the open gap at the window's end",
			windows:    []window{{[]int64{1 * sec, 2 * sec, 3 * sec}, 500 * ms, 7400 * ms, 0, 3, 3}},
			wantAbsDev: []int64{0, 0},
		},
		{
			// The manual run at 2.4 s restarts the period: 2.4 → 3.4 is on time.
			name:       "a manual run inside a period",
			windows:    []window{{[]int64{1 * sec, 2 * sec, 2400 * ms, 3400 * ms, 4400 * ms}, 500 * ms, 4500 * ms, 0, 0, 5}},
			wantAbsDev: []int64{0, 0, 0, 600 * ms},
		},
		{
			// 3 → 7.4 s counts 3 at the first window's end; the run at 8 s closes a
			// gap of 5 periods (4 missed), of which only the fourth is new.
			name: "a gap across two windows counts once",
			windows: []window{
				{[]int64{1 * sec, 2 * sec, 3 * sec}, 2500 * ms, 7400 * ms, 0, 3, 1},
				{[]int64{1 * sec, 2 * sec, 3 * sec, 8 * sec}, 7400 * ms, 8500 * ms, 0, 4, 2},
			},
			wantAbsDev: []int64{0, 4 * sec},
		},
		{
			name:       "never run, due inside the window",
			windows:    []window{{nil, 2500 * ms, 7400 * ms, 5 * sec, 1, 0}},
			wantAbsDev: nil,
		},
		{
			name:       "never run, due before the window: the gap opens at its start",
			windows:    []window{{nil, 2500 * ms, 7400 * ms, 0, 4, 0}},
			wantAbsDev: nil,
		},
		{
			name:       "never run, not due yet",
			windows:    []window{{nil, 2500 * ms, 7400 * ms, 8 * sec, 0, 0}},
			wantAbsDev: nil,
		},
		{
			name:       "runs before and after the window only",
			windows:    []window{{[]int64{1 * sec, 9 * sec}, 2 * sec, 2900 * ms, 0, 1, 0}},
			wantAbsDev: nil,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			iv := NewIntervals(sec)
			var seen []int64
			iv.OnInterval = func(key int, at, diff int64) {
				if key != 7 {
					t.Errorf("OnInterval saw key %d, want 7", key)
				}
				seen = append(seen, max(diff, -diff))
			}
			for i, w := range c.windows {
				iv.Add(7, w.runs, w.start, w.end, w.due)
				if iv.Missed != w.wantMissed || iv.Runs != w.wantRuns {
					t.Errorf("after window %d: missed %d, runs %d; want %d, %d", i, iv.Missed, iv.Runs, w.wantMissed, w.wantRuns)
				}
			}
			got := slices.Sorted(slices.Values(iv.AbsDev))
			if !slices.Equal(got, c.wantAbsDev) {
				t.Errorf("AbsDev = %v, want %v", got, c.wantAbsDev)
			}
			if slices.Sort(seen); !slices.Equal(seen, got) {
				t.Errorf("OnInterval saw %v, AbsDev holds %v", seen, got)
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	v := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		q    float64
		want int64
	}{{0, 1}, {0.1, 1}, {0.5, 5}, {0.51, 6}, {0.99, 10}, {1, 10}} {
		if got := Quantile(v, c.q); got != c.want {
			t.Errorf("Quantile(1..10, %v) = %d, want %d", c.q, got, c.want)
		}
	}
	if got := Quantile([]float64(nil), 0.5); got != 0 {
		t.Errorf("Quantile(empty) = %v, want 0", got)
	}
}

func TestPeakInWindow(t *testing.T) {
	for _, c := range []struct {
		ts   []int64
		w    int64
		want int
	}{
		{nil, 10, 0},
		{[]int64{5}, 10, 1},
		{[]int64{0, 10, 20, 100, 105, 109, 300}, 10, 3},
		{[]int64{0, 9, 10}, 10, 2}, // [0, 10) holds 0 and 9, not 10
		{[]int64{3, 3, 3, 3}, 1, 4},
	} {
		if got := PeakInWindow(c.ts, c.w); got != c.want {
			t.Errorf("PeakInWindow(%v, %d) = %d, want %d", c.ts, c.w, got, c.want)
		}
	}
}

func TestProc(t *testing.T) {
	pid := os.Getpid()
	if cpu, err := ProcCPU(pid); err != nil || cpu < 0 {
		t.Errorf("ProcCPU(self) = %v, %v", cpu, err)
	}
	own, err1 := ProcCPU(pid)
	all, err2 := ProcCPUWithChildren(pid)
	if err1 != nil || err2 != nil || all < own {
		t.Errorf("ProcCPUWithChildren(self) = %v, %v; ProcCPU(self) = %v, %v", all, err2, own, err1)
	}
	if n, err := ProcThreads(pid); err != nil || n < 1 {
		t.Errorf("ProcThreads(self) = %v, %v", n, err)
	}
	if rss, err := ProcRSSMiB(pid); err != nil || rss <= 0 {
		t.Errorf("ProcRSSMiB(self) = %v, %v", rss, err)
	}
	if busy, err := HostBusy(); err != nil || busy <= 0 {
		t.Errorf("HostBusy() = %v, %v", busy, err)
	}
	if load, err := LoadAvg(); err != nil || load < 0 {
		t.Errorf("LoadAvg() = %v, %v", load, err)
	}
	// PIDs stop short of 2^22 on Linux: this one cannot exist.
	if _, err := ProcCPU(1 << 30); err == nil {
		t.Error("ProcCPU of a process that does not exist: no error")
	}
	if _, err := ProcThreads(1 << 30); err == nil {
		t.Error("ProcThreads of a process that does not exist: no error")
	}
	if _, err := ProcRSSMiB(1 << 30); err == nil {
		t.Error("ProcRSSMiB of a process that does not exist: no error")
	}
}
