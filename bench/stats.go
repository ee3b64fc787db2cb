package bench

import (
	"math"
	"slices"
)

// periodStats accumulates target-side timing over the measured windows.
type periodStats struct {
	period int64   // ns
	errs   []int64 // |interval − period| per interval, ns
	signed []int64 // interval − period, ns (for dumps)
	missed int64
	runs   int64   // arrivals inside the windows
	tail   []int64 // per target: missed runs already counted for the open gap
	dump   bool
	// lateOver > 0: intervals off by more than it are kept in lates (envTrace).
	lateOver int64
	lates    []lateArrival
}

// lateArrival is an interval more than periodStats.lateOver off its period.
type lateArrival struct {
	target   int
	at, diff int64 // the closing arrival (nowNs); interval − period
}

func newPeriodStats(period int64, nTargets int, dump bool) *periodStats {
	return &periodStats{period: period, tail: make([]int64, nTargets), dump: dump}
}

// missedIn is the number of expected runs that did not happen in a gap of length
// gap after a run: ticks at prev+k·period (k ≥ 1) more than half a period overdue.
func missedIn(gap, period int64) int64 {
	m := int64(math.Floor(float64(gap)/float64(period) - 0.5))
	if m < 0 {
		return 0
	}
	return m
}

// addTarget folds target i's arrivals (sorted) into the window (ws, we]. act is when
// the target should have been probed at the latest if it never was.
func (s *periodStats) addTarget(i int, arr []int64, ws, we, act int64) {
	var prev int64 = -1
	for _, a := range arr {
		if a > we {
			break
		}
		if a <= ws {
			prev = a
			continue
		}
		s.runs++
		if prev >= 0 {
			iv := a - prev
			d := iv - s.period
			if s.dump {
				s.signed = append(s.signed, d)
			}
			if s.lateOver > 0 && (d > s.lateOver || d < -s.lateOver) {
				s.lates = append(s.lates, lateArrival{target: i, at: a, diff: d})
			}
			if d < 0 {
				d = -d
			}
			s.errs = append(s.errs, d)
			if m := missedIn(iv, s.period) - s.tail[i]; m > 0 {
				s.missed += m
			}
		}
		s.tail[i] = 0
		prev = a
	}
	// The open gap at the window end.
	if prev < 0 {
		if act < ws {
			act = ws
		}
		prev = act
	}
	if m := missedIn(we-prev, s.period) - s.tail[i]; m > 0 {
		s.missed += m
		s.tail[i] += m
	}
}

// quantile returns the q-quantile (nearest rank) of sorted s.
func quantile(s []int64, q float64) int64 {
	if len(s) == 0 {
		return 0
	}
	k := int(math.Ceil(q*float64(len(s)))) - 1
	if k < 0 {
		k = 0
	}
	if k >= len(s) {
		k = len(s) - 1
	}
	return s[k]
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// peakInWindow returns the largest number of sorted timestamps within any
// half-open window of length w.
func peakInWindow(ts []int64, w int64) int {
	best, lo := 0, 0
	for hi := range ts {
		for ts[hi]-ts[lo] >= w {
			lo++
		}
		if n := hi - lo + 1; n > best {
			best = n
		}
	}
	return best
}

func sortInt64(s []int64) { slices.Sort(s) }
