package main

import (
	"testing"

	"github.com/probewheel/probewheel/bench/target"
)

// TestChecks: each handler's probe names its check, is counted, and is
// answered as the check's state file says.
func TestChecks(t *testing.T) {
	stateDir = t.TempDir()
	for name, state := range map[string]string{"readiness": stateFail, "liveness": stateHang} {
		if err := setState(name, state); err != nil {
			t.Fatal(err)
		}
	}
	c := checks{&counters{n: map[string]int{}, times: map[string][]int64{}}}
	for _, tc := range []struct {
		name    string
		probe   target.Probe
		want    target.State
		counted string // the counter it adds to, "" for none
	}{
		{"HTTP, ok (no state file)", target.Probe{Handler: target.HTTP, Name: []byte("check/startup")}, target.OK, "http/startup"},
		{"HTTP, failing", target.Probe{Handler: target.HTTP, Name: []byte("check/readiness")}, target.Fail, "http/readiness"},
		{"HTTP, hanging", target.Probe{Handler: target.HTTP, Name: []byte("check/liveness")}, target.Hang, "http/liveness"},
		{"HTTP, another path", target.Probe{Handler: target.HTTP, Name: []byte("healthz")}, target.NotFound, ""},
		{"HTTP, an invalid name", target.Probe{Handler: target.HTTP, Name: []byte("check/../x")}, target.NotFound, ""},
		{"gRPC, the default service", target.Probe{Handler: target.GRPC}, target.OK, "grpc/grpc"},
		{"gRPC, failing", target.Probe{Handler: target.GRPC, Name: []byte("readiness")}, target.Fail, "grpc/readiness"},
		{"TCP", target.Probe{Handler: target.TCP}, target.OK, "tcp/tcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := c.cnt.snapshot()
			if got := c.Probe(tc.probe).State; got != tc.want {
				t.Errorf("answered %v, want %v", got, tc.want)
			}
			after := c.cnt.snapshot()
			for k, n := range after {
				if d := n - before[k]; (k == tc.counted && d != 1) || (k != tc.counted && d != 0) {
					t.Errorf("counter %s went up by %d", k, d)
				}
			}
			if tc.counted != "" && after[tc.counted] == 0 {
				t.Errorf("counter %s not counted", tc.counted)
			}
		})
	}
}

// TestExecTimes: the exec check's calls come back as /times serves them, the
// newest maxTimes, oldest first; a check never called has none.
func TestExecTimes(t *testing.T) {
	stateDir = t.TempDir()
	if got := execTimes("readiness"); len(got) != 0 {
		t.Fatalf("no calls yet, got %v", got)
	}
	const calls = maxTimes + 3
	for range calls {
		if rc := cmdCheck([]string{"readiness"}); rc != 0 {
			t.Fatalf("check exited %d", rc)
		}
	}
	got := execTimes("readiness")
	if len(got) != maxTimes {
		t.Fatalf("%d calls kept, want %d", len(got), maxTimes)
	}
	for i := 1; i < len(got); i++ {
		if got[i] < got[i-1] {
			t.Fatalf("call %d at %d before call %d at %d", i, got[i], i-1, got[i-1])
		}
	}
	if n := (&counters{n: map[string]int{}}).snapshot()["exec/readiness"]; n != calls {
		t.Errorf("stats count %d exec calls, want %d", n, calls)
	}
}
