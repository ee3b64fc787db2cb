package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Environment knobs. scripts/bench.sh sets them per mode; the defaults below are
// the "default" mode's.
const (
	envSet          = "PROBEWHEEL_BENCH_SET"           // smoke | default | full | capacity: which workloads exist
	envPeriods      = "PROBEWHEEL_BENCH_PERIODS"       // measured window length, in probe periods (float)
	envMaxWindow    = "PROBEWHEEL_BENCH_MAX_WINDOW"    // cap on the window length (duration)
	envWarmup       = "PROBEWHEEL_BENCH_WARMUP"        // warm-up beyond the first period (duration)
	envImpls        = "PROBEWHEEL_BENCH_IMPLS"         // comma list and order, e.g. "probewheel,upstream"
	envExecLat      = "PROBEWHEEL_BENCH_EXEC_LATENCY"  // fake exec runner latency (duration; 0 = no-op)
	envContainers   = "PROBEWHEEL_BENCH_CONTAINERS"    // containers per pod (each gets readiness+liveness)
	envHung         = "PROBEWHEEL_BENCH_HUNG_PERCENT"  // percentage of hung probes in BenchmarkHung
	envDump         = "PROBEWHEEL_BENCH_DUMP"          // directory: dump per-probe intervals / restart timelines
	envProgress     = "PROBEWHEEL_BENCH_PROGRESS"      // "0" silences progress lines on stderr
	envRound        = "PROBEWHEEL_BENCH_ROUND"         // label printed in progress lines, e.g. "2/5"
	envSyncStatus   = "PROBEWHEEL_BENCH_SYNC_STATUS"   // "0": the drain loop does not call the status manager
	envCPUProfile   = "PROBEWHEEL_BENCH_CPUPROFILE"    // directory: CPU and heap profiles of each measured window
	envProfileHz    = "PROBEWHEEL_BENCH_CPUPROFILE_HZ" // CPU profile samples a second (default the runtime's 100)
	envProbeMetrics = "PROBEWHEEL_BENCH_PROBE_METRICS" // "0": prober_probe_total and prober_probe_duration_seconds stay unregistered
	envList         = "PROBEWHEEL_BENCH_LIST"          // "1": print each workload's -test.bench pattern instead of running it (scripts/ablation.sh)
	// PROBEWHEEL_BENCH_STALL_CANARY ("1": report the machine's own stalls) is in disturb.go.
)

type config struct {
	set        string
	periods    float64
	maxWindow  time.Duration
	warmup     time.Duration
	impls      []Impl
	execLat    time.Duration
	execModel  bool // the exec runner plays a container runtime (execModel); BenchmarkExecRuntime sets it
	containers int
	hungPct    int
	dumpDir    string
	progress   bool
	round      string
	syncStatus bool
	profileDir string
	profileHz  int
	listOnly   bool
}

