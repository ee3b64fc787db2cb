package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Write saves v as name.json and md as name.md in dir.
func Write(dir, name string, v any, md []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".md"), md, 0o644)
}

// SoakMarkdown tabulates soak results side by side.
func SoakMarkdown(rs []SoakResult) []byte {
	var b bytes.Buffer
	if len(rs) == 0 {
		return nil
	}
	c := rs[0].Config
	fmt.Fprintf(&b, "# Churn soak (%s)\n\n", rs[0].Mode)
	fmt.Fprintf(&b, "%d pods (one container, readiness + liveness exec probes every %v), %d waves of %v: each wave removes %.0f%% of the pods and adds as many new ones, restarts %.0f%% of the containers, flips %.0f%% of the readiness targets, then calls AddPod again and UpdatePodStatus for every pod.\n\n",
		c.Pods, c.Period, c.Waves, c.Wave, 100*c.Churn, 100*c.Restart, 100*c.Flip)
	fmt.Fprintf(&b, "| | %s |\n|---|%s\n", join(rs, func(r SoakResult) string { return r.Impl }), repeat("---|", len(rs)))
	row := func(name string, f func(r SoakResult) string) {
		fmt.Fprintf(&b, "| %s | %s |\n", name, join(rs, f))
	}
	first := func(r SoakResult) WaveFigures { return r.Waves[0] }
	last := func(r SoakResult) WaveFigures { return r.Waves[len(r.Waves)-1] }
	row("time simulated / wall", func(r SoakResult) string { return fmt.Sprintf("%s / %s", dur(r.Elapsed), dur(r.Wall)) })
	row("pods added, restarts, flips, syncs", func(r SoakResult) string {
		return fmt.Sprintf("%d, %d, %d, %d", r.PodsAdded, r.Restarts, r.Flips, r.Syncs)
	})
	row("goroutines after wave 1 → last", func(r SoakResult) string {
		return fmt.Sprintf("%d → %d", first(r).Goroutines, last(r).Goroutines)
	})
	row("heap MB after wave 1 → last (ratio)", func(r SoakResult) string {
		return fmt.Sprintf("%.1f → %.1f (%.2f)", first(r).HeapMB, last(r).HeapMB, last(r).HeapMB/first(r).HeapMB)
	})
	row("heap MB, max over waves 2..N", func(r SoakResult) string {
		m := 0.0
		for _, w := range r.Waves[1:] {
			m = max(m, w.HeapMB)
		}
		return fmt.Sprintf("%.1f", m)
	})
	row("readiness transitions lost / extra", func(r SoakResult) string { return fmt.Sprintf("%d / %d", r.Lost, r.Extra) })
	row("updates out of order / wrong final state", func(r SoakResult) string { return fmt.Sprintf("%d / %d", r.OutOfOrder, r.WrongFinal) })
	row("liveness Failure updates (false restarts)", func(r SoakResult) string { return fmt.Sprint(r.LivenessFailures) })
	row("updates read / containers checked", func(r SoakResult) string { return fmt.Sprintf("%d / %d", r.Delivered, r.Containers) })
	row("changes the prober Set / read out of turn / never read / updates without a change", func(r SoakResult) string {
		return fmt.Sprintf("%d / %d / %d / %d", r.Changes, r.Misordered, r.Unread, r.Unexpected)
	})
	row("results still cached for gone containers", func(r SoakResult) string {
		n := r.LeftCached
		for _, w := range r.Waves {
			n += w.LeftCached
		}
		return fmt.Sprint(n)
	})
	row("goroutines before manager → after removing all", func(r SoakResult) string {
		return fmt.Sprintf("%d → %d", r.Baseline.Goroutines, r.AfterRemoval.Goroutines)
	})
	row("probe runs in the period after that (workers left)", func(r SoakResult) string { return fmt.Sprint(r.RunsAfterRemoval) })
	fmt.Fprintf(&b, "\n## Per wave (measured at its end, after GC)\n\n| wave | %s |\n|---|%s\n",
		join(rs, func(r SoakResult) string { return r.Impl + ": runs, goroutines, heap MB" }), repeat("---|", len(rs)))
	for i := range rs[0].Waves {
		fmt.Fprintf(&b, "| %d | %s |\n", i+1, join(rs, func(r SoakResult) string {
			if i >= len(r.Waves) {
				return ""
			}
			w := r.Waves[i]
			return fmt.Sprintf("%d, %d, %.1f", w.Runs, w.Goroutines, w.HeapMB)
		}))
	}
	return b.Bytes()
}

