package main

import (
	"math"
	"slices"

	"github.com/probewheel/probewheel/bench/measure"
)

// byKey groups event times by key, each in arrival order.
func byKey(evs []event, keep func(k int) bool) map[int][]int64 {
	m := map[int][]int64{}
	for _, e := range evs {
		if keep(int(e.k)) {
			m[int(e.k)] = append(m[int(e.k)], e.t)
		}
	}
	return m
}

// Lateness is what the targets saw of the probes' timing in a window:
// intervals between consecutive probes of one key that close in the window.
type Lateness struct {
	Intervals int     `json:"intervals"`
	Keys      int     `json:"keys"`      // keys probed at least once in the window
	Expected  int     `json:"expected"`  // keys that should have been
	P50AbsMs  float64 `json:"p50AbsMs"`  // |interval − period|
	P99AbsMs  float64 `json:"p99AbsMs"`  //
	P999AbsMs float64 `json:"p999AbsMs"` //
	MaxAbsMs  float64 `json:"maxAbsMs"`  //
	// Missed counts the runs missed in the window (measure.Missed), the open
	// gap at its end and keys never probed included.
	Missed int `json:"missed"`
}

// lateness measures keys (a set) over the events in the window (t0, t1]; every
// key is due by t0.
func lateness(evs []event, keys map[int]bool, t0, t1, period int64) Lateness {
	l := Lateness{Expected: len(keys)}
	iv := measure.NewIntervals(period)
	runs := byKey(evs, func(k int) bool { return keys[k] })
	for k := range keys {
		ts := runs[k]
		slices.Sort(ts)
		before := iv.Runs
		iv.Add(k, ts, t0, t1, t0)
		if iv.Runs > before { // probed in the window
			l.Keys++
		}
	}
	devs := make([]float64, len(iv.AbsDev))
	for i, d := range iv.AbsDev {
		devs[i] = float64(d) / 1e6
	}
	slices.Sort(devs)
	l.Intervals, l.Missed = len(devs), int(iv.Missed)
	l.P50AbsMs, l.P99AbsMs, l.P999AbsMs = measure.Quantile(devs, 0.5), measure.Quantile(devs, 0.99), measure.Quantile(devs, 0.999)
	if len(devs) > 0 {
		l.MaxAbsMs = devs[len(devs)-1]
	}
	return l
}

// flip is one readiness transition: when (Unix ns) and to which state
// (false: NotReady, true: Ready).
type flip struct {
	t     int64
	ready bool
}

// answer is one readiness probe as its target answered it.
type answer struct {
	t  int64
	ok bool
}

// dueFlips is the sequence of readiness transitions a kubelet must report
// for a check whose target gave answers (in arrival order), starting from
// ready: NotReady at the threshold-th failure in a row, Ready at the next
// success (successThreshold 1), each due at the answer that calls for it.
// This is the kubelet's rule (prober worker: a result takes effect after
// failureThreshold/successThreshold equal results in a row), so it holds for
// every answer the kubelet received, manual re-runs of a failing readiness
// probe included.
func dueFlips(answers []answer, ready bool, threshold int) []flip {
	var out []flip
	fails := 0
	for _, a := range answers {
		switch {
		case a.ok:
			fails = 0
			if !ready {
				ready = true
				out = append(out, flip{a.t, true})
			}
		case ready:
			if fails++; fails >= threshold {
				ready, fails = false, 0
				out = append(out, flip{a.t, false})
			}
		}
	}
	return out
}

// flipMatch is the outcome of matchFlips.
type flipMatch struct {
	Due, Paired, Lost, Extra int
}

// matchFlips pairs the transitions due (from the targets' answers) with the
// ones shown (the pod's Ready condition on the API, as the watch delivered
// it), in order: due transition i pairs with the first shown transition not
// yet paired that comes after the previous pair, goes the same way, and was
// shown at or after i was due (a status update cannot precede the answer
// that caused it) but before the next due transition the same way, i+2 (a
// NotReady first shown after the next NotReady was due is not this one: the
// control plane never saw this one). A due transition left unpaired is lost
// (the kubelet never reported it), a shown one left unpaired is extra (the
// answers did not call for it: a probe that timed out at the kubelet but was
// answered in time by the target, a restart, a bug). Greedy earliest pairing
// is the largest order-preserving pairing here: a shown transition that fits
// due i also fits every earlier due transition the same way.
func matchFlips(due, shown []flip) flipMatch {
	m := flipMatch{Due: len(due)}
	j := 0 // shown[:j] are paired or skipped
	for i, d := range due {
		for k := j; k < len(shown); k++ {
			s := shown[k]
			if i+2 < len(due) && s.t >= due[i+2].t {
				break
			}
			if s.ready == d.ready && s.t >= d.t {
				m.Paired++
				j = k + 1
				break
			}
		}
	}
	m.Lost = m.Due - m.Paired
	m.Extra = len(shown) - m.Paired
	return m
}

