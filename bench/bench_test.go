//go:build linux

package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/probewheel/probewheel/bench/measure"
)

// The benchmarks. Each leaf is
//
//	Benchmark<Scenario>/handler=<h>/pods=<n>/period=<p>[/startup=on]/impl=<upstream|probewheel>
//
// and one iteration (b.N) is one measured window (one restart for RestartBurst, one
// up+down flip for ReadinessFlip). Run them with -benchtime=1x; scripts/bench.sh
// interleaves the implementations over -count rounds. The workload list comes from
// PROBEWHEEL_BENCH_SET (config.go).

func TestMain(m *testing.M) {
	if isStallCanary() {
		runStallCanary()
	}
	if os.Getenv(envOKTargets) == "1" {
		serveOKTargets()
		os.Exit(0)
	}
	if os.Getenv(envTargetServer) == "1" {
		if err := runTargetServer(); err != nil {
			fmt.Fprintf(os.Stderr, "target server: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func BenchmarkSteady(b *testing.B)        { runScenario(b, scSteady, benchSteady) }
func BenchmarkRestartBurst(b *testing.B)  { runScenario(b, scRestart, benchRestart) }
func BenchmarkHung(b *testing.B)          { runScenario(b, scHung, benchSteady) }
func BenchmarkReadinessFlip(b *testing.B) { runScenario(b, scFlip, benchFlip) }
func BenchmarkMemory(b *testing.B)        { runScenario(b, scMemory, benchMemory) }

// BenchmarkExecRuntime is BenchmarkSteady's measurement of exec probes whose
// execs share a container runtime that slows down with the execs in flight
// (execModel), at a density the runtime keeps up with and at one it does not:
// where the prober's bound on exec runs in flight
// (pkg/kubelet/prober/exec_limit.go) must change nothing, and where it is
// meant to keep healthy probes from timing out. Its own metrics: timeouts/s,
// the runs the runtime timed out (every target is healthy: each is a failed
// result a healthy container would not have had), and ok-runs/s, the runs
// that returned within their timeout, in the windows; and the same over the
// onset (onset-timeouts/s, onset-ok-runs/s): the first runtimeOnset after the
// pods were added, within the warm-up.
func BenchmarkExecRuntime(b *testing.B) { runScenario(b, scRuntime, benchSteady) }

// BenchmarkExecRuntime's onset, warm-up (after the first period) and windows,
// whatever the environment says (but in the smoke set). The pods all arrive
// at once on a runtime that cannot keep up with them: a kubelet that starts
// into an overload. Their first runs time out, so no probe has a baseline and
// only the exec limit's storm rule (exec_policy.go) can act, after
// execStormQuiet (15 s) with no run back on time; it then halves the limit
// every window until runs come back, and the overload rule takes over from
// their baselines. The onset spans the storm rule's wait and its cuts, which
// are what a node starting into such an overload pays; the windows come after
// the limit settled (within some 25 s in this model), and span a few of its
// raise-and-cut cycles: they show what it holds the runtime to.
const (
	runtimeOnset  = 20 * time.Second
	runtimeWarmup = 30 * time.Second
	runtimeWindow = 10 * time.Second
)

// benchMemory measures what the prober's probes hold of the kubelet's heap,
// as a platform engineer's dashboard sees it: the heap's spans in use and
// the stacks (HeapInuse + StackInuse, fragmentation included, after two
// GCs), minus the same before the manager existed, with the pods and their
// statuses in place, per probe. It also reports the live heap (HeapAlloc).
// The probe metrics stay unregistered (upstream's series, the same on both
// sides, would dwarf the rest: PROBEWHEEL_BENCH_PROBE_METRICS=0), and the
// drain loop writes no status, so that only the prober allocates: after two
// periods every probe has run and set its results, then each window is one
// period more.
func benchMemory(b *testing.B, cfg *config, sc string, w workload, impl Impl) {
	if os.Getenv(envProbeMetrics) != "0" {
		b.Skipf("BenchmarkMemory measures without the probe metrics: run it with %s=0 (scripts/bench.sh does)", envProbeMetrics)
	}
	hideNsPerOp(b)
	cfg2 := *cfg
	cfg2.syncStatus = false
	r, err := newRun(&cfg2, sc, w, impl, runOpts{startedAt: time.Now(), failureThr: 3})
	if err != nil {
		b.Fatal(err)
	}
	defer r.teardown()
	var live0 runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&live0)
	r.startManager()
	r.addPods(w.pods)
	time.Sleep(2*w.period + cfg.warmup)
	var inuse, live, goroutines float64
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		time.Sleep(w.period)
		b.StopTimer()
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		inuse += float64(int64(m.HeapInuse+m.StackInuse)-int64(r.baseInuse)) / float64(r.probes())
		live += float64(int64(m.HeapAlloc)-int64(live0.HeapAlloc)) / float64(r.probes())
		goroutines += float64(runtime.NumGoroutine() - r.baseG)
		b.StartTimer()
	}
	b.ReportMetric(inuse/float64(b.N), "inuse-B/probe")
	b.ReportMetric(live/float64(b.N), "live-B/probe")
	b.ReportMetric(goroutines/float64(b.N), "goroutines")
}

var (
	cfgOnce sync.Once
	cfgVal  *config
	cfgErr  error
)

func getConfig(b *testing.B) *config {
	cfgOnce.Do(func() {
		cfgVal, cfgErr = loadConfig()
		if cfgErr == nil {
			if _, err := raiseNoFile(); err != nil {
				fmt.Fprintf(os.Stderr, "bench: raising RLIMIT_NOFILE: %v\n", err)
			}
		}
	})
	if cfgErr != nil {
		b.Fatal(cfgErr)
	}
	return cfgVal
}

func runScenario(b *testing.B, sc string, fn func(*testing.B, *config, string, workload, Impl)) {
	cfg := getConfig(b)
	ws := workloadSets[cfg.set][sc]
	if cfg.listOnly {
		// The -test.bench pattern of each workload, anchored level by level.
		for _, w := range ws {
			fmt.Printf("^Benchmark%s$/^%s$\n", sc, strings.ReplaceAll(w.name(cfg), "/", "$/^"))
		}
		b.SkipNow()
	}
	for wi, w := range ws {
		for _, impl := range cfg.impls {
			name := w.name(cfg) + "/impl=" + impl.Name
			b.Run(name, func(b *testing.B) {
				start := time.Now()
				cfg.progressf("%s %d/%d %s: start (b.N=%d)", sc, wi+1, len(ws), name, b.N)
				fn(b, cfg, sc, w, impl)
				cfg.progressf("%s %d/%d %s: done in %.1fs", sc, wi+1, len(ws), name, time.Since(start).Seconds())
			})
		}
	}
}

// lateCount is how many pods are added per window to measure the first-probe delay.
func lateCount(pods int) int {
	n := pods / 20
	if n < 10 {
		n = 10
	}
	if n > 100 {
		n = 100
	}
	return n
}

// benchSteady measures steady-state timing, cost and integrity (BenchmarkSteady),
// with sc == scHung the healthy probes' timing while some probes hang, and with
// sc == scRuntime the probes' timing and timeouts against the model runtime.
func benchSteady(b *testing.B, cfg *config, sc string, w workload, impl Impl) {
	hung := sc == scHung
	rt := sc == scRuntime
	period := w.period
	nLate := lateCount(w.pods)
	o := runOpts{nLate: nLate * b.N, startedAt: time.Now(), failureThr: 3}
	if hung {
		// A huge failureThreshold keeps hung liveness probes from putting their worker
		// on hold, so they keep hanging every period.
		o.failureThr, o.hungPct, o.nLate, nLate = 1<<20, cfg.hungPct, 0, 0
	}
	if rt {
		if cfg.execLat > 0 {
			b.Skipf("the model runtime's execs take what they take: unset %s", envExecLat)
		}
		// The load on the runtime is the workload's: no pods added in the
		// windows, and no liveness probe put on hold by its timeouts (the
		// bench restarts no container, which would resume it).
		o.failureThr, o.nLate, nLate = 1<<20, 0, 0
		c := *cfg
		c.execModel = true
		if c.set != "smoke" { // smoke checks that it runs, with the set's short windows
			c.warmup, c.periods, c.maxWindow = runtimeWarmup, float64(runtimeWindow)/float64(period), runtimeWindow
		}
		cfg = &c
	}
	r, err := newRun(cfg, sc, w, impl, o)
	if err != nil {
		b.Fatal(err)
	}
	defer r.teardown()

	win := cfg.window(period)
	perWin := int(win/period) + 2
	ps := newPeriodStats(int64(period), cfg.dumpDir != "")
	ps.AbsDev = make([]int64, 0, (w.pods+nLate*b.N)*r.C*2*perWin*b.N)
	if ps.dump {
		ps.signed = make([]int64, 0, cap(ps.AbsDev))
	}
	arr := make([]int64, 0, r.tg.ringCap())
	firsts := make([]int64, 0, nLate*b.N)

	r.startManager()
	r.addPods(w.pods)
	warm := period + cfg.warmup
	act := r.t0 + int64(period) // initial pods: probed within a period (upstream's random initial delay)
	if w.startup {
		warm += period
		act += int64(period)
	}
	cfg.progressf("  %d probes, warm-up %s, %d window(s) of %s", r.probes(), warm, b.N, win)
	stalls := getStallCanary()
	// The first window's intervals open up to a period before it: what the
	// scheduler's histograms and a trace show starts there (warm ≥ period).
	var onsetTimeouts, onsetOK int64
	onset := rt && warm-period >= runtimeOnset // the smoke set's warm-up is shorter
	if onset {
		// The model's counts start with the run: every run so far is the onset's.
		time.Sleep(runtimeOnset)
		onsetTimeouts, onsetOK = r.runner.model.timedOut.Load(), r.runner.model.ran.Load()
		time.Sleep(warm - period - runtimeOnset)
	} else {
		time.Sleep(warm - period)
	}
	l0 := schedLateness()
	tr := startWindowLates(b, cfg, 0)
	time.Sleep(period)

	var cpu, sleeps, wall, goroutines int64
	var timeouts, okRuns int64 // the model runtime's, in the windows
	var mem, inuse float64
	var lateness histogram
	var gc gcStats
	var hostStall time.Duration
	gcSpan := 0
	lateFrom := r.nAdded
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if n > 0 {
			tr = startWindowLates(b, cfg, n)
		}
		gc0 := readGC()
		stopProfile := cfg.startCPUProfile(b, n)
		if tr != nil {
			ps.lateOver, ps.lates = int64(lateOver), ps.lates[:0]
		}
		ws := nowNs()
		c0, s0 := procUsage()
		var to0, ok0 int64
		if rt {
			to0, ok0 = r.runner.model.timedOut.Load(), r.runner.model.ran.Load()
		}
		wsWall := time.Now().UnixNano()
		tr.windowStart(ws, wsWall)
		r.addPods(nLate)
		time.Sleep(win)
		we := nowNs()
		c1, s1 := procUsage()
		if rt {
			timeouts += r.runner.model.timedOut.Load() - to0
			okRuns += r.runner.model.ran.Load() - ok0
		}
		stopProfile()
		tr.stop(b)
		gcw := readGC().since(gc0)
		l1 := schedLateness()
		lateness = lateness.add(l1.since(l0))
		l0 = l1
		gc.cycles += gcw.cycles
		gc.maxPause = max(gc.maxPause, gcw.maxPause)
		gc.allocBytes += gcw.allocBytes
		gc.allocObjects += gcw.allocObjects
		b.StopTimer()
		cpu += c1 - c0
		sleeps += s1 - s0
		wall += we - ws
		spanFrom, weWall := wsWall-int64(period), wsWall+(we-ws)
		hostStall = max(hostStall, stalls.maxIn(spanFrom, weWall))
		// A cycle whose mark phase overlaps the window's end terminates within
		// gcMarkSlack; count it before the harness forces one (heapStack).
		time.Sleep(gcMarkSlack)
		gcSpan += gcEndsIn(spanFrom, weWall+int64(gcMarkSlack))
		tr.noteGC(spanFrom, weWall+int64(gcMarkSlack))

		r.forEachTarget(func(i, p, k int) {
			if k == kStart || r.tg.hung[i] != 0 {
				return
			}
			a := act
			if p >= r.nInit {
				a = r.addedAt[p]
			}
			arr = r.tg.arrivals(i, arr[:0])
			ps.Add(i, arr, ws, we, a)
		})
		for p := lateFrom; p < r.nAdded; p++ {
			var first int64
			for c := 0; c < r.C; c++ {
				for _, k := range r.kinds {
					if f := r.tg.first[r.target(p, c, k)].Load(); f != 0 && (first == 0 || f < first) {
						first = f
					}
				}
			}
			if first == 0 {
				first = we // never probed in the window: lower bound
			}
			firsts = append(firsts, first-r.addedAt[p])
		}
		lateFrom = r.nAdded

		goroutines += int64(runtime.NumGoroutine() - r.baseG)
		mem += float64(int64(heapStack())-int64(r.baseMem)) / float64(r.probes())
		inuse += float64(int64(heapInuse())-int64(r.baseInuse)) / float64(r.probes())
		cfg.writeHeapProfile(b, n)
		tr.write(b, period, r.target(r.nInit, 0, 0), ps.lates)
		if n+1 < b.N {
			time.Sleep(200 * time.Millisecond) // let the GC's disturbance pass
		}
		b.StartTimer()
	}
	b.StopTimer()
	lost, extra := r.lostTransitions(time.Second)

	if ps.Runs == 0 {
		b.Fatalf("no probe reached a target in %d window(s) of %s", b.N, win)
	}
	reportPeriod(b, ps)
	if nLate > 0 {
		slices.Sort(firsts)
		b.ReportMetric(ms(measure.Quantile(firsts, 0.5)), "first-probe-p50-ms")
		b.ReportMetric(ms(measure.Quantile(firsts, 1)), "first-probe-max-ms")
	}
	if !hung {
		b.ReportMetric(float64(cpu)/1e3/float64(ps.Runs), "cpu-us/run")
		b.ReportMetric(float64(sleeps)/float64(ps.Runs), "thread-sleeps/run")
		b.ReportMetric(float64(gc.allocBytes)/float64(ps.Runs), "alloc-B/run")
		b.ReportMetric(float64(gc.allocObjects)/float64(ps.Runs), "allocs/run")
	}
	b.ReportMetric(float64(cpu)/float64(wall), "cpu-cores")
	b.ReportMetric(float64(goroutines)/float64(b.N), "goroutines")
	if !hung {
		b.ReportMetric(mem/float64(b.N), "B/probe")
		b.ReportMetric(inuse/float64(b.N), "inuse-B/probe")
	}
	b.ReportMetric(float64(ps.Runs)/(float64(wall)/1e9), "runs/s")
	if rt {
		b.ReportMetric(float64(timeouts)/(float64(wall)/1e9), "timeouts/s")
		b.ReportMetric(float64(okRuns)/(float64(wall)/1e9), "ok-runs/s")
		if onset {
			b.ReportMetric(float64(onsetTimeouts)/runtimeOnset.Seconds(), "onset-timeouts/s")
			b.ReportMetric(float64(onsetOK)/runtimeOnset.Seconds(), "onset-ok-runs/s")
		}
	}
	b.ReportMetric(float64(lost), "lost-transitions")
	reportObserved(b, lateness, gc, b.N)
	b.ReportMetric(float64(gcSpan)/float64(b.N), "gc-span-cycles")
	if stalls != nil {
		b.ReportMetric(ms(int64(hostStall)), "host-stall-max-ms")
	}
	if extra > 0 {
		b.Logf("%d result transitions on the Updates() channels that the targets' answers do not imply (probe errors or timeouts under load)", extra)
	}
	if ps.dump {
		dumpInts(b, cfg, "intervals", fmt.Sprintf("period_ns=%d", period), ps.signed)
	}
}

// reportObserved reports what the scheduler's histograms (probewheel only)
// and the GC saw in the windows: start lateness as bucket
// bounds, GC cycles per window and the longest GC pause.
func reportObserved(b *testing.B, lateness histogram, gc gcStats, windows int) {
	if lateness.total() > 0 {
		b.ReportMetric(lateness.quantileBound(0.99), "sched-late-p99-ms")
		b.ReportMetric(lateness.quantileBound(1), "sched-late-max-ms")
	}
	b.ReportMetric(float64(gc.cycles)/float64(windows), "gc-cycles")
	b.ReportMetric(gc.maxPause*1e3, "gc-pause-max-ms")
}

// hideNsPerOp drops ns/op from the output: an iteration is a measurement window,
// whose length is configuration, not a result.
func hideNsPerOp(b *testing.B) { b.ReportMetric(0, "ns/op") }

func reportPeriod(b *testing.B, ps *periodStats) {
	hideNsPerOp(b)
	slices.Sort(ps.AbsDev)
	b.ReportMetric(ms(measure.Quantile(ps.AbsDev, 0.5)), "err-p50-ms")
	b.ReportMetric(ms(measure.Quantile(ps.AbsDev, 0.99)), "err-p99-ms")
	b.ReportMetric(ms(measure.Quantile(ps.AbsDev, 0.999)), "err-p999-ms")
	b.ReportMetric(ms(measure.Quantile(ps.AbsDev, 1)), "err-max-ms")
	b.ReportMetric(float64(ps.Missed)/float64(b.N), "missed-runs")
}

// benchRestart: a new manager and all pods added at once at t0 (a kubelet restart
// with long-running containers); measures how the first period's probes spread.
func benchRestart(b *testing.B, cfg *config, sc string, w workload, impl Impl) {
	period := int64(w.period)
	const bucket = int64(100 * time.Millisecond)
	var ratio, firstMax, lateFirst float64
	var timeline []int64
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		r, err := newRun(cfg, sc, w, impl, runOpts{startedAt: time.Now().Add(-time.Hour), failureThr: 3})
		if err != nil {
			b.Fatal(err)
		}
		all := make([]int64, 0, r.tg.n)
		arr := make([]int64, 0, r.tg.ringCap())
		b.StartTimer()
		r.startManager()
		r.addPods(w.pods)
		cfg.progressf("  restart %d/%d: %d probes added in %.1fms, watching the first period", n+1, b.N, r.probes(), ms(nowNs()-r.t0))
		time.Sleep(time.Duration(r.addedAt[r.nAdded-1] + period + int64(300*time.Millisecond) - nowNs()))
		b.StopTimer()

		var fmax int64
		var late int
		r.forEachTarget(func(i, p, k int) {
			arr = r.tg.arrivals(i, arr[:0])
			for _, a := range arr {
				if a >= r.t0 && a < r.t0+period {
					all = append(all, a)
				}
			}
			f := r.tg.first[i].Load()
			if f == 0 {
				f = nowNs() // not probed yet
			}
			d := f - r.addedAt[p]
			if d > period {
				late++
			}
			if d > fmax {
				fmax = d
			}
		})
		slices.Sort(all)
		mean := float64(r.probes()) * float64(bucket) / float64(period)
		ratio += float64(measure.PeakInWindow(all, bucket)) / mean
		firstMax += ms(fmax)
		lateFirst += float64(late)
		if cfg.dumpDir != "" {
			for _, a := range all {
				timeline = append(timeline, a-r.t0)
			}
		}
		r.teardown()
		b.StartTimer()
	}
	b.StopTimer()
	nf := float64(b.N)
	hideNsPerOp(b)
	b.ReportMetric(ratio/nf, "burst-peak/mean")
	b.ReportMetric(firstMax/nf, "first-run-max-ms")
	b.ReportMetric(lateFirst/nf, "first-run-late")
	if cfg.dumpDir != "" {
		dumpInts(b, cfg, "restart", fmt.Sprintf("period_ns=%d probes=%d", period, w.pods*cfg.containers*2), timeline)
	}
}

