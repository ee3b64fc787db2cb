package measure

import "math"

// Quantile is the q-quantile of sorted by nearest rank: the smallest value
// with at least a q share of the values at or below it. Empty: 0.
func Quantile[T int64 | float64](sorted []T, q float64) T {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

// PeakInWindow is the largest number of sorted timestamps within any
// half-open window [t, t+w): the height of a burst, such as the first runs
// after a kubelet restart.
func PeakInWindow(ts []int64, w int64) int {
	best, lo := 0, 0
	for hi := range ts {
		for ts[hi]-ts[lo] >= w {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}
