// Package measure holds what every level of probewheel's measurements shares:
// the intervals between a probe's runs and the one rule for a missed run,
// quantiles, the burst of a restart, and a process's CPU and memory from
// /proc. The in-process benchmarks (bench), the hollow-node driver (pwscale)
// and the cluster tests (e2e) all count with it, so a "missed run" is the same
// thing in every table.
//
// Times are int64 nanoseconds on any one clock (Unix or monotonic): only
// their differences matter.
package measure

// Missed is the number of runs a probe of the given period missed in a gap
// that follows one of its runs: the runs due at k periods after it (k ≥ 1)
// that the gap outlasts by more than half a period. A run that comes up to
// half a period late is late, not missed; a gap of exactly 1.5 periods
// misses none, one of 2 periods misses one, one of 3 periods misses two.
//
// The rule applies to a gap closed by the next run and to the open gap from
// a probe's last run to the end of a window alike (Intervals).
func Missed(gap, period int64) int64 {
	if period <= 0 || 2*gap <= 3*period {
		return 0
	}
	// The k ≥ 1 with (k + ½)·period < gap, in integers: k < (2·gap − period) / (2·period).
	return (2*gap - period - 1) / (2 * period)
}

// Intervals accumulates the intervals between the runs of probes that share
// a period, over windows, and the runs they missed. Each probe is a key; a
// window is the half-open span (start, end].
//
// An interval belongs to the window its closing run falls in; its opening run
// may precede the window. The open gap from a probe's last run to the end of
// a window counts its missed runs there, and the interval that later closes
// that gap counts only the ones beyond them, so a run missed across two
// windows is counted once.
type Intervals struct {
	Period int64
	// AbsDev is |interval − period| of every interval that closed in a window.
	AbsDev []int64
	// Missed is the runs missed in every window (Missed), open gaps included.
	Missed int64
	// Runs is the runs that fell inside a window.
	Runs int64
	// OnInterval, when set, sees each interval that closed in a window: its
	// key, its closing run and interval − period.
	OnInterval func(key int, at, diff int64)

	counted map[int]int64 // key → missed runs counted already in its open gap
}

// NewIntervals returns an empty Intervals for probes of period.
func NewIntervals(period int64) *Intervals {
	return &Intervals{Period: period, counted: map[int]int64{}}
}

// Add folds a probe's runs (sorted; any span) into the window (start, end].
// due is when the probe should have run at the latest if none of its runs
// falls at or before end: its open gap then runs from max(due, start). A
// probe with no run and a due time after end adds nothing.
func (iv *Intervals) Add(key int, runs []int64, start, end, due int64) {
	prev, seen := int64(0), false
	for _, r := range runs {
		if r > end {
			break
		}
		if r <= start {
			prev, seen = r, true
			continue
		}
		iv.Runs++
		if seen {
			d := r - prev - iv.Period
			if iv.OnInterval != nil {
				iv.OnInterval(key, r, d)
			}
			iv.AbsDev = append(iv.AbsDev, max(d, -d))
			if m := Missed(r-prev, iv.Period) - iv.counted[key]; m > 0 {
				iv.Missed += m
			}
		}
		iv.counted[key] = 0
		prev, seen = r, true
	}
	if !seen {
		if due > end {
			return
		}
		prev = max(due, start)
	}
	if m := Missed(end-prev, iv.Period) - iv.counted[key]; m > 0 {
		iv.Missed += m
		iv.counted[key] += m
	}
}