// benchFlip: readiness targets start failing; each iteration turns them all healthy
// (measuring the time until each Success reaches the readiness Updates() channel) and
// then failing again.
func benchFlip(b *testing.B, cfg *config, sc string, w workload, impl Impl) {
	r, err := newRun(cfg, sc, w, impl, runOpts{startedAt: time.Now(), failureThr: 1, readyFail: true})
	if err != nil {
		b.Fatal(err)
	}
	defer r.teardown()
	r.startManager()
	r.addPods(w.pods)
	warm := w.period + cfg.warmup
	if w.startup {
		warm += w.period
	}
	cfg.progressf("  %d probes, warm-up %s, %d flip cycle(s)", r.probes(), warm, b.N)
	time.Sleep(warm)

	var ready []int
	r.forEachTarget(func(i, p, k int) {
		if k == kReady {
			ready = append(ready, i)
		}
	})
	limit := w.period + 3*probeTimeoutSeconds*time.Second + 2*time.Second
	lat := make([]int64, 0, len(ready)*b.N)
	var unseen int
	flip := func(fail bool, last []atomic.Int64, record bool) {
		t := nowNs()
		for _, i := range ready {
			v := uint32(0)
			if fail {
				v = 1
			}
			r.tg.fail[i].Store(v)
		}
		deadline := time.Now().Add(limit)
		for {
			pending := 0
			for _, i := range ready {
				if last[i].Load() <= t {
					pending++
				}
			}
			if pending == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if !record {
			return
		}
		for _, i := range ready {
			if v := last[i].Load(); v > t {
				lat = append(lat, v-t)
			} else {
				unseen++
			}
		}
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		flip(false, r.lastSucc, true)
		flip(true, r.lastFail, false)
	}
	b.StopTimer()
	lost, extra := r.lostTransitions(time.Second)
	slices.Sort(lat)
	if len(lat) == 0 {
		b.Fatalf("no readiness flip reached the Updates() channel")
	}
	hideNsPerOp(b)
	b.ReportMetric(ms(measure.Quantile(lat, 0.5)), "flip-p50-ms")
	b.ReportMetric(ms(measure.Quantile(lat, 0.99)), "flip-p99-ms")
	b.ReportMetric(ms(measure.Quantile(lat, 1)), "flip-max-ms")
	b.ReportMetric(float64(unseen)/float64(b.N), "flip-unseen")
	b.ReportMetric(float64(lost), "lost-transitions")
	if extra > 0 {
		b.Logf("%d unexpected result transitions on the Updates() channels", extra)
	}
}

var dumpSeq atomic.Int32

// dumpInts writes one value per line (µs) under PROBEWHEEL_BENCH_DUMP.
func dumpInts(b *testing.B, cfg *config, kind, header string, vals []int64) {
	if err := os.MkdirAll(cfg.dumpDir, 0o755); err != nil {
		b.Logf("dump: %v", err)
		return
	}
	name := strings.NewReplacer("/", "__", "=", "-").Replace(b.Name())
	path := filepath.Join(cfg.dumpDir, fmt.Sprintf("%s.%d-%d.%s", name, os.Getpid(), dumpSeq.Add(1), kind))
	f, err := os.Create(path)
	if err != nil {
		b.Logf("dump: %v", err)
		return
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	fmt.Fprintf(bw, "# bench=%s %s\n", b.Name(), header)
	for _, v := range vals {
		fmt.Fprintf(bw, "%.1f\n", float64(v)/1e3)
	}
	if err := bw.Flush(); err != nil {
		b.Logf("dump: %v", err)
	}
}

// startCPUProfile profiles the process's CPU into the profile directory, if
// one is set, as <benchmark name>-round<r>-w<window>.pprof, until the returned
// function is called. Both arms of a workload are profiled the same way, so
// the profiler's own cost leaves their ratio alone.
func (c *config) startCPUProfile(b *testing.B, window int) (stop func()) {
	if c.profileDir == "" {
		return func() {}
	}
	if err := os.MkdirAll(c.profileDir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(c.profileDir, profileName(b, c.round)+fmt.Sprintf("-w%d.pprof", window)))
	if err != nil {
		b.Fatal(err)
	}
	if c.profileHz > 0 {
		// A window of a sparse workload holds a second or two of CPU: at the
		// runtime's 100 Hz too few samples to split a run's microseconds by
		// part. StartCPUProfile keeps a rate set before it (and says so on
		// stderr: "cannot set cpu profile rate").
		runtime.SetCPUProfileRate(c.profileHz)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Error(err)
		}
	}
}

// writeHeapProfile writes the live heap, just collected by heapStack, next to
// the window's CPU profile (<name>-w<window>-heap.pprof), if a profile
// directory is set: what each arm's B/probe is made of.
func (c *config) writeHeapProfile(b *testing.B, window int) {
	if c.profileDir == "" {
		return
	}
	f, err := os.Create(filepath.Join(c.profileDir, profileName(b, c.round)+fmt.Sprintf("-w%d-heap.pprof", window)))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Error(err)
	}
}
