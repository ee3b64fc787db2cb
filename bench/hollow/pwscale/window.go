package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/probewheel/probewheel/bench/measure"
)

const sampleEvery = 5 * time.Second

// scrape is one node's counters at one instant.
type scrape struct {
	t          time.Time
	cpu        time.Duration
	rss        float64
	goroutines float64
	heapMiB    float64
	// The Go runtime's GC cycles and bytes allocated since the process
	// started: over the window, per probe run, they say what a run costs the
	// garbage collector.
	gcCycles, allocBytes float64
	probes               []byte // /metrics/probes, at the window's ends only
}

func (b *bench) scrape(hk *hollowKubelet, withProbes bool) (scrape, error) {
	s := scrape{t: time.Now()}
	var err error
	if s.cpu, err = measure.ProcCPU(hk.pid()); err != nil {
		return s, err
	}
	if s.rss, err = measure.ProcRSSMiB(hk.pid()); err != nil {
		return s, err
	}
	m, err := hk.get(hk.roPort, "/metrics")
	if err != nil {
		return s, err
	}
	var ok bool
	if s.goroutines, ok = metricSum(m, "go_goroutines"); !ok {
		return s, fmt.Errorf("%s: no go_goroutines on /metrics", hk.name)
	}
	heap, _ := metricSum(m, "go_memstats_heap_inuse_bytes")
	s.heapMiB = heap / (1 << 20)
	s.gcCycles, _ = metricSum(m, "go_gc_duration_seconds_count")
	s.allocBytes, _ = metricSum(m, "go_memstats_alloc_bytes_total")
	if withProbes {
		if s.probes, err = hk.get(hk.roPort, "/metrics/probes"); err != nil {
			return s, err
		}
	}
	bad, err := nonLoopbackSockets(hk.pid())
	if err != nil {
		return s, err
	}
	for _, x := range bad {
		b.viol[hk.name+": socket "+x] = true
	}
	return s, nil
}

// checkSelfSockets applies the network rule to this process too: its
// targets, fake runtimes' clients and watches (the apiserver's client).
func (b *bench) checkSelfSockets() {
	bad, err := nonLoopbackSockets(os.Getpid())
	if err != nil {
		logf("own sockets: %v", err)
		return
	}
	for _, x := range bad {
		b.viol["pwscale: socket "+x] = true
	}
}

