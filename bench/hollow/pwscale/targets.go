package main

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/probewheel/probewheel/bench/target"
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
	srv       *target.Server
	listeners []net.Listener
	wg        sync.WaitGroup
}

// Probe is target.Checks over the recorder: the HTTP path "p/<key>" or the
// gRPC service "<key>" names the probe, a TCP probe's key is its listener's tag.
func (r *recorder) Probe(p target.Probe) target.Answer {
	k := -1
	switch p.Handler {
	case target.HTTP:
		if name, ok := bytes.CutPrefix(p.Name, []byte("p/")); ok {
			k = atoi(name)
		}
	case target.GRPC:
		k = atoi(p.Name)
	case target.TCP:
		k = p.Tag
	}
	if r.probe(k) {
		return target.Answer{State: target.OK}
	}
	if k < 0 || k >= len(r.fail) {
		return target.Answer{State: target.NotFound}
	}
	return target.Answer{State: target.Fail}
}

// atoi parses a non-negative decimal key, or returns -1.
func atoi(b []byte) int {
	if len(b) == 0 || len(b) > 9 {
		return -1
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
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
	t := &targets{srv: &target.Server{Checks: rec, LoopbackOnly: true}}
	// Every gRPC probe is a new connection: small per-connection buffers keep
	// the targets' cost per probe down (they share the kubelet's CPUs).
	g := t.srv.GRPC(grpc.ReadBufferSize(4<<10), grpc.WriteBufferSize(4<<10),
		grpc.SharedWriteBuffer(true), grpc.InitialConnWindowSize(64<<10), grpc.InitialWindowSize(64<<10))
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
				go func() { defer t.wg.Done(); _ = t.srv.ServeHTTP(l) }()
			case hGRPC:
				go func() { defer t.wg.Done(); _ = t.srv.ServeGRPC(g, l) }()
			case hTCP:
				k := pod.key(kind)
				go func() { defer t.wg.Done(); _ = t.srv.ServeTCP(l, k) }()
			}
		}
	}
	return t, nil
}

func (t *targets) stop() {
	t.srv.Close()
	for _, l := range t.listeners {
		_ = l.Close()
	}
	t.wg.Wait()
}
