// Package prober (bench/oracle) is the contract probewheel is held to: upstream's
// k8s.io/kubernetes/pkg/kubelet/prober of the main line's release, its prober.go and
// prober_manager.go as released and its worker.go with three test-only changes, each marked
// "oracle" (worker.patch holds them; hack/oracle.sh generates the package and make test checks
// that it is current):
//
//   - every run, the first, a tick's and a manual one, starts on the first tick of probewheel's
//     wheel at or after the instant upstream's worker would start it (onTheTick), the ticks
//     counted from the manager's start, as probewheel's scheduler counts them;
//   - a first probe within a period of the kubelet's start waits probewheel's spread, drawn in
//     the order AddPod creates the workers, instead of a random part of the period;
//   - where upstream's select finds several channels ready and picks one at random, it takes
//     the stop, then the trigger, then the tick (pick): probewheel's order, one of upstream's.
//
// Everything else — the manager's map, when a worker leaves it, the results managers, the
// metric series and when they are deleted — is upstream's code running at those instants.
// bench/parity compares probewheel with it exactly: every run, every result on every channel,
// every status UpdatePodStatus computes and every metric series, with no tolerance.
//
// This file is the only one written here; the others are generated.
package prober

import (
	"sync"
	"time"

	probewheel "github.com/probewheel/probewheel/pkg/kubelet/prober"
)

// onTheTick sleeps until the first tick of m's wheel at or after now; it reports true, so
// that it can stand before doProbe in upstream's loop condition.
func onTheTick(m *manager) bool {
	if wait := probewheel.UntilTick(time.Since(m.start)); wait > 0 {
		time.Sleep(wait)
	}
	return true
}

// spreads holds each manager's first-probe spread: its sequence is the manager's, as
// probewheel's is.
var spreads sync.Map // *manager → func(period time.Duration) time.Duration

// firstProbeDelay is the delay probewheel gives the next worker of m with period, 0 after a
// period of m's start. AddPod creates workers with its lock held: the order is AddPod's.
func firstProbeDelay(m *manager, period time.Duration) time.Duration {
	f, ok := spreads.Load(m)
	if !ok {
		f, _ = spreads.LoadOrStore(m, probewheel.FirstProbeDelays(m.start))
	}
	return f.(func(time.Duration) time.Duration)(period)
}

const (
	pickStop = iota
	pickTick
	pickTrigger
)

// pick is upstream's select with its ties broken: what is ready when it is called, the stop
// first, then the trigger, then the tick; else the first to come.
func pick(stop <-chan struct{}, tick <-chan time.Time, trigger <-chan struct{}) int {
	select {
	case <-stop:
		return pickStop
	default:
	}
	select {
	case <-trigger:
		return pickTrigger
	default:
	}
	select {
	case <-stop:
		return pickStop
	case <-tick:
		return pickTick
	case <-trigger:
		return pickTrigger
	}
}
