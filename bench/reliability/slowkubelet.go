package reliability

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"

	"github.com/probewheel/probewheel/bench"
)

// SlowConfig shapes a slow-kubelet run.
type SlowConfig struct {
	Pods     int           `json:"pods"`
	Period   time.Duration `json:"period_ns"`
	Baseline time.Duration `json:"baseline_ns"` // draining, targets flipping
	Stall    time.Duration `json:"stall_ns"`    // nobody drains, targets flipping
	Drain    time.Duration `json:"drain_ns"`    // draining again, targets steady
	// Every FlipEvery, Flip of the readiness targets turn around.
	FlipEvery time.Duration `json:"flip_every_ns"`
	Flip      float64       `json:"flip"`
	// The liveness target of every SlowEvery-th pod answers after
	// SlowLatency: healthy, but slow work to a bounded pool.
	SlowEvery   int           `json:"slow_every"`
	SlowLatency time.Duration `json:"slow_latency_ns"`
}

func (c SlowConfig) Validate() error {
	if c.Pods < 1 || c.Period < time.Second || c.Period%time.Second != 0 || c.FlipEvery < c.Period {
		return fmt.Errorf("slow kubelet: want pods ≥ 1, a whole period of 1 s or more, flips at most once a period: %+v", c)
	}
	if c.Drain < 3*c.Period || c.Baseline < 2*c.Period || c.Stall < 2*c.Period {
		return fmt.Errorf("slow kubelet: want phases of at least two periods (three to drain): %+v", c)
	}
	return nil
}

// PhaseFigures is what one phase of a slow-kubelet run measured.
type PhaseFigures struct {
	// Liveness probes (targets always healthy): |interval − period|, of the
	// quick ones and of the slow ones.
	Liveness     lateness `json:"liveness"`
	SlowLiveness lateness `json:"slow_liveness"`
	// Probe runs that reached a target during the phase.
	Runs int64 `json:"probe_runs"`
	// Goroutines at most, sampled every period, and at most how many probe
	// runs were inside a target at once.
	MaxGoroutines int   `json:"max_goroutines"`
	MaxInTarget   int64 `json:"max_runs_in_target"`
	// Updates the drain loop read during the phase.
	Delivered int `json:"updates_delivered"`
}

// SlowResult is one implementation's slow-kubelet run.
type SlowResult struct {
	Impl     string       `json:"impl"`
	Mode     string       `json:"mode"`
	Config   SlowConfig   `json:"config"`
	Baseline PhaseFigures `json:"baseline"`
	Stall    PhaseFigures `json:"stall"`
	Drain    PhaseFigures `json:"drain"`
	Flips    int          `json:"target_flips"`
	// After the drain, per container: the last readiness update read, the
	// results manager's cached result and the target must agree.
	NotDelivered int `json:"last_result_not_delivered"` // cached result ≠ last update read
	Wrong        int `json:"wrong_final_state"`         // last update read ≠ target
	OutOfOrder   int `json:"out_of_order"`              // an update equal to the previous one of its container
	Stale        int `json:"updates_for_old_containers"`
	// Liveness Failure updates: restart decisions; the targets never fail.
	LivenessFailures int `json:"liveness_failures"`
	// Every change of a cached result the prober made (liveness and
	// readiness), against what the kubelet read: a change read out of turn,
	// an update no change explains, a change never read.
	Changes    int `json:"changes_set"`
	Misordered int `json:"updates_misordered"`
	Unexpected int `json:"updates_without_change"`
	Unread     int `json:"changes_never_read"`
	// After every pod is removed and three periods pass.
	AfterRemoval     memory  `json:"after_removal"`
	BaseGoroutines   int     `json:"goroutines_before_the_manager"`
	RunsAfterRemoval int64   `json:"probe_runs_in_the_period_after"`
	Wall             float64 `json:"wall_seconds"`
}

