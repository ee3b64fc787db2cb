package bench

import "github.com/probewheel/probewheel/bench/measure"

// periodStats is the targets' view of the probes' timing over the measured
// windows: measure.Intervals keyed by target, plus what a dump or a trace of
// late arrivals asks for.
type periodStats struct {
	*measure.Intervals
	dump   bool
	signed []int64 // interval − period of every interval, for dumps
	// lateOver > 0: intervals off by more than it are kept in lates (envTrace).
	lateOver int64
	lates    []lateArrival
}

// lateArrival is an interval more than periodStats.lateOver off its period.
type lateArrival struct {
	target   int
	at, diff int64 // the closing arrival (nowNs); interval − period
}

func newPeriodStats(period int64, dump bool) *periodStats {
	ps := &periodStats{Intervals: measure.NewIntervals(period), dump: dump}
	ps.OnInterval = func(target int, at, diff int64) {
		if ps.dump {
			ps.signed = append(ps.signed, diff)
		}
		if ps.lateOver > 0 && (diff > ps.lateOver || diff < -ps.lateOver) {
			ps.lates = append(ps.lates, lateArrival{target: target, at: at, diff: diff})
		}
	}
	return ps
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }
