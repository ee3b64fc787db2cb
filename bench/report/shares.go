package main

// Where a probe run's CPU goes (scripts/bench.sh profile): every CPU profile
// of a measured window (PROBEWHEEL_BENCH_CPUPROFILE) is split by part, each
// sample going to the first part that one of its stack's frames matches, so
// that the parts add up to the whole. A part's share of a workload's samples
// (the rounds' profiles merged) times the median CPU per run of raw.txt is
// what that part costs a run; the samples over the CPU the windows used
// (raw.txt's cpu-cores times the profiles' durations) say how much of it the
// profiles saw.
//
// Example: 1,000 samples of upstream's exec workload, 180 of them with
// (*prober).runProbe on the stack and 400 with only the Go scheduler's
// frames, at a median 35.2 µs per run: handler 6.3 µs, switching 14.1 µs.

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// shareParts are the parts, matched in this order against every frame of a
// sample's stack.
var shareParts = []struct{ name, frames string }{
	// The handler's own work, the same code in every arm (the fake exec
	// runner, the HTTP, TCP and gRPC clients).
	{"handler", `prober\.\(\*prober\)\.runProbe$`},
	// Marking, sweeping and assists, wherever they were charged.
	{"gc", `^runtime\.(gcBgMarkWorker|bgsweep|bgscavenge|gcAssistAlloc)$`},
	// prober_probe_total and prober_probe_duration_seconds, every arm alike.
	{"metrics", `prometheus`},
	// results.Manager's Set and its Updates channel.
	{"results", `kubelet/prober/results\.`},
	// Around the handler: the probe's spec, the command or request built
	// for it, events (upstream builds them every run, probewheel once).
	{"probe", `kubelet/prober\.\(\*prober\)\.`},
	// The rest of the prober: doProbe's bookkeeping (the pod's status from
	// the status manager), and when runs happen, the timers, wake-ups and
	// goroutines it takes: upstream's worker goroutine and ticker,
	// probewheel's scheduler, wheel and executors.
	{"worker", `kubelet/prober\.`},
	// The Go scheduler on its own stack: parking and switching goroutines,
	// running timers, sleeping and waking threads.
	{"switching", `^runtime\.(mcall|schedule|findRunnable|park_m|goexit0|mstart|sysmon)$`},
	// The harness's drain loop and the kubelet's status manager it feeds.
	{"harness", `probewheel/bench\.|kubelet/status\.`},
}

var sharePartRes = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(shareParts))
	for i, p := range shareParts {
		out[i] = regexp.MustCompile(p.frames)
	}
	return out
}()

// shareOther collects the samples no part matches.
const shareOther = "other"

// A profiled workload is one arm's window profiles of a workload, merged:
// their samples per part, and how long they ran.
type profiled struct {
	parts    map[string]time.Duration
	duration time.Duration
}

// sampled is the CPU time its samples hold.
func (p profiled) sampled() (total time.Duration) {
	for _, d := range p.parts {
		total += d
	}
	return total
}

// profileFile is a window's CPU profile:
// <benchmark name, "/" → "_", "=" → "-">[-round<r>of<n>]-w<window>.pprof.
var profileFile = regexp.MustCompile(`^Benchmark([^_]+)_(.*)_impl-(.+?)(-round[0-9]+of[0-9]+)?-w[0-9]+\.pprof$`)

// sharesReport writes dir/shares.md from dir/raw.txt and the profiles in
// profDir.
func sharesReport(dir, profDir string) error {
	lines, err := readRaw(filepath.Join(dir, "raw.txt"))
	if err != nil {
		return err
	}
	cpu := map[[2]string][]float64{}   // workload, impl → CPU per run of each round
	cores := map[[2]string][]float64{} // … and the cores it used
	for _, l := range lines {
		k := [2]string{workloadName(l), l.keys["impl"]}
		if v, ok := l.metrics["cpu-us/run"]; ok {
			cpu[k] = append(cpu[k], v)
		}
		if v, ok := l.metrics["cpu-cores"]; ok {
			cores[k] = append(cores[k], v)
		}
	}
	paths, err := filepath.Glob(filepath.Join(profDir, "*.pprof"))
	if err != nil {
		return err
	}
	profiles := map[[2]string]*profiled{}
	for _, p := range paths {
		m := profileFile.FindStringSubmatch(filepath.Base(p))
		if m == nil {
			continue // a heap profile, or not a window's
		}
		keys := map[string]string{}
		for _, kv := range strings.Split(m[2], "_") {
			if k, v, ok := strings.Cut(kv, "-"); ok {
				keys[k] = v
			}
		}
		k := [2]string{workloadName(benchLine{scenario: m[1], keys: keys}), m[3]}
		out, err := exec.Command("go", "tool", "pprof", "-traces", p).Output()
		if err != nil {
			return fmt.Errorf("go tool pprof -traces %s: %v", p, err)
		}
		if profiles[k] == nil {
			profiles[k] = &profiled{parts: map[string]time.Duration{}}
		}
		d, err := addShares(profiles[k].parts, out)
		if err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		profiles[k].duration += d
	}
	if len(profiles) == 0 {
		return fmt.Errorf("%s: no window CPU profiles", profDir)
	}
	text := sharesTable(dir, profDir, cpu, cores, profiles)
	return write(filepath.Join(dir, "shares.md"), text)
}

