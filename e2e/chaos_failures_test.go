//go:build e2e

package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// failureLog tells a readiness flip that a probe caused from a lost or
// invented result. Under the churn's load (a 1-minute load of ~100 on 2
// cores) an HTTP readiness probe with a 1 s timeout fails now and then on
// either kubelet; the pod turns NotReady and, a second later, Ready again.
// That is a result delivered, not lost. What TestChaos must catch is a
// readiness change that no probe run explains.
//
// The kubelet counts every run in prober_probe_total{probe_type, result,
// pod, namespace} (upstream's metric, on /metrics/probes). failureLog polls
// it and keeps, per pod, the poll intervals in which the pod's failed
// readiness runs went up. A readiness change of pod P at time T (the watch's
// NotReady, or a Ready condition's lastTransitionTime) is explained when a
// failed run of P fell in an interval that starts before T and ends no more
// than failureLead before it: the failure comes first, the status manager
// writes it later (seconds under this load).
//
// A kubelet restart starts the counters at 0 again: a count below the last
// one seen is taken as new failures since the restart.
type failureLog struct {
	mu        sync.Mutex
	last      map[string]float64 // pod -> failed readiness runs at the last poll
	lastPoll  time.Time
	intervals map[string][]failureInterval
	polls     int
	errors    int

	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// failureInterval: between two polls, n failed readiness runs of a pod.
type failureInterval struct {
	from, to time.Time
	n        float64
}

// failureLead bounds how long before a readiness change the failure that
// caused it may have run. The churn measured creation-to-Ready p99 of 33-83 s
// on this machine: a status write can trail its probe by tens of seconds.
const failureLead = 90 * time.Second

// failurePoll is how often /metrics/probes is read.
const failurePoll = 5 * time.Second

func startFailureLog(t *testing.T, node, ns string) *failureLog {
	ctx, cancel := context.WithCancel(context.Background())
	l := &failureLog{last: map[string]float64{}, intervals: map[string][]failureInterval{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(failurePoll)
		defer tick.Stop()
		for {
			text, err := tryNodeKubeletGet(node, "metrics", "probes")
			if err == nil {
				l.record(time.Now(), readinessFailures(text, ns))
			} else {
				l.mu.Lock()
				l.errors++
				l.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(l.stop)
	return l
}

func (l *failureLog) stop() { l.once.Do(func() { l.cancel(); <-l.done }) }

// record takes one poll's counts (pod -> failed readiness runs).
func (l *failureLog) record(now time.Time, counts map[string]float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.polls++
	if !l.lastPoll.IsZero() {
		for pod, n := range counts {
			d := n - l.last[pod]
			if d < 0 { // a new kubelet: its counter started at 0
				d = n
			}
			if d > 0 {
				l.intervals[pod] = append(l.intervals[pod], failureInterval{from: l.lastPoll, to: now, n: d})
			}
		}
	}
	l.last, l.lastPoll = counts, now
}

// explains tells whether a failed readiness run of pod explains a readiness
// change seen at t.
func (l *failureLog) explains(pod string, t time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, iv := range l.intervals[pod] {
		if iv.from.Before(t) && !iv.to.Before(t.Add(-failureLead)) {
			return true
		}
	}
	return false
}

// failedRuns is every failed readiness run the log saw, per pod.
func (l *failureLog) failedRuns() map[string]float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := map[string]float64{}
	for pod, ivs := range l.intervals {
		for _, iv := range ivs {
			n[pod] += iv.n
		}
	}
	return n
}

// readinessFailures reads prober_probe_total's failed readiness runs per
// pod of the namespace from a /metrics/probes text.
func readinessFailures(text, ns string) map[string]float64 {
	counts := map[string]float64{}
	metricSeries(text, "prober_probe_total", func(labels string, v float64) {
		if !strings.Contains(labels, `namespace="`+ns+`"`) || !strings.Contains(labels, `probe_type="Readiness"`) ||
			!strings.Contains(labels, `result="failed"`) {
			return
		}
		if pod := label(labels, "pod"); pod != "" {
			counts[pod] += v
		}
	})
	return counts
}

// label is the value of name in a Prometheus label set `{a="x",b="y"}`.
func label(set, name string) string {
	i := strings.Index(set, name+`="`)
	for i > 0 && set[i-1] != '{' && set[i-1] != ',' { // "pod" inside "pod_uid"'s name
		j := strings.Index(set[i+1:], name+`="`)
		if j < 0 {
			return ""
		}
		i += 1 + j
	}
	if i < 0 {
		return ""
	}
	rest := set[i+len(name)+2:]
	if j := strings.IndexByte(rest, '"'); j >= 0 {
		return rest[:j]
	}
	return ""
}

// TestChaosFailureLog pins failureLog's rules: which readiness changes a
// failed run explains, across a kubelet restart, and the metric parsing.
func TestChaosFailureLog(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	l := &failureLog{last: map[string]float64{}, intervals: map[string][]failureInterval{}}
	l.record(at(0), map[string]float64{"p01": 2, "p02": 0})
	l.record(at(5), map[string]float64{"p01": 3, "p02": 0}) // p01 failed in (0, 5]
	l.record(at(10), map[string]float64{"p01": 3, "p02": 0})
	l.record(at(15), map[string]float64{"p01": 0, "p02": 1}) // kubelet restarted: p02 failed once since
	for _, tc := range []struct {
		pod  string
		t    time.Time
		want bool
	}{
		{"p01", at(4), true},                       // inside the interval
		{"p01", at(30), true},                      // the status written 25 s later
		{"p01", at(5).Add(failureLead + 1), false}, // too long after
		{"p01", at(0), false},                      // before the failure could run
		{"p02", at(12), true},                      // after the restart
		{"p02", at(9), false},                      // before the interval that held it
		{"p03", at(4), false},                      // never failed
	} {
		if got := l.explains(tc.pod, tc.t); got != tc.want {
			t.Errorf("explains(%s, +%v) = %v, want %v", tc.pod, tc.t.Sub(t0), got, tc.want)
		}
	}
	if got := l.failedRuns(); got["p01"] != 1 || got["p02"] != 1 || len(got) != 2 {
		t.Errorf("failedRuns = %v, want p01:1 p02:1", got)
	}

	text := `# TYPE prober_probe_total counter
prober_probe_total{container="target",namespace="ns1",pod="p01",pod_uid="u1",probe_type="Readiness",result="failed"} 4
prober_probe_total{container="target",namespace="ns1",pod="p01",pod_uid="u1",probe_type="Readiness",result="successful"} 90
prober_probe_total{container="target",namespace="ns1",pod="p01",pod_uid="u1",probe_type="Liveness",result="failed"} 7
prober_probe_total{container="target",namespace="ns2",pod="p01",pod_uid="u2",probe_type="Readiness",result="failed"} 5
prober_probe_total{container="target",namespace="ns1",pod_uid="u3",pod="p02",probe_type="Readiness",result="failed"} 1
`
	if got := readinessFailures(text, "ns1"); got["p01"] != 4 || got["p02"] != 1 || len(got) != 2 {
		t.Errorf("readinessFailures = %v, want p01:4 p02:1", got)
	}
}
