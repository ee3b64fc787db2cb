package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Probe kinds, in the order of a pod's keys: key = pod*3 + kind.
const (
	kStartup = iota
	kReadiness
	kLiveness
	nKinds
)

var kindNames = [nKinds]string{"startup", "readiness", "liveness"}

// A handler is how one probe reaches its target.
type handler string

const (
	hExec handler = "exec"
	hHTTP handler = "http"
	hTCP  handler = "tcp"
	hGRPC handler = "grpc"
)

// Target ports on every pod IP (127.x.y.z): HTTP and gRPC serve every pod
// of that IP (the path or the service name carries the probe's key); TCP
// startup probes get one port per pod, tcpBasePort + the pod's index on its IP.
const (
	httpPort    = 8080
	grpcPort    = 9090
	tcpBasePort = 20000
)

// event is one probe as a target saw it: when (Unix ns), which key, and
// whether the target answered failure.
type event struct {
	t    int64
	k    int32
	fail bool
}

// recorder is the targets' memory: every probe's arrival, appended under one
// mutex to fixed-size chunks (no copying as it grows), and each key's state
// (ok or failing), read without a lock.
type recorder struct {
	fail    []atomic.Bool
	unknown atomic.Int64

	mu     sync.Mutex
	chunks [][]event
}

const chunkLen = 1 << 16

func newRecorder(keys int) *recorder {
	return &recorder{fail: make([]atomic.Bool, keys)}
}

// probe records a probe of key k now and reports whether the check is ok.
func (r *recorder) probe(k int) bool {
	if k < 0 || k >= len(r.fail) {
		r.unknown.Add(1)
		return false
	}
	fail := r.fail[k].Load()
	e := event{t: time.Now().UnixNano(), k: int32(k), fail: fail}
	r.mu.Lock()
	n := len(r.chunks)
	if n == 0 || len(r.chunks[n-1]) == chunkLen {
		r.chunks = append(r.chunks, make([]event, 0, chunkLen))
		n++
	}
	r.chunks[n-1] = append(r.chunks[n-1], e)
	r.mu.Unlock()
	return !fail
}

func (r *recorder) setFail(k int, fail bool) { r.fail[k].Store(fail) }

// since returns the events at or after t (Unix ns), in arrival order.
func (r *recorder) since(t int64) []event {
	r.mu.Lock()
	chunks := make([][]event, len(r.chunks))
	copy(chunks, r.chunks) // the chunks' backing arrays are append-only
	for i, c := range chunks {
		chunks[i] = c[:len(c):len(c)]
	}
	r.mu.Unlock()
	var out []event
	for _, c := range chunks {
		if len(c) == 0 || c[len(c)-1].t < t {
			continue
		}
		for _, e := range c {
			if e.t >= t {
				out = append(out, e)
			}
		}
	}
	return out
}

// targets serves the HTTP, gRPC and TCP probes of every pod, on loopback only.
type targets struct {
	rec       *recorder
	http      *http.Server
	grpc      *grpc.Server
	listeners []net.Listener
	wg        sync.WaitGroup
}

type healthServer struct {
	healthpb.UnimplementedHealthServer
	rec *recorder
}

func (h healthServer) Check(_ context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	k, err := strconv.Atoi(req.GetService())
	if err != nil {
		k = -1
	}
	if h.rec.probe(k) {
		return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
	}
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_NOT_SERVING}, nil
}

func (t *targets) serveHTTP(w http.ResponseWriter, req *http.Request) {
	k, err := strconv.Atoi(strings.TrimPrefix(req.URL.Path, "/p/"))
	if err != nil {
		k = -1
	}
	if t.rec.probe(k) {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusInternalServerError)
}

// listen binds addr, which must be an IPv4 loopback address.
func (t *targets) listen(ip netip.Addr, port int) (net.Listener, error) {
	if !ip.Is4() || !ip.IsLoopback() {
		return nil, fmt.Errorf("refusing to listen on %s: not loopback", ip)
	}
	l, err := net.Listen("tcp4", netip.AddrPortFrom(ip, uint16(port)).String())
	if err != nil {
		return nil, err
	}
	t.listeners = append(t.listeners, l)
	return l, nil
}

// startTargets listens for every probe of the plan.
func startTargets(p *plan, rec *recorder) (*targets, error) {
	t := &targets{rec: rec}
	t.http = &http.Server{Handler: http.HandlerFunc(t.serveHTTP), ReadHeaderTimeout: 10 * time.Second}
	t.http.SetKeepAlivesEnabled(false)
	// Every gRPC probe is a new connection: small per-connection buffers keep
	// the targets' cost per probe down (they share the kubelet's CPUs).
	t.grpc = grpc.NewServer(grpc.ReadBufferSize(4<<10), grpc.WriteBufferSize(4<<10),
		grpc.SharedWriteBuffer(true), grpc.InitialConnWindowSize(64<<10), grpc.InitialWindowSize(64<<10))
	healthpb.RegisterHealthServer(t.grpc, healthServer{rec: rec})
	type ipPort struct {
		ip   netip.Addr
		port int
	}
	seen := map[ipPort]bool{}
	for i := range p.pods {
		pod := &p.pods[i]
		for kind, h := range pod.handlers {
			var port int
			switch h {
			case hHTTP:
				port = httpPort
			case hGRPC:
				port = grpcPort
			case hTCP:
				port = pod.tcpPort
			default:
				continue
			}
			ap := ipPort{pod.ip, port}
			if seen[ap] {
				if h == hTCP {
					return nil, fmt.Errorf("two TCP probes on %s:%d", pod.ip, port)
				}
				continue
			}
			seen[ap] = true
			l, err := t.listen(pod.ip, port)
			if err != nil {
				t.stop()
				return nil, err
			}
			t.wg.Add(1)
			switch h {
			case hHTTP:
				go func() { defer t.wg.Done(); _ = t.http.Serve(l) }()
			case hGRPC:
				go func() { defer t.wg.Done(); _ = t.grpc.Serve(l) }()
			case hTCP:
				k := pod.key(kind)
				go func() { defer t.wg.Done(); t.acceptTCP(l, k) }()
			}
		}
	}
	return t, nil
}

// acceptTCP counts every connection as one probe of key k and closes it.
func (t *targets) acceptTCP(l net.Listener, k int) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		t.rec.probe(k)
		_ = c.Close()
	}
}

func (t *targets) stop() {
	if t.http != nil {
		_ = t.http.Close()
	}
	if t.grpc != nil {
		t.grpc.Stop()
	}
	for _, l := range t.listeners {
		_ = l.Close()
	}
	t.wg.Wait()
}