// addShares adds the samples of `go tool pprof -traces` output to by, per
// part, and returns the profile's duration (its header's). A trace is a
// separator line, the sample's value and its leaf frame, then its callers'
// frames, one per line.
func addShares(by map[string]time.Duration, traces []byte) (duration time.Duration, err error) {
	var (
		value  time.Duration
		frames []string
		open   bool
	)
	flush := func() {
		if open && value > 0 {
			by[classify(frames)] += value
		}
		open, value, frames = false, 0, frames[:0]
	}
	sc := bufio.NewScanner(bytes.NewReader(traces))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 1 && strings.HasPrefix(f[0], "-----------+"):
			flush()
			open = true
		case !open && len(f) >= 2 && f[0] == "Duration:":
			if duration, err = time.ParseDuration(strings.TrimSuffix(f[1], ",")); err != nil {
				return 0, fmt.Errorf("the header's %q: %v", sc.Text(), err)
			}
		case !open || len(f) == 0:
			// the rest of the header, or a blank line
		case value == 0:
			d, err := time.ParseDuration(f[0])
			if err != nil || len(f) < 2 {
				return 0, fmt.Errorf("a trace's first line %q: want <value> <frame>", sc.Text())
			}
			value, frames = d, append(frames, f[1])
		default:
			frames = append(frames, f[0]) // " (inline)" is a field of its own
		}
	}
	flush()
	if duration <= 0 {
		return 0, fmt.Errorf("no Duration in the header")
	}
	return duration, sc.Err()
}

// classify names the first part one of frames matches.
func classify(frames []string) string {
	for i, re := range sharePartRes {
		for _, fr := range frames {
			if re.MatchString(fr) {
				return shareParts[i].name
			}
		}
	}
	return shareOther
}

// sharesTable: a row per workload and arm, a part's microseconds per run in
// each column (its share alone where raw.txt has no CPU per run).
func sharesTable(dir, profDir string, cpu, cores map[[2]string][]float64, profiles map[[2]string]*profiled) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Where a run's CPU goes\n\n")
	fmt.Fprintf(&b, "`go run ./bench/report shares %s %s`: each arm's window CPU profiles of a workload, merged; every sample goes to the first part below that a frame of its stack matches, so the parts add up to the CPU per run (raw.txt, median over the rounds). Microseconds per run; the share of the samples in brackets. Sampled: the profiles' samples over the CPU the windows used (raw.txt's cpu-cores times the profiles' durations). Linux checks a thread's CPU-time timer at the scheduler tick, which an idle CPU stops (NO_HZ_IDLE): a thread that runs in short bursts on an otherwise idle machine is sampled less than its CPU, and a row sampled far less than the others of its workload is no split of its CPU.\n\n", dir, profDir)
	for _, p := range shareParts {
		fmt.Fprintf(&b, "- **%s**: frames matching `%s`\n", p.name, p.frames)
	}
	fmt.Fprintf(&b, "- **%s**: the rest\n\n", shareOther)
	cols := []string{}
	for _, p := range shareParts {
		cols = append(cols, p.name)
	}
	cols = append(cols, shareOther)
	fmt.Fprintf(&b, "| workload | arm | CPU per run (µs) | %s | samples | sampled |\n|---|---|---|%s---|---|\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	keys := slices.Collect(maps.Keys(profiles))
	slices.SortFunc(keys, func(a, c [2]string) int {
		if r := strings.Compare(a[0], c[0]); r != 0 {
			return r
		}
		return cmp.Compare(slices.Index(implOrder, a[1]), slices.Index(implOrder, c[1]))
	})
	for _, k := range keys {
		p := profiles[k]
		total := p.sampled()
		perRun := "–"
		if len(cpu[k]) > 0 {
			perRun = figure(median(cpu[k]), false)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |", k[0], k[1], perRun)
		for _, c := range cols {
			switch {
			case total == 0:
				b.WriteString(" – |")
			case len(cpu[k]) == 0:
				fmt.Fprintf(&b, " (%.0f %%) |", 100*float64(p.parts[c])/float64(total))
			default:
				share := float64(p.parts[c]) / float64(total)
				fmt.Fprintf(&b, " %s (%.0f %%) |", figure(share*median(cpu[k]), false), 100*share)
			}
		}
		sampled := "–"
		if len(cores[k]) > 0 && p.duration > 0 {
			sampled = fmt.Sprintf("%.0f %%", 100*total.Seconds()/(median(cores[k])*p.duration.Seconds()))
		}
		fmt.Fprintf(&b, " %d | %s |\n", int(total/time.Millisecond), sampled)
	}
	return b.String()
}
