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
