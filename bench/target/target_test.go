package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	grpcstatus "google.golang.org/grpc/status"
)

// recorder answers every probe with answer and keeps what it saw.
type recorder struct {
	mu     sync.Mutex
	seen   []Probe
	answer Answer
}

func (r *recorder) Probe(p Probe) Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	p.Name = append([]byte(nil), p.Name...) // valid only during the call
	r.seen = append(r.seen, p)
	return r.answer
}

func (r *recorder) probes() []Probe {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Probe(nil), r.seen...)
}

// serve starts a Server on loopback listeners for each handler and returns
// their addresses.
func serve(t *testing.T, checks Checks, hangMax time.Duration) (httpAddr, tcpAddr, grpcAddr string) {
	t.Helper()
	s := &Server{Checks: checks, HangMax: hangMax, LoopbackOnly: true}
	listen := func() net.Listener {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	hl, tl, gl := listen(), listen(), listen()
	var wg sync.WaitGroup
	wg.Add(3)
	errs := make(chan error, 3)
	go func() { defer wg.Done(); errs <- s.ServeHTTP(hl) }()
	go func() { defer wg.Done(); errs <- s.ServeTCP(tl, 7) }()
	g := s.GRPC()
	go func() { defer wg.Done(); errs <- s.ServeGRPC(g, gl) }()
	t.Cleanup(func() {
		s.Close()
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("a Serve call returned %v after Close", err)
			}
		}
	})
	return hl.Addr().String(), tl.Addr().String(), gl.Addr().String()
}

// probeHTTP gets /path and returns the status code, or the error.
func probeHTTP(addr, path string, timeout time.Duration) (int, error) {
	c := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get("http://" + addr + "/" + path)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// probeGRPC checks service and returns the status, or the error's code.
func probeGRPC(addr, service string, timeout time.Duration) (string, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "", err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return "", err
	}
	return resp.GetStatus().String(), nil
}

func TestServer(t *testing.T) {
	const hangMax = 300 * time.Millisecond
	tests := []struct {
		name     string
		answer   Answer
		wantHTTP string // status code or "error"
		wantGRPC string // status or error code
		minTime  time.Duration
	}{
		{"ok", Answer{State: OK}, "200", "SERVING", 0},
		{"fail", Answer{State: Fail}, "503", "NOT_SERVING", 0},
		{"not found", Answer{State: NotFound}, "404", codes.NotFound.String(), 0},
		{"slow but healthy", Answer{State: OK, Delay: 50 * time.Millisecond}, "200", "SERVING", 50 * time.Millisecond},
		// The client gives up after 2 s; the target lets go at hangMax.
		{"hung, held up to HangMax", Answer{State: Hang}, "error", codes.DeadlineExceeded.String(), hangMax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{answer: tc.answer}
			httpAddr, tcpAddr, grpcAddr := serve(t, rec, hangMax)

			start := time.Now()
			code, err := probeHTTP(httpAddr, "check/ready?x=1", 2*time.Second)
			got := fmt.Sprint(code)
			if err != nil {
				got = "error"
			}
			if got != tc.wantHTTP {
				t.Errorf("HTTP: %s (%v), want %s", got, err, tc.wantHTTP)
			}
			if d := time.Since(start); d < tc.minTime {
				t.Errorf("HTTP answered after %v, want at least %v", d, tc.minTime)
			}

			start = time.Now()
			got, err = probeGRPC(grpcAddr, "liveness", 2*time.Second)
			if err != nil {
				got = grpcstatus.Code(err).String()
			}
			if got != tc.wantGRPC {
				t.Errorf("gRPC: %s (%v), want %s", got, err, tc.wantGRPC)
			}
			if d := time.Since(start); d < tc.minTime {
				t.Errorf("gRPC answered after %v, want at least %v", d, tc.minTime)
			}

			c, err := net.Dial("tcp4", tcpAddr)
			if err != nil {
				t.Fatalf("TCP: %v", err)
			}
			// The target closes the connection once it has counted it.
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
				t.Errorf("TCP: read %v, want EOF (closed by the target)", err)
			}
			c.Close()

			want := []struct {
				h    Handler
				name string
				tag  int
				addr string
			}{{HTTP, "check/ready", 0, httpAddr}, {GRPC, "liveness", 0, grpcAddr}, {TCP, "", 7, tcpAddr}}
			seen := rec.probes()
			if len(seen) != len(want) {
				t.Fatalf("recorded %d probes, want %d: %+v", len(seen), len(want), seen)
			}
			for i, w := range want {
				p := seen[i]
				if p.Handler != w.h || string(p.Name) != w.name || p.Tag != w.tag || p.Local == nil || p.Local.String() != w.addr {
					t.Errorf("probe %d: %v %q tag %d at %v, want %v %q tag %d at %s", i, p.Handler, p.Name, p.Tag, p.Local, w.h, w.name, w.tag, w.addr)
				}
			}
		})
	}
}

// TestServerBadRequests: what no prober sends gets an error, not a probe.
func TestServerBadRequests(t *testing.T) {
	rec := &recorder{answer: Answer{State: OK}}
	httpAddr, _, _ := serve(t, rec, time.Second)
	for _, tc := range []struct {
		name, request, want string
	}{
		{"no path", "GET HTTP/1.1\r\n\r\n", "HTTP/1.1 400"},
		{"a relative path", "GET x HTTP/1.1\r\n\r\n", "HTTP/1.1 400"},
		{"a head over 4 KiB", "GET /" + strings.Repeat("a", 5000) + " HTTP/1.1\r\n\r\n", "HTTP/1.1 400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp4", httpAddr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(2 * time.Second))
			if _, err := io.WriteString(c, tc.request); err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(c)
			if !strings.HasPrefix(string(b), tc.want) {
				t.Errorf("answered %q, want %s", b, tc.want)
			}
		})
	}
	if n := len(rec.probes()); n != 0 {
		t.Errorf("%d probes recorded from bad requests", n)
	}
}
