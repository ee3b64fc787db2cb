package reliability

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/probewheel/probewheel/bench"
)

// SoakConfig shapes a churn soak.
type SoakConfig struct {
	Pods   int           `json:"pods"`
	Waves  int           `json:"waves"`
	Wave   time.Duration `json:"wave_ns"`
	Period time.Duration `json:"period_ns"` // both probes' periodSeconds
	// Per wave: the fraction of pods removed and replaced by new ones, of
	// live containers restarted, and of readiness targets flipped.
	Churn   float64 `json:"churn"`
	Restart float64 `json:"restart"`
	Flip    float64 `json:"flip"`
}

// Validate rejects a config whose checks could not hold: a flip must be
// reported and settled before the wave's checks, a period before them.
func (c SoakConfig) Validate() error {
	if c.Pods < 1 || c.Waves < 2 || c.Period < time.Second || c.Period%time.Second != 0 {
		return fmt.Errorf("soak: want pods ≥ 1, waves ≥ 2 and a whole period of 1 s or more: %+v", c)
	}
	if c.Wave < 6*c.Period {
		return fmt.Errorf("soak: a wave of %v is shorter than 6 periods of %v", c.Wave, c.Period)
	}
	return nil
}

// WaveFigures is what the soak measured at the end of one wave.
type WaveFigures struct {
	Wave     int   `json:"wave"`
	LivePods int   `json:"live_pods"`
	Runs     int64 `json:"probe_runs"`
	memory
	LeftCached int `json:"results_left_cached"` // results of containers restarted or removed in the wave still cached
}

// SoakResult is one implementation's soak.
type SoakResult struct {
	Impl     string        `json:"impl"`
	Mode     string        `json:"mode"`
	Config   SoakConfig    `json:"config"`
	Baseline memory        `json:"baseline"` // the manager created, no pods
	Waves    []WaveFigures `json:"waves"`
	// After the last wave every pod is removed; then, after three periods:
	AfterRemoval     memory `json:"after_removal"`
	RunsAfterRemoval int64  `json:"probe_runs_in_the_period_after"` // 0: no worker left behind
	LeftCached       int    `json:"results_left_cached_after_removal"`
	accounting
	PodsAdded int     `json:"pods_added"`
	Restarts  int     `json:"container_restarts"`
	Flips     int     `json:"target_flips"`
	Syncs     int     `json:"pod_syncs"`       // AddPod again + UpdatePodStatus
	Elapsed   float64 `json:"elapsed_seconds"` // of the clock the soak ran on
	Wall      float64 `json:"wall_seconds"`
}

// RunSoak soaks one implementation. Each wave replaces Churn of the pods
// (added over one period, so that their probes spread), restarts Restart of
// the other containers, flips Flip of the readiness targets at half-wave,
// syncs every pod two periods later, and measures at the wave's end. logf
// prints progress.
func RunSoak(impl bench.Impl, cfg SoakConfig, mode string, logf func(string, ...any)) SoakResult {
	r := rand.New(rand.NewPCG(1, 2))
	w := newWorld(impl, cfg.Pods, cfg.Period)
	res := SoakResult{Impl: impl.Name, Mode: mode, Config: cfg, Baseline: readMemory()}
	start := time.Now()
	next := 0 // the oldest pod's slot
	for wave := 1; wave <= cfg.Waves; wave++ {
		waveStart := time.Now()
		runs0 := w.runs.Load()
		var added []int
		if wave == 1 {
			added = w.addSpread(seq(cfg.Pods), r, 0)
		} else {
			n := int(cfg.Churn * float64(cfg.Pods))
			slots := make([]int, n)
			for k := range slots {
				slots[k] = (next + k) % cfg.Pods
				w.removePod(slots[k])
			}
			next = (next + n) % cfg.Pods
			w.forgetRemoved()
			added = w.addSpread(slots, r, 0.1)
			isNew := map[int]bool{}
			for _, i := range added {
				isNew[i] = true
			}
			for _, i := range pick(r, cfg.Pods, cfg.Restart) {
				if !isNew[i] {
					w.restart(i)
					res.Restarts++
				}
			}
		}
		res.PodsAdded += len(added)
		sleepUntil(waveStart.Add(cfg.Wave / 2))
		for _, i := range pick(r, cfg.Pods, cfg.Flip) {
			w.flip(i)
			res.Flips++
		}
		sleepUntil(waveStart.Add(cfg.Wave/2 + 2*cfg.Period))
		for i := range w.slots {
			w.syncPod(i)
			res.Syncs++
		}
		sleepUntil(waveStart.Add(cfg.Wave))
		w.checkAll()
		f := WaveFigures{Wave: wave, LivePods: cfg.Pods, Runs: w.runs.Load() - runs0, memory: readMemory(), LeftCached: w.checkGone()}
		res.Waves = append(res.Waves, f)
		logf("%s %s wave %d/%d: %d runs, %d goroutines, heap %.1f MB, lost %d, extra %d, left cached %d",
			impl.Name, mode, wave, cfg.Waves, f.Runs, f.Goroutines, f.HeapMB, w.acct.Lost, w.acct.Extra, f.LeftCached)
	}
	for i := range w.slots {
		w.removePod(i)
	}
	w.forgetRemoved()
	time.Sleep(2 * cfg.Period)
	runs := w.runs.Load()
	time.Sleep(cfg.Period)
	res.RunsAfterRemoval = w.runs.Load() - runs
	res.LeftCached = w.checkGone()
	res.Elapsed = time.Since(start).Seconds()
	w.takeUnread()
	w.close()
	res.AfterRemoval = readMemory()
	res.accounting = w.acct
	return res
}

// addSpread adds new pods in slots over one period, failFrac of them with a
// failing readiness target, and returns the slots.
func (w *world) addSpread(slots []int, r *rand.Rand, failFrac float64) []int {
	begin := time.Now()
	for k, i := range slots {
		sleepUntil(begin.Add(time.Duration(k) * w.period / time.Duration(len(slots))))
		w.addPod(i, r.Float64() < failFrac)
	}
	return slots
}

// pick returns frac of n slots, each at most once.
func pick(r *rand.Rand, n int, frac float64) []int {
	return r.Perm(n)[:int(frac*float64(n))]
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func sleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}
