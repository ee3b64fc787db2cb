//go:build linux

package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// envLate names a directory: each measured window of BenchmarkSteady writes
// there, as <benchmark>-round<r>-w<n>.late, the arrivals whose interval was
// off its period by more than lateOver, with the window's start and the GC
// cycles that ended around it, so that a round's maximum can be placed: at
// the window's start (the pods added there), in a GC cycle, or neither.
const envLate = "PROBEWHEEL_BENCH_LATE"

// envTrace names a directory: as envLate, and each window is also recorded
// with the execution tracer (<...>.trace), every arrival logging its target
// on the goroutine that ran the probe. `go run ./bench/report late` then shows what
// that goroutine, and both Ps, were doing until each late arrival. The
// tracer's cost (about 10x the probe run's, in the logging) stretches
// bursts: a traced window's figures are not comparable with untraced ones.
const envTrace = "PROBEWHEEL_BENCH_TRACE"

// lateOver: intervals off by more than this are listed. The 5–10 ms the
// machine itself stalls now and then (the canary) stays below it.
const lateOver = 12 * time.Millisecond

// syncLogCategory is the category of the user log event that carries the
// benchmark's clock (nowNs) at a known trace timestamp.
const syncLogCategory = "probewheel-sync"

// arrivalLogCategory: while a window is traced every arrival logs its
// target, on the goroutine that ran the probe.
const arrivalLogCategory = "probewheel-arrival"

var tracingArrivals atomic.Bool

func logArrival(i int) {
	trace.Log(context.Background(), arrivalLogCategory, strconv.Itoa(i))
}

// windowLates records one window's late arrivals and, with envTrace, its
// execution trace. A nil *windowLates does nothing.
type windowLates struct {
	path   string
	ws     int64 // nowNs at the window's start
	wsWall int64 // time.Now().UnixNano() then
	f      *os.File
	w      *bufio.Writer
	gcEnds []int64 // ns from wsWall
}

// startWindowLates starts recording window n, or returns nil if neither
// envLate nor envTrace is set. For the first window it is called a period
// before the window, so that a trace covers every interval the window counts.
func startWindowLates(b *testing.B, c *config, n int) *windowLates {
	dir, traced := os.Getenv(envTrace), true
	if dir == "" {
		dir, traced = os.Getenv(envLate), false
	}
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	t := &windowLates{path: filepath.Join(dir, profileName(b, c.round)+fmt.Sprintf("-w%d", n))}
	if traced {
		f, err := os.Create(t.path + ".trace")
		if err != nil {
			b.Fatal(err)
		}
		t.f, t.w = f, bufio.NewWriterSize(f, 1<<20)
		if err := trace.Start(t.w); err != nil {
			f.Close()
			b.Fatal(err)
		}
		trace.Log(context.Background(), syncLogCategory, strconv.FormatInt(nowNs(), 10))
		tracingArrivals.Store(true)
	}
	return t
}

// windowStart records when the window proper starts (the recording may have
// started a period before).
func (t *windowLates) windowStart(ws, wsWall int64) {
	if t != nil {
		t.ws, t.wsWall = ws, wsWall
	}
}

// stop ends the trace, at the window's end.
func (t *windowLates) stop(b *testing.B) {
	if t == nil || t.f == nil {
		return
	}
	tracingArrivals.Store(false)
	trace.Stop()
	if err := t.w.Flush(); err != nil {
		b.Error(err)
	}
	if err := t.f.Close(); err != nil {
		b.Error(err)
	}
}

// noteGC keeps the ends of the GC cycles in [from, to] (Unix ns) for write.
func (t *windowLates) noteGC(from, to int64) {
	if t == nil {
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.gcEnds = t.gcEnds[:0]
	for _, e := range ms.PauseEnd[:min(int(ms.NumGC), len(ms.PauseEnd))] {
		if int64(e) >= from && int64(e) <= to {
			t.gcEnds = append(t.gcEnds, int64(e)-t.wsWall)
		}
	}
	slices.Sort(t.gcEnds)
}

// write writes the window's late arrivals and, as offsets from the window's
// start, the GC ends noteGC kept. Targets from firstAdded on belong to pods
// added after the warm-up.
func (t *windowLates) write(b *testing.B, period time.Duration, firstAdded int, lates []lateArrival) {
	if t == nil {
		return
	}
	sb := fmt.Appendf(nil, "period_ns=%d\nwindow_start_ns=%d\nfirst_added_target=%d\ngc_end_ms=", period, t.ws, firstAdded)
	for _, e := range t.gcEnds {
		sb = fmt.Appendf(sb, " %.1f", float64(e)/1e6)
	}
	sb = append(sb, '\n')
	for _, l := range lates {
		sb = fmt.Appendf(sb, "%d %d %d\n", l.target, l.at, l.diff)
	}
	if err := os.WriteFile(t.path+".late", sb, 0o644); err != nil {
		b.Error(err)
	}
}

// profileName is the benchmark's name as a file name, with the round.
func profileName(b *testing.B, round string) string {
	name := strings.NewReplacer("/", "_", "=", "-").Replace(b.Name())
	if round != "" {
		name += "-round" + strings.ReplaceAll(round, "/", "of")
	}
	return name
}