// SlowMarkdown tabulates slow-kubelet results side by side.
func SlowMarkdown(rs []SlowResult) []byte {
	var b bytes.Buffer
	if len(rs) == 0 {
		return nil
	}
	c := rs[0].Config
	fmt.Fprintf(&b, "# Slow kubelet (%s)\n\n", rs[0].Mode)
	fmt.Fprintf(&b, "%d pods (readiness + liveness exec probes every %v). Every %v, %.0f%% of the readiness targets flip; liveness targets never fail, and every %d-th answers after %v (slow work to a bounded pool). Phases: %v draining, %v with nobody reading Updates() (flips go on), %v draining again (no flips).\n\n",
		c.Pods, c.Period, c.FlipEvery, 100*c.Flip, c.SlowEvery, c.SlowLatency, c.Baseline, c.Stall, c.Drain)
	fmt.Fprintf(&b, "| | %s |\n|---|%s\n", join(rs, func(r SlowResult) string { return r.Impl }), repeat("---|", len(rs)))
	row := func(name string, f func(r SlowResult) string) {
		fmt.Fprintf(&b, "| %s | %s |\n", name, join(rs, f))
	}
	late := func(l lateness) string {
		return fmt.Sprintf("%.1f / %.1f / %.1f ms, %d missed (%d intervals)", l.P50ms, l.P99ms, l.MaxMs, l.Missed, l.Runs)
	}
	row("liveness \\|interval − period\\| p50 / p99 / max, before the stall", func(r SlowResult) string { return late(r.Baseline.Liveness) })
	row("… during the stall", func(r SlowResult) string { return late(r.Stall.Liveness) })
	row("… after it", func(r SlowResult) string { return late(r.Drain.Liveness) })
	if c.SlowEvery > 0 {
		row(fmt.Sprintf("slow (%v) liveness, before the stall", c.SlowLatency), func(r SlowResult) string { return late(r.Baseline.SlowLiveness) })
		row("… during the stall", func(r SlowResult) string { return late(r.Stall.SlowLiveness) })
		row("… after it", func(r SlowResult) string { return late(r.Drain.SlowLiveness) })
	}
	row("probe runs before / during / after", func(r SlowResult) string {
		return fmt.Sprintf("%d / %d / %d", r.Baseline.Runs, r.Stall.Runs, r.Drain.Runs)
	})
	row("goroutines at most before / during / after", func(r SlowResult) string {
		return fmt.Sprintf("%d / %d / %d", r.Baseline.MaxGoroutines, r.Stall.MaxGoroutines, r.Drain.MaxGoroutines)
	})
	row("runs inside a target at once, at most (during)", func(r SlowResult) string { return fmt.Sprint(r.Stall.MaxInTarget) })
	row("updates read before / during / after", func(r SlowResult) string {
		return fmt.Sprintf("%d / %d / %d", r.Baseline.Delivered, r.Stall.Delivered, r.Drain.Delivered)
	})
	row("target flips", func(r SlowResult) string { return fmt.Sprint(r.Flips) })
	row("containers whose last result was not read / is wrong", func(r SlowResult) string {
		return fmt.Sprintf("%d / %d", r.NotDelivered, r.Wrong)
	})
	row("updates out of order", func(r SlowResult) string { return fmt.Sprint(r.OutOfOrder) })
	row("changes the prober Set / read out of turn / never read / updates without a change", func(r SlowResult) string {
		return fmt.Sprintf("%d / %d / %d / %d", r.Changes, r.Misordered, r.Unread, r.Unexpected)
	})
	row("liveness Failure updates (false restarts)", func(r SlowResult) string { return fmt.Sprint(r.LivenessFailures) })
	row("goroutines before manager → after removing all", func(r SlowResult) string {
		return fmt.Sprintf("%d → %d", r.BaseGoroutines, r.AfterRemoval.Goroutines)
	})
	row("probe runs in the period after that", func(r SlowResult) string { return fmt.Sprint(r.RunsAfterRemoval) })
	row("wall time", func(r SlowResult) string { return dur(r.Wall) })
	return b.Bytes()
}

func join[T any](rs []T, f func(T) string) string {
	var b bytes.Buffer
	for i, r := range rs {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(f(r))
	}
	return b.String()
}

func repeat(s string, n int) string { return string(bytes.Repeat([]byte(s), n)) }

func dur(secs float64) string {
	return time.Duration(secs * float64(time.Second)).Round(time.Second).String()
}