// RunSlowKubelet runs the three phases for one implementation.
func RunSlowKubelet(impl bench.Impl, cfg SlowConfig, mode string, logf func(string, ...any)) SlowResult {
	r := rand.New(rand.NewPCG(3, 4))
	w := newWorld(impl, cfg.Pods, cfg.Period)
	w.slowEvery, w.slowLatency = cfg.SlowEvery, cfg.SlowLatency
	res := SlowResult{Impl: impl.Name, Mode: mode, Config: cfg, BaseGoroutines: w.baseGoroutines}
	w.addSpread(seq(cfg.Pods), r, 0)
	time.Sleep(2 * cfg.Period)

	// Each phase counts from where the previous one stopped counting: the
	// drain loop reads at once after unstall, before the next phase could
	// take a count of its own, and those updates belong to a phase too.
	runs0 := w.runs.Load()
	w.mu.Lock()
	delivered0 := w.acct.Delivered
	w.mu.Unlock()
	// end runs when the phase's time is up, before its counts are taken: the
	// baseline ends by stalling the drain loop, so that no update it reads
	// between the count and the stall lands in the stall's count.
	phase := func(name string, d time.Duration, flip bool, end func()) PhaseFigures {
		var f PhaseFigures
		w.maxFlight.Store(0)
		w.recording.Store(true)
		begin := time.Now()
		nextFlip := begin.Add(cfg.FlipEvery / 2)
		for t := begin; t.Before(begin.Add(d)); {
			// Sample every period; flip when due.
			t = t.Add(cfg.Period)
			for flip && !nextFlip.After(t) {
				sleepUntil(nextFlip)
				for _, i := range pick(r, cfg.Pods, cfg.Flip) {
					w.flip(i)
					res.Flips++
				}
				nextFlip = nextFlip.Add(cfg.FlipEvery)
			}
			sleepUntil(t)
			f.MaxGoroutines = max(f.MaxGoroutines, runtime.NumGoroutine())
		}
		end()
		w.closeGaps()
		w.recording.Store(false)
		f.Liveness, f.SlowLiveness = w.takeLateness(0), w.takeLateness(1)
		runs := w.runs.Load()
		f.Runs, runs0 = runs-runs0, runs
		f.MaxInTarget = w.maxFlight.Load()
		w.mu.Lock()
		f.Delivered, delivered0 = w.acct.Delivered-delivered0, w.acct.Delivered
		w.mu.Unlock()
		logf("%s %s %s: liveness |interval-period| p50 %.1f ms p99 %.1f ms max %.1f ms, %d missed (slow ones: max %.1f ms, %d missed); %d runs; goroutines ≤ %d; %d updates read",
			impl.Name, mode, name, f.Liveness.P50ms, f.Liveness.P99ms, f.Liveness.MaxMs, f.Liveness.Missed, f.SlowLiveness.MaxMs, f.SlowLiveness.Missed,
			f.Runs, f.MaxGoroutines, f.Delivered)
		return f
	}
	res.Baseline = phase("baseline", cfg.Baseline, true, w.stall)
	res.Stall = phase("stall", cfg.Stall, true, func() {})
	w.unstall()
	res.Drain = phase("drain", cfg.Drain, false, func() {})

	// Every container's last update read, its cached result and its target.
	w.mu.Lock()
	for i := range w.slots {
		s := &w.slots[i]
		cached, ok := w.ready.Get(kubecontainer.ContainerID{Type: "rel", ID: containerID(i, s.podGen, s.ctrGen)})
		if !ok || !s.readyAny || cached != s.readyLast {
			res.NotDelivered++
		}
		want := results.Success
		if w.fail[i].Load() {
			want = results.Failure
		}
		if s.readyLast != want {
			res.Wrong++
		}
	}
	res.OutOfOrder, res.Stale, res.LivenessFailures = w.acct.OutOfOrder, w.acct.Stale, w.acct.LivenessFailures
	w.mu.Unlock()
	// Three periods after the stall every change the prober made is read.
	w.takeUnread()
	res.Changes, res.Misordered, res.Unexpected, res.Unread = w.acct.Changes, w.acct.Misordered, w.acct.Unexpected, w.acct.Unread

	for i := range w.slots {
		w.removePod(i)
	}
	w.forgetRemoved()
	time.Sleep(2 * cfg.Period)
	runs := w.runs.Load()
	time.Sleep(cfg.Period)
	res.RunsAfterRemoval = w.runs.Load() - runs
	w.close()
	res.AfterRemoval = readMemory()
	return res
}
