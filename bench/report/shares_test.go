package main

import (
	"strings"
	"testing"
	"time"
)

func TestAddShares(t *testing.T) {
	const header = "File: bench.test\nType: cpu\nDuration: 2s, Total samples = 60ms ( 3.00%)\n"
	const sep = "-----------+-------------------------------------------------------\n"
	for _, tc := range []struct {
		name   string
		traces string
		want   map[string]time.Duration
	}{{
		name: "a frame anywhere on the stack names the part",
		traces: header + sep +
			"      10ms   runtime.futex\n             runtime.notewakeup\n             runtime.wakep\n" +
			"             k8s.io/kubernetes/pkg/kubelet/prober.(*worker).run\n" + sep +
			"       3ms   runtime.futex\n             runtime.schedule\n             runtime.park_m\n             runtime.mcall\n",
		want: map[string]time.Duration{"worker": 10 * time.Millisecond, "switching": 3 * time.Millisecond},
	}, {
		name: "the parts' order decides between two matches",
		traces: header + sep +
			"    1.50ms   runtime.gcAssistAlloc\n             runtime.mallocgc\n" +
			"             github.com/probewheel/probewheel/pkg/kubelet/prober.(*prober).runProbe\n" +
			"             github.com/probewheel/probewheel/pkg/kubelet/prober.(*worker).doProbe\n" + sep +
			"       1ms   runtime.gcAssistAlloc\n" +
			"             github.com/prometheus/client_golang/prometheus.(*histogram).Observe\n" +
			"             k8s.io/kubernetes/pkg/kubelet/prober.(*worker).doProbe\n" + sep +
			"       2ms   k8s.io/kubernetes/pkg/kubelet/prober/results.(*manager).Set\n" +
			"             k8s.io/kubernetes/pkg/kubelet/prober.(*worker).doProbe\n",
		want: map[string]time.Duration{"handler": 1500 * time.Microsecond, "gc": time.Millisecond, "results": 2 * time.Millisecond},
	}, {
		name: "inline marks and unknown stacks",
		traces: header + sep +
			"      20ms   github.com/probewheel/probewheel/pkg/kubelet/prober.(*prober).probeWith (inline)\n" +
			"             github.com/probewheel/probewheel/pkg/kubelet/prober.(*worker).doProbe\n" + sep +
			"      30ms   syscall.Syscall6\n             os.(*File).Write\n" + sep +
			"       5ms   github.com/probewheel/probewheel/bench.(*harness).drain\n",
		want: map[string]time.Duration{"probe": 20 * time.Millisecond, "other": 30 * time.Millisecond, "harness": 5 * time.Millisecond},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]time.Duration{}
			d, err := addShares(got, []byte(tc.traces))
			if err != nil {
				t.Fatal(err)
			}
			if d != 2*time.Second {
				t.Errorf("duration %v, want the header's 2s", d)
			}
			if len(got) != len(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s: got %v, want %v (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
}

func TestAddSharesRefusesAMalformedTrace(t *testing.T) {
	for _, bad := range []string{
		"Duration: 2s, Total samples = 10ms\n-----------+------\n      tenms   runtime.futex\n",
		"-----------+------\n      10ms   runtime.futex\n", // no header
	} {
		if _, err := addShares(map[string]time.Duration{}, []byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestProfileFile(t *testing.T) {
	for _, tc := range []struct{ file, scenario, keys, impl string }{
		{"BenchmarkSteady_handler-exec_pods-1000_period-1s_impl-probewheel-round1of2-w0.pprof", "Steady", "handler-exec_pods-1000_period-1s", "probewheel"},
		{"BenchmarkSteady_handler-grpc_pods-1000_period-10s_impl-gate-off-w3.pprof", "Steady", "handler-grpc_pods-1000_period-10s", "gate-off"},
		{"BenchmarkSteady_handler-exec_pods-1000_period-1s_impl-upstream-round2of2-w0-heap.pprof", "", "", ""},
	} {
		m := profileFile.FindStringSubmatch(tc.file)
		if tc.impl == "" {
			if m != nil {
				t.Errorf("%s: matched %q, want no match", tc.file, m)
			}
			continue
		}
		if m == nil || m[1] != tc.scenario || m[2] != tc.keys || m[3] != tc.impl {
			t.Errorf("%s: got %q, want %s %s %s", tc.file, m, tc.scenario, tc.keys, tc.impl)
		}
	}
}

func TestSharesTableRows(t *testing.T) {
	ms := time.Millisecond
	k := func(impl string) [2]string { return [2]string{"Steady exec, 1,000 pods, 1 s", impl} }
	cpu := map[[2]string][]float64{k("upstream"): {30, 40, 50}}
	cores := map[[2]string][]float64{k("upstream"): {0.5}, k("probewheel"): {0.5}}
	profiles := map[[2]string]*profiled{
		// 40 µs a run, a quarter of it the handler; 100 ms sampled of 0.5 cores × 2 s.
		k("upstream"): {parts: map[string]time.Duration{"handler": 25 * ms, "worker": 75 * ms}, duration: 2 * time.Second},
		// No CPU per run in raw.txt: shares only.
		k("probewheel"): {parts: map[string]time.Duration{"worker": 10 * ms}, duration: 2 * time.Second},
		// No sample at all.
		k("afterfunc"): {parts: map[string]time.Duration{}, duration: 2 * time.Second},
	}
	rows := strings.Split(sharesTable("d", "p", cpu, cores, profiles), "\n")
	for _, tc := range []struct{ impl, prefix, suffix string }{
		{"upstream", "| 40.0 | 10.0 (25 %) |", " 100 | 10 % |"},
		{"probewheel", "| – | (0 %) |", " 10 | 1 % |"},
		{"afterfunc", "| – | – |", " 0 | – |"},
	} {
		found := false
		for _, r := range rows {
			head := "| " + k(tc.impl)[0] + " | " + tc.impl + " "
			if !strings.HasPrefix(r, head) {
				continue
			}
			found = true
			if rest := strings.TrimPrefix(r, head); !strings.HasPrefix(rest, tc.prefix) || !strings.HasSuffix(r, tc.suffix) {
				t.Errorf("%s: row %q, want it to start %q after the arm and end %q", tc.impl, r, tc.prefix, tc.suffix)
			}
		}
		if !found {
			t.Errorf("%s: no row", tc.impl)
		}
	}
}