// Restart is what the targets saw after a kubelet restart, for one node.
type Restart struct {
	Keys     int `json:"keys"`     // readiness and liveness probes of the node
	Unprobed int `json:"unprobed"` // of those, never probed after the restart
	// Delay from the new kubelet process's start to each key's first probe.
	FirstP50S float64 `json:"firstP50S"`
	FirstMaxS float64 `json:"firstMaxS"`
	// FirstSpanS: from the first of those first probes to the last.
	FirstSpanS float64 `json:"firstSpanS"`
	// StartupProbes: startup probes seen after the restart (the kubelet skips
	// them for containers that already started).
	StartupProbes int `json:"startupProbes"`
	// BurstFirst: the most readiness and liveness probes in a 100 ms window during the
	// period that starts with the first probe after the restart, over the
	// mean a 100 ms window would hold if every key were probed once per
	// period (bench/'s RestartBurst definition).
	BurstFirst float64 `json:"burstFirst"`
	// BurstSteady: the same over the first full period after every key has
	// been probed, against that period's own mean: how evenly the restarted
	// kubelet spread its probes once all of them run.
	BurstSteady float64 `json:"burstSteady"`
	// Timeline: probes per 100 ms from the new process's start.
	Timeline []int `json:"timeline,omitempty"`
}

const burstBucket = int64(100e6) // 100 ms

// restartStats measures one node's restart: evs are the events since the new
// process started at t0, keys the node's readiness and liveness keys, startup
// its startup keys.
func restartStats(evs []event, keys, startup map[int]bool, t0, period int64, timelineLen int64) Restart {
	r := Restart{Keys: len(keys)}
	first := map[int]int64{}
	var ts []int64
	for _, e := range evs {
		k := int(e.k)
		if e.t < t0 {
			continue
		}
		if startup[k] {
			r.StartupProbes++
		}
		if !keys[k] {
			continue
		}
		ts = append(ts, e.t)
		if _, ok := first[k]; !ok {
			first[k] = e.t
		}
	}
	slices.Sort(ts)
	r.Unprobed = len(keys) - len(first)
	var delays []float64
	var lo, hi int64 = math.MaxInt64, 0
	for _, t := range first {
		delays = append(delays, float64(t-t0)/1e9)
		lo, hi = min(lo, t), max(hi, t)
	}
	slices.Sort(delays)
	if len(delays) > 0 {
		r.FirstP50S = measure.Quantile(delays, 0.5)
		r.FirstMaxS = delays[len(delays)-1]
		r.FirstSpanS = float64(hi-lo) / 1e9
	}
	window := func(from int64) []int64 {
		i := slices.IndexFunc(ts, func(t int64) bool { return t >= from })
		if i < 0 {
			return nil
		}
		j := i
		for j < len(ts) && ts[j] < from+period {
			j++
		}
		return ts[i:j]
	}
	buckets := float64(period) / float64(burstBucket)
	if len(ts) > 0 && len(keys) > 0 {
		r.BurstFirst = float64(measure.PeakInWindow(window(ts[0]), burstBucket)) / (float64(len(keys)) / buckets)
	}
	if r.Unprobed == 0 && len(delays) > 0 {
		if w := window(hi); len(w) > 0 && ts[len(ts)-1] >= hi+period {
			r.BurstSteady = float64(measure.PeakInWindow(w, burstBucket)) / (float64(len(w)) / buckets)
		}
	}
	if timelineLen > 0 {
		r.Timeline = make([]int, timelineLen/burstBucket)
		for _, t := range ts {
			if b := (t - t0) / burstBucket; b < int64(len(r.Timeline)) {
				r.Timeline[b]++
			}
		}
	}
	return r
}