// window measures the steady state from tWin on.
func (b *bench) window(ctx context.Context, tCreate, tWin time.Time) error {
	o, p := b.o, b.p
	first := make([]scrape, p.nodes)
	prev := make([]scrape, p.nodes)
	// The machine around the kubelets: every process's CPU, and ours (the
	// targets and fake runtimes), so that a noisy window shows as one.
	host0, _ := measure.HostBusy()
	self0, _ := measure.ProcCPU(os.Getpid())
	hostPrev, tPrev := host0, time.Now()
	var loadMax float64
	for n, hk := range b.kubelets {
		s, err := b.scrape(hk, true)
		if err != nil {
			return err
		}
		first[n], prev[n] = s, s
	}
	var flipKeys []int
	flipped := map[int]bool{}
	for i := range p.pods {
		if p.pods[i].flip {
			flipKeys = append(flipKeys, p.pods[i].key(kReadiness))
			flipped[p.pods[i].key(kReadiness)] = true
		}
	}
	var spans [][2]time.Duration // parseFlags made sure there is one if any pod flips
	if len(flipKeys) > 0 {
		spans = flipSpans(o.window, o.period, o.flipCycle)
	}
	tEnd := tWin.Add(o.window)
	if len(spans) > 0 {
		logf("window %v: readiness of %d pods fails from +%v for %v, %d time(s) every %v", o.window, len(flipKeys),
			spans[0][0].Round(time.Second), flipFor(o.period), len(spans), o.flipCycle)
	}
	setFlip := func(fail bool) {
		for _, k := range flipKeys {
			b.rec.setFail(k, fail)
		}
	}
	// flipState counts the span edges passed: even outside a span, odd inside.
	flipEdge := func(i int) time.Time { return tWin.Add(spans[i/2][i%2]) }
	flipState := 0
	nextSample := tWin.Add(sampleEvery)
	var last []scrape
	for {
		now := time.Now()
		switch {
		case flipState < 2*len(spans) && !now.Before(flipEdge(flipState)):
			flipState++
			setFlip(flipState%2 == 1)
		}
		if !now.Before(nextSample) || !now.Before(tEnd) {
			final := !now.Before(tEnd)
			last = make([]scrape, p.nodes)
			for n, hk := range b.kubelets {
				if !hk.alive() {
					return fmt.Errorf("%s exited during the window; log: %s", hk.name, hk.logPath)
				}
				s, err := b.scrape(hk, final)
				if err != nil {
					return err
				}
				b.res.Samples = append(b.res.Samples, Sample{
					T: s.t.Sub(tWin).Seconds(), Node: n,
					CPUCores: (s.cpu - prev[n].cpu).Seconds() / s.t.Sub(prev[n].t).Seconds(),
					RSSMiB:   s.rss, Goroutines: s.goroutines, HeapMiB: s.heapMiB,
				})
				prev[n], last[n] = s, s
			}
			hb, _ := measure.HostBusy()
			load, _ := measure.LoadAvg()
			loadMax = max(loadMax, load)
			b.res.HostSamples = append(b.res.HostSamples, HostSample{T: now.Sub(tWin).Seconds(),
				BusyCores: (hb - hostPrev).Seconds() / now.Sub(tPrev).Seconds(), Load1: load})
			hostPrev, tPrev = hb, now
			if final {
				break
			}
			nextSample = nextSample.Add(sampleEvery)
			if int(now.Sub(tWin)/sampleEvery)%6 == 0 {
				logf("  window +%.0fs: node 0 %.2f cores, %.0f MiB, %.0f goroutines", now.Sub(tWin).Seconds(),
					b.res.Samples[len(b.res.Samples)-p.nodes].CPUCores, last[0].rss, last[0].goroutines)
			}
		}
		wake := earliest(nextSample, tEnd)
		if flipState < 2*len(spans) {
			wake = earliest(wake, flipEdge(flipState))
		}
		if err := sleepCtx(ctx, max(time.Until(wake), time.Millisecond)); err != nil {
			return err
		}
	}
	if flipState%2 == 1 {
		setFlip(false)
	}
	b.checkSelfSockets()
	tEnd = last[0].t

	// The kubelets' cost, per node and on average.
	r := b.res
	host1, _ := measure.HostBusy()
	self1, _ := measure.ProcCPU(os.Getpid())
	r.HostBusyCores = (host1 - host0).Seconds() / time.Since(tWin).Seconds()
	r.HarnessCores = (self1 - self0).Seconds() / time.Since(tWin).Seconds()
	r.HostLoad1Max = loadMax
	var probeLat []histogram
	for n := range p.nodes {
		nr := NodeResult{Name: p.nodeNames[n]}
		nr.CPUCores = (last[n].cpu - first[n].cpu).Seconds() / last[n].t.Sub(first[n].t).Seconds()
		var k int
		for _, s := range r.Samples {
			if s.Node != n {
				continue
			}
			k++
			nr.RSSMiB += s.RSSMiB
			nr.Goroutines += s.Goroutines
			nr.HeapInuseMiB += s.HeapMiB
			nr.RSSMaxMiB, nr.GoroutinesMax = max(nr.RSSMaxMiB, s.RSSMiB), max(nr.GoroutinesMax, s.Goroutines)
		}
		nr.RSSMiB /= float64(k)
		nr.Goroutines /= float64(k)
		nr.HeapInuseMiB /= float64(k)
		after, _ := metricSum(last[n].probes, "prober_probe_total")
		before, _ := metricSum(first[n].probes, "prober_probe_total")
		nr.ProbeRuns = after - before
		nr.GCCycles = last[n].gcCycles - first[n].gcCycles
		nr.AllocMiB = (last[n].allocBytes - first[n].allocBytes) / (1 << 20)
		// Liveness probes never fail on purpose here: a failure is a probe
		// the target did not answer in time (a saturated machine) or a bug.
		failed := func(s scrape) float64 {
			return metricSumWith(s.probes, "prober_probe_total", `probe_type="Liveness"`, `result="failed"`)
		}
		r.LivenessFailures += failed(last[n]) - failed(first[n])
		h := parseHistogram(last[n].probes, "prober_scheduler_start_lateness_seconds")
		if h.count > 0 {
			probeLat = append(probeLat, h, parseHistogram(first[n].probes, "prober_scheduler_start_lateness_seconds"))
		}
		r.PerNode = append(r.PerNode, nr)
	}
	nn := float64(p.nodes)
	for _, nr := range r.PerNode {
		r.CPUCores += nr.CPUCores / nn
		r.RSSMiB += nr.RSSMiB / nn
		r.RSSMaxMiB += nr.RSSMaxMiB / nn
		r.Goroutines += nr.Goroutines / nn
		r.GoroutinesMax += nr.GoroutinesMax / nn
		r.HeapInuseMiB += nr.HeapInuseMiB / nn
		r.ProbeRuns += nr.ProbeRuns
		r.GCCycles += nr.GCCycles
		r.AllocMiB += nr.AllocMiB
	}
	if r.ProbeRuns > 0 {
		r.CPUPerProbeUs = r.CPUCores * nn * tEnd.Sub(tWin).Seconds() / r.ProbeRuns * 1e6
		r.GCPer1kRuns = r.GCCycles / r.ProbeRuns * 1000
		r.AllocKiBPerRun = r.AllocMiB * 1024 / r.ProbeRuns
	}
	if len(probeLat) > 0 { // node 0's (probewheel only)
		s := probeLat[0].since(probeLat[1])
		r.SchedulerLateness = &s
	}
	if err := checkWheel(o.flavor, o.noWheel, len(probeLat) > 0); err != nil {
		return fmt.Errorf("%w; is %s the right binary?", err, o.hollowNode)
	}

	// Probe timing as the targets saw it: readiness and liveness, not the
	// flipped readiness checks (a failing readiness probe is re-run early by
	// the kubelet's manual trigger, which is not lateness).
	evs := b.rec.since(tWin.UnixNano())
	period := int64(o.period)
	all := map[int]bool{}
	per := map[string]map[int]bool{}
	for i := range p.pods {
		for _, kind := range []int{kReadiness, kLiveness} {
			k := p.pods[i].key(kind)
			if flipped[k] {
				continue
			}
			all[k] = true
			h := string(p.pods[i].handlers[kind])
			if per[h] == nil {
				per[h] = map[int]bool{}
			}
			per[h][k] = true
		}
	}
	r.Lateness = lateness(evs, all, tWin.UnixNano(), tEnd.UnixNano(), period)
	r.LatenessByHandler = map[string]Lateness{}
	for h, ks := range per {
		r.LatenessByHandler[h] = lateness(evs, ks, tWin.UnixNano(), tEnd.UnixNano(), period)
	}
	logf("window: %.3f cores, %.0f MiB, %.0f goroutines per kubelet; %d intervals, |dev| p99 %.1f ms, max %.1f ms, %d missed",
		r.CPUCores, r.RSSMiB, r.Goroutines, r.Lateness.Intervals, r.Lateness.P99AbsMs, r.Lateness.MaxAbsMs, r.Lateness.Missed)

	// Readiness flips on the API: wait (a bounded time) for the due flips to
	// show, then count. The last are due one period after the last span's
	// end, well before the window's end; a flip still missing 2 periods + 20 s later
	// is lost.
	deadline := time.Now().Add(2*o.period + 20*time.Second)
	for time.Now().Before(deadline) && b.transitions(tWin, time.Now()).Lost > 0 {
		if err := sleepCtx(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
	b.res.Transitions = b.transitions(tWin, time.Now())

	// What the control plane saw, per node.
	b.tr.mu.Lock()
	pu0 := countIn(b.tr.podUpd, p.nodes, tCreate, tWin)
	pu1 := countIn(b.tr.podUpd, p.nodes, tWin, tEnd)
	nu := countIn(b.tr.nodeUpd, p.nodes, tWin, tEnd)
	lu := countIn(b.tr.leaseUpd, p.nodes, tWin, tEnd)
	b.tr.mu.Unlock()
	mins := tEnd.Sub(tWin).Minutes()
	for n := range r.PerNode {
		r.PerNode[n].PodUpdatesStartup, r.PerNode[n].PodUpdatesWindow = pu0[n], pu1[n]
		r.PerNode[n].NodeUpdatesPerMin, r.PerNode[n].LeaseUpdatesPerMin = float64(nu[n])/mins, float64(lu[n])/mins
	}
	return nil
}

// transitions compares, for every pod Ready at from, the readiness
// transitions the API showed in [from, to) with those its target's answers
// in that time call for (dueFlips, matchFlips).
func (b *bench) transitions(from, to time.Time) Transitions {
	answers := map[int][]answer{}
	for _, e := range b.rec.since(from.UnixNano()) {
		if e.t < to.UnixNano() && int(e.k)%nKinds == kReadiness {
			answers[int(e.k)] = append(answers[int(e.k)], answer{e.t, !e.fail})
		}
	}
	var tr Transitions
	b.tr.mu.Lock()
	defer b.tr.mu.Unlock()
	for i := range b.p.pods {
		pp := &b.p.pods[i]
		pt := b.tr.pods[pp.name]
		// The pod's readiness on the API at from. A pod not Ready then (never
		// Ready: notReadyAtTimeout) is left out: its kubelet may not be
		// running its readiness probe yet, so its answers say nothing.
		ready := !pt.firstReady.IsZero() && pt.firstReady.Before(from)
		var shown []flip
		for _, x := range pt.transitions {
			if x.t.Before(from) {
				ready = x.ready
			} else if x.t.Before(to) {
				shown = append(shown, flip{x.t.UnixNano(), x.ready})
			}
		}
		if !ready {
			tr.Skipped++
			continue
		}
		due := dueFlips(answers[pp.key(kReadiness)], true, 3)
		m := matchFlips(due, shown)
		if pp.flip {
			tr.Flipped++
			if len(due) > 0 {
				tr.Exercised++
			}
		}
		tr.Expected += m.Due
		tr.Seen += m.Paired
		tr.Lost += m.Lost
		tr.Extra += m.Extra
		if (m.Lost > 0 || m.Extra > 0) && len(tr.Examples) < maxExamples {
			tr.Examples = append(tr.Examples, fmt.Sprintf("%s: due %s, shown %s", pp.name,
				flipString(due, from), flipString(shown, from)))
		}
	}
	return tr
}

// flipString is "[NotReady@+12.345s Ready@+14.001s]", relative to t0.
func flipString(fs []flip, t0 time.Time) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		state := "NotReady"
		if f.ready {
			state = "Ready"
		}
		parts[i] = fmt.Sprintf("%s@+%.3fs", state, float64(f.t-t0.UnixNano())/1e9)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// saveProfiles saves node 0's goroutine summary, a 10 s CPU profile and a
// heap profile (in use and allocated since the start, sampled by the runtime).
func (b *bench) saveProfiles() {
	hk := b.kubelets[0]
	base := strings.TrimSuffix(b.o.out, ".json")
	if b.o.profileDir != "" {
		base = filepath.Join(b.o.profileDir, filepath.Base(base))
	}
	for _, x := range []struct{ path, file string }{
		{"/debug/pprof/goroutine?debug=1", base + ".goroutines.txt"},
		{"/debug/pprof/profile?seconds=10", base + ".cpu.pprof"},
		{"/debug/pprof/heap", base + ".heap.pprof"},
	} {
		data, err := hk.get(hk.pprofPort, x.path)
		if err != nil {
			logf("profile %s: %v", x.path, err)
			continue
		}
		if err := os.WriteFile(x.file, data, 0o644); err != nil {
			logf("profile: %v", err)
		}
	}
}

// restart restarts every kubelet (SIGTERM, then the same command line) and
// watches the first probes of the new processes.
func (b *bench) restart(ctx context.Context) error {
	o, p := b.o, b.p
	period := int64(o.period)
	tStop := time.Now()
	logf("restarting the kubelet(s)")
	b.stopKubelets()
	for _, hk := range b.kubelets {
		if err := hk.start(); err != nil {
			return err
		}
	}
	keys := make([]map[int]bool, p.nodes)
	startup := make([]map[int]bool, p.nodes)
	for n := range keys {
		keys[n], startup[n] = map[int]bool{}, map[int]bool{}
	}
	for i := range p.pods {
		pp := &p.pods[i]
		keys[pp.node][pp.key(kReadiness)] = true
		keys[pp.node][pp.key(kLiveness)] = true
		startup[pp.node][pp.key(kStartup)] = true
	}
	t0 := b.kubelets[0].started
	for _, hk := range b.kubelets {
		t0 = earliest(t0, hk.started)
	}
	deadline := t0.Add(o.period + 3*time.Minute)
	var tAll time.Time
	for tAll.IsZero() {
		if err := sleepCtx(ctx, 500*time.Millisecond); err != nil {
			return err
		}
		seen := map[int]bool{}
		for _, e := range b.rec.since(t0.UnixNano()) {
			seen[int(e.k)] = true
		}
		missing := 0
		for n := range keys {
			for k := range keys[n] {
				if !seen[k] {
					missing++
				}
			}
		}
		if missing == 0 {
			tAll = time.Now()
		} else if time.Now().After(deadline) {
			logf("restart: %d probes never ran within %v", missing, deadline.Sub(t0).Round(time.Second))
			tAll = time.Now()
		}
		for _, hk := range b.kubelets {
			if !hk.alive() {
				return fmt.Errorf("%s exited after the restart; log: %s", hk.name, hk.logPath)
			}
		}
	}
	// One more full period, for the steady burst.
	if err := sleepCtx(ctx, time.Duration(period)+time.Second); err != nil {
		return err
	}
	evs := b.rec.since(t0.UnixNano())
	rs := &RestartSumm{TimelineBucket: float64(burstBucket) / 1e9}
	var bf, bs []float64
	for n, hk := range b.kubelets {
		if _, err := b.scrape(hk, false); err != nil { // the network rule, after the restart too
			return err
		}
		if n == 0 {
			b.checkSelfSockets()
		}
		st := restartStats(evs, keys[n], startup[n], hk.started.UnixNano(), period, time.Since(hk.started).Nanoseconds())
		if n == 0 {
			rs.TimelineNode0 = st.Timeline
		}
		st.Timeline = nil
		rs.PerNode = append(rs.PerNode, st)
		rs.Unprobed += st.Unprobed
		rs.StartupProbes += st.StartupProbes
		rs.FirstMaxS = max(rs.FirstMaxS, st.FirstMaxS)
		rs.FirstP50S += st.FirstP50S / float64(p.nodes)
		rs.DownS += hk.started.Sub(tStop).Seconds() / float64(p.nodes)
		bf = append(bf, st.BurstFirst)
		bs = append(bs, st.BurstSteady)
	}
	slices.Sort(bf)
	slices.Sort(bs)
	rs.BurstFirst, rs.BurstFirstMax, rs.BurstSteady = measure.Quantile(bf, 0.5), bf[len(bf)-1], measure.Quantile(bs, 0.5)
	b.tr.mu.Lock()
	for _, pt := range b.tr.pods {
		for _, x := range pt.transitions {
			if !x.t.Before(tStop) && !x.ready {
				rs.NotReady++
				break
			}
		}
	}
	b.tr.mu.Unlock()
	b.res.Restart = rs
	logf("restart: first probes p50 %.2fs max %.2fs after the new process started (%d never); burst peak/mean %.2f (first period), %.2f (steady); %d pods NotReady",
		rs.FirstP50S, rs.FirstMaxS, rs.Unprobed, rs.BurstFirst, rs.BurstSteady, rs.NotReady)
	return nil
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// checkWheel: which prober ran is not taken on trust. Only probewheel's
// scheduler observes prober_scheduler_start_lateness_seconds; stock's prober
// does not, nor probewheel's with its feature gate (ProbeTimerWheel) off, in a
// tree without patches/, or in the AfterFunc arm (-no-wheel).
func checkWheel(flavor string, noWheel, observed bool) error {
	if want := flavor == "probewheel" && !noWheel; observed != want {
		return fmt.Errorf("kubelet %q (-no-wheel %v): prober_scheduler_start_lateness_seconds observed: %v", flavor, noWheel, observed)
	}
	return nil
}
