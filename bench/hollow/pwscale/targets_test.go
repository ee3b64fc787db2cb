package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// TestTargets: every handler's probe reaches its key's check, is recorded,
// and is answered as the check's state says.
func TestTargets(t *testing.T) {
	p, err := newPlan("t", 1, 2, 1, "net", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Addresses no hollow run uses (they take 127.20-220.x.x), so that the test
	// can run beside one.
	for i := range p.pods {
		p.pods[i].ip = netip.AddrFrom4([4]byte{127, 250, 0, byte(i + 1)})
	}
	rec := newRecorder(p.keys())
	tg, err := startTargets(p, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.stop()

	httpGet := func(ip netip.Addr, path string) string {
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Get(fmt.Sprintf("http://%s/%s", netip.AddrPortFrom(ip, httpPort), path))
		if err != nil {
			return err.Error()
		}
		resp.Body.Close()
		return fmt.Sprint(resp.StatusCode)
	}
	grpcCheck := func(ip netip.Addr, service string) string {
		conn, err := grpc.NewClient(netip.AddrPortFrom(ip, grpcPort).String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return err.Error()
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			return err.Error()
		}
		return resp.GetStatus().String()
	}
	tcpDial := func(pod *podPlan) string {
		c, err := net.DialTimeout("tcp4", netip.AddrPortFrom(pod.ip, uint16(pod.tcpPort)).String(), 5*time.Second)
		if err != nil {
			return err.Error()
		}
		c.Close()
		return "open"
	}

	pod := &p.pods[1]
	ready, live, start := pod.key(kReadiness), pod.key(kLiveness), pod.key(kStartup)
	rec.setFail(live, true)
	for _, tc := range []struct{ name, got, want string }{
		{"HTTP, ok", httpGet(pod.ip, fmt.Sprintf("p/%d", ready)), "200"},
		{"gRPC, failing", grpcCheck(pod.ip, fmt.Sprint(live)), "NOT_SERVING"},
		{"TCP", tcpDial(pod), "open"},
		{"HTTP, a key out of range", httpGet(pod.ip, "p/999"), "404"},
		{"HTTP, not a key", httpGet(pod.ip, "p/x1"), "404"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, tc.got, tc.want)
		}
	}
	// The TCP probe is recorded as its connection is closed: wait for it.
	deadline := time.Now().Add(5 * time.Second)
	for len(rec.since(0)) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	var got []string
	for _, e := range rec.since(0) {
		got = append(got, fmt.Sprintf("%d fail=%v", e.k, e.fail))
	}
	slices.Sort(got)
	want := []string{fmt.Sprintf("%d fail=false", ready), fmt.Sprintf("%d fail=true", live), fmt.Sprintf("%d fail=false", start)}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
	if n := rec.unknown.Load(); n != 2 {
		t.Errorf("%d probes of unknown keys, want 2", n)
	}
}