func loadConfig() (*config, error) {
	c := &config{
		set:        envOr(envSet, "default"),
		periods:    5,
		maxWindow:  20 * time.Second,
		warmup:     time.Second,
		containers: 1,
		hungPct:    10,
		dumpDir:    os.Getenv(envDump),
		progress:   os.Getenv(envProgress) != "0",
		round:      os.Getenv(envRound),
		syncStatus: os.Getenv(envSyncStatus) != "0",
		profileDir: os.Getenv(envCPUProfile),
		listOnly:   os.Getenv(envList) == "1",
	}
	var err error
	if v := os.Getenv(envPeriods); v != "" {
		if c.periods, err = strconv.ParseFloat(v, 64); err != nil || c.periods <= 0 {
			return nil, fmt.Errorf("%s=%q: want a positive number", envPeriods, v)
		}
	}
	for _, d := range []struct {
		env string
		dst *time.Duration
	}{{envMaxWindow, &c.maxWindow}, {envWarmup, &c.warmup}, {envExecLat, &c.execLat}} {
		if v := os.Getenv(d.env); v != "" {
			if *d.dst, err = time.ParseDuration(v); err != nil || *d.dst < 0 {
				return nil, fmt.Errorf("%s=%q: want a duration", d.env, v)
			}
		}
	}
	if v := os.Getenv(envProfileHz); v != "" {
		if c.profileHz, err = strconv.Atoi(v); err != nil || c.profileHz < 1 || c.profileHz > 10000 {
			return nil, fmt.Errorf("%s=%q: want 1..10000", envProfileHz, v)
		}
	}
	if v := os.Getenv(envContainers); v != "" {
		if c.containers, err = strconv.Atoi(v); err != nil || c.containers < 1 || c.containers > 16 {
			return nil, fmt.Errorf("%s=%q: want 1..16", envContainers, v)
		}
	}
	if v := os.Getenv(envHung); v != "" {
		if c.hungPct, err = strconv.Atoi(v); err != nil || c.hungPct < 1 || c.hungPct > 90 {
			return nil, fmt.Errorf("%s=%q: want 1..90", envHung, v)
		}
	}
	names := envOr(envImpls, "upstream,probewheel")
	for _, n := range strings.Split(names, ",") {
		found := false
		for _, im := range Impls {
			if im.Name == strings.TrimSpace(n) {
				c.impls = append(c.impls, im)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: unknown implementation %q", envImpls, n)
		}
	}
	switch c.set {
	case "smoke", "default", "full", "capacity":
	default:
		return nil, fmt.Errorf("%s=%q: want smoke, default, full or capacity", envSet, c.set)
	}
	return c, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// window is the measured window for a probe period.
func (c *config) window(period time.Duration) time.Duration {
	w := time.Duration(c.periods * float64(period))
	if c.maxWindow > 0 && w > c.maxWindow {
		w = c.maxWindow
	}
	if w < period {
		w = period
	}
	return w
}

// Scenario names (the Benchmark function suffixes).
const (
	scSteady  = "Steady"
	scRestart = "RestartBurst"
	scHung    = "Hung"
	scFlip    = "ReadinessFlip"
	scMemory  = "Memory"
	scRuntime = "ExecRuntime"
)

// Handler names.
const (
	hExec = "exec"
	hHTTP = "http"
	hTCP  = "tcp"
	hGRPC = "grpc"
)

// workload is one (handler, pods, period[, startup]) point.
type workload struct {
	handler string
	pods    int
	period  time.Duration
	startup bool // add a startup probe per container
}

func (w workload) name(c *config) string {
	h := w.handler
	if h == hExec && c.execLat > 0 {
		h = fmt.Sprintf("exec-%s", c.execLat)
	}
	s := fmt.Sprintf("handler=%s/pods=%d/period=%s", h, w.pods, fmtPeriod(w.period))
	if c.containers > 1 {
		s += fmt.Sprintf("/containers=%d", c.containers)
	}
	if w.startup {
		s += "/startup=on"
	}
	return s
}

func fmtPeriod(p time.Duration) string {
	if p%time.Second == 0 {
		return fmt.Sprintf("%ds", p/time.Second)
	}
	return p.String()
}

func wl(h string, pods int, periodSec int) workload {
	return workload{handler: h, pods: pods, period: time.Duration(periodSec) * time.Second}
}

func wlStartup(h string, pods int, periodSec int) workload {
	w := wl(h, pods, periodSec)
	w.startup = true
	return w
}

// runtimeWorkloads are BenchmarkExecRuntime's in every set but capacity: two
// exec probes a pod every second against the model runtime's ~47 execs/s
// (execModel), at 20 execs/s, which it keeps up with, and at 80, which it does
// not.
var runtimeWorkloads = []workload{wl(hExec, 10, 1), wl(hExec, 40, 1)}

// workloadSets: which workloads each scenario runs in each mode.
//
// Network handlers are capped by probe rate, because every HTTP/TCP/gRPC probe opens a
// fresh loopback connection (upstream disables keep-alive) and the targets share the
// 2 CPU cores with the prober: HTTP and TCP run up to 2,000 probes/s, gRPC (a full HTTP/2
// handshake per probe) up to ~200 probes/s. Beyond that the benchmark would measure the
// loopback servers and the kernel's TIME-WAIT handling, not the prober; larger pod counts
// use exec probes (the fake runner identifies the probe by container ID + command).
var workloadSets = map[string]map[string][]workload{
	"smoke": {
		scSteady:  {wl(hExec, 110, 1), wl(hHTTP, 110, 1), wl(hTCP, 110, 1), wl(hGRPC, 110, 1), wlStartup(hExec, 110, 1)},
		scRestart: {wl(hExec, 110, 1)},
		scHung:    {wl(hExec, 110, 1), wl(hHTTP, 110, 1), wl(hTCP, 110, 1), wl(hGRPC, 110, 1)},
		scFlip:    {wl(hExec, 110, 1), wl(hHTTP, 110, 1), wl(hGRPC, 110, 1)},
		scMemory:  {wl(hExec, 110, 1)},
		scRuntime: runtimeWorkloads,
	},
	"default": {
		// Every handler at a common node size (110 pods) and at 1,000 pods (gRPC every 10 s:
		// the rate cap above), then exec at density.
		scSteady: {
			wl(hExec, 110, 1), wl(hHTTP, 110, 1), wl(hTCP, 110, 1), wl(hGRPC, 110, 1),
			wl(hExec, 1000, 1), wl(hHTTP, 1000, 1), wl(hTCP, 1000, 1), wl(hGRPC, 1000, 10),
			wl(hExec, 5000, 1), wl(hExec, 10000, 10),
		},
		scRestart: {wl(hExec, 1000, 1)},
		scHung:    {wl(hExec, 1000, 1)},
		scFlip:    {wl(hExec, 1000, 1)},
		scMemory:  {wl(hExec, 10000, 10)},
		scRuntime: runtimeWorkloads,
	},
	"full": {
		scSteady: {
			wl(hExec, 110, 1), wl(hExec, 1000, 1), wl(hExec, 5000, 1), wl(hExec, 10000, 1),
			wl(hExec, 110, 10), wl(hExec, 1000, 10), wl(hExec, 5000, 10), wl(hExec, 10000, 10),
			wl(hHTTP, 110, 1), wl(hHTTP, 1000, 1), wl(hHTTP, 10000, 10),
			wl(hTCP, 110, 1), wl(hTCP, 1000, 1), wl(hTCP, 10000, 10),
			wl(hGRPC, 110, 1), wl(hGRPC, 1000, 10),
			wlStartup(hExec, 1000, 1), wlStartup(hExec, 10000, 10),
		},
		scRestart: {
			wl(hExec, 110, 1), wl(hExec, 1000, 1), wl(hExec, 5000, 1), wl(hExec, 10000, 1),
			wl(hExec, 10000, 10), wl(hHTTP, 1000, 1),
		},
		scHung: {
			wl(hExec, 1000, 1), wl(hExec, 5000, 1), wl(hExec, 10000, 10),
			wl(hHTTP, 1000, 1), wl(hTCP, 1000, 1), wl(hGRPC, 110, 1),
		},
		scFlip: {
			wl(hExec, 110, 1), wl(hExec, 1000, 1), wl(hExec, 10000, 1), wl(hExec, 10000, 10),
			wl(hHTTP, 1000, 1), wl(hGRPC, 110, 1),
		},
		scMemory:  {wl(hExec, 10000, 10)},
		scRuntime: runtimeWorkloads,
	},
	// The capacity sweep (scripts/bench.sh capacity, bench/report capacity): probe rates rising at a 1 s period, two
	// probes per pod, until every arm misses its timing; HTTP's rates stop where the
	// loopback targets, which share the 2 cores, would be what is measured.
	"capacity": {
		scSteady: {
			wl(hExec, 1000, 1), wl(hExec, 2000, 1), wl(hExec, 3000, 1), wl(hExec, 5000, 1),
			wl(hExec, 7500, 1), wl(hExec, 10000, 1), wl(hExec, 15000, 1), wl(hExec, 20000, 1),
			wl(hHTTP, 110, 1), wl(hHTTP, 250, 1), wl(hHTTP, 500, 1), wl(hHTTP, 750, 1),
			wl(hHTTP, 1000, 1), wl(hHTTP, 1500, 1),
		},
	},
}
