// Package target is the probe target every level of the measurements serves:
// the in-process benchmarks' target process (bench), the hollow-node driver's
// targets (pwscale), the container the cluster tests probe (e2e/probetarget)
// and the handler benchmarks of the prober package. A Server answers HTTP,
// TCP and gRPC health probes; what a probe names is resolved, recorded and
// decided by the level's Checks, since each keeps state and arrivals its own
// way (a ring shared with the benchmark process, an in-memory log, files in a
// container).
//
// Every probe gets one of four answers: OK, Fail, Hang (held until the prober
// gives up, or HangMax), or NotFound, after an optional delay (a slow but
// healthy target). HTTP is a minimal HTTP/1.1 responder, one request per
// connection as the kubelet sends them (no keep-alive): a status line,
// Content-Length: 0 and Connection: close, so what the prober reads is the
// same at every level and costs the target little.
package target

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/peer"
	grpcstatus "google.golang.org/grpc/status"
)

// Handler is the probe handler a probe came through.
type Handler uint8

const (
	HTTP Handler = iota
	TCP
	GRPC
)

func (h Handler) String() string {
	switch h {
	case HTTP:
		return "http"
	case TCP:
		return "tcp"
	case GRPC:
		return "grpc"
	}
	return "unknown"
}

// State is how a target answers a probe.
type State uint8

const (
	// OK: HTTP 200, gRPC SERVING; a TCP connection is accepted.
	OK State = iota
	// Fail: HTTP 503, gRPC NOT_SERVING. A TCP probe cannot fail on an open
	// port: a level that fails one closes its listener.
	Fail
	// Hang: the request is held until the prober gives up or HangMax passes.
	Hang
	// NotFound: the probe names no check: HTTP 404, gRPC NotFound.
	NotFound
)

// Probe is one probe as it reaches the target.
type Probe struct {
	Handler Handler
	// Name is what the probe asks for: an HTTP request's path without its
	// leading '/', a gRPC health check's service; nil for TCP. It is valid
	// only during the call.
	Name []byte
	// Tag is the TCP listener's tag (ServeTCP), 0 otherwise.
	Tag int
	// Local is the address the probe reached: with one listener on the
	// wildcard address, it tells the pods apart.
	Local net.Addr
}

// Answer is how to answer a probe.
type Answer struct {
	State State
	// Delay is how long the target takes before it answers.
	Delay time.Duration
}

// Checks resolves a probe to a check, records it and decides the answer.
// Probe is called once per probe, from many goroutines at once.
type Checks interface {
	Probe(p Probe) Answer
}

// ChecksFunc is a function that serves as Checks.
type ChecksFunc func(Probe) Answer

func (f ChecksFunc) Probe(p Probe) Answer { return f(p) }

// DefaultHangMax bounds a hung probe: longer than any probe timeout the
// measurements use.
const DefaultHangMax = 2 * time.Minute

// Server serves probes to Checks. Its zero value is not usable: set Checks.
type Server struct {
	Checks Checks
	// HangMax bounds how long a hung (or delayed) probe is held; 0 means
	// DefaultHangMax.
	HangMax time.Duration
	// LoopbackOnly closes every connection that is not from loopback to
	// loopback (the benchmarks' network rule).
	LoopbackOnly bool

	mu        sync.Mutex
	listeners []net.Listener
	grpc      []*grpc.Server
	closed    bool
}

func (s *Server) hangMax() time.Duration {
	if s.HangMax > 0 {
		return s.HangMax
	}
	return DefaultHangMax
}

// track remembers l for Close; false if the server is closed.
func (s *Server) track(l net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.listeners = append(s.listeners, l)
	return true
}

// Close stops every listener and gRPC server the server serves; the Serve
// calls return.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	ls, gs := s.listeners, s.grpc
	s.listeners, s.grpc = nil, nil
	s.mu.Unlock()
	for _, l := range ls {
		_ = l.Close()
	}
	for _, g := range gs {
		g.Stop()
	}
}

// accept calls handle with every connection l accepts, in a goroutine each
// unless inline, until l is closed. Transient errors (a full file table, an
// aborted connection) are waited out.
func (s *Server) accept(l net.Listener, inline bool, handle func(net.Conn)) error {
	if !s.track(l) {
		_ = l.Close() // closed before it served: as if closed while serving
		return nil
	}
	for {
		c, err := l.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) ||
				errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ECONNABORTED) {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		if s.LoopbackOnly && !loopback(c) {
			_ = c.Close()
			continue
		}
		if inline {
			handle(c)
		} else {
			go handle(c)
		}
	}
}

func loopback(c net.Conn) bool {
	la, _ := c.LocalAddr().(*net.TCPAddr)
	ra, _ := c.RemoteAddr().(*net.TCPAddr)
	return la != nil && ra != nil && la.IP.IsLoopback() && ra.IP.IsLoopback()
}

// ServeTCP counts every connection l accepts as a probe with tag and closes
// it, on the accepting goroutine (Checks must not block for TCP). It returns
// nil when l is closed.
func (s *Server) ServeTCP(l net.Listener, tag int) error {
	return s.accept(l, true, func(c net.Conn) {
		s.Checks.Probe(Probe{Handler: TCP, Tag: tag, Local: c.LocalAddr()})
		_ = c.Close()
	})
}

var (
	http200 = []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	http503 = []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	http404 = []byte("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	http400 = []byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	crlf2   = []byte("\r\n\r\n")
)

// maxHeader bounds a request's head: a probe's is a few hundred bytes.
const maxHeader = 4096

// ServeHTTP answers one HTTP/1.1 request per connection l accepts. It
// returns nil when l is closed.
func (s *Server) ServeHTTP(l net.Listener) error {
	return s.accept(l, false, s.serveHTTP)
}

func (s *Server) serveHTTP(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(s.hangMax() + 10*time.Second))
	var buf [maxHeader]byte
	n := 0
	for !bytes.Contains(buf[:n], crlf2) {
		if n == len(buf) {
			_, _ = c.Write(http400)
			return
		}
		m, err := c.Read(buf[n:])
		n += m
		if err != nil && !bytes.Contains(buf[:n], crlf2) {
			return
		}
	}
	// "GET /<name> HTTP/1.1"
	line := buf[:bytes.IndexByte(buf[:n], '\r')]
	sp1 := bytes.IndexByte(line, ' ')
	sp2 := bytes.LastIndexByte(line, ' ')
	if sp1 < 0 || sp2 <= sp1+1 || line[sp1+1] != '/' {
		_, _ = c.Write(http400)
		return
	}
	path := line[sp1+2 : sp2]
	if q := bytes.IndexByte(path, '?'); q >= 0 {
		path = path[:q]
	}
	a := s.Checks.Probe(Probe{Handler: HTTP, Name: path, Local: c.LocalAddr()})
	if !s.wait(a, c) {
		return
	}
	switch a.State {
	case OK:
		_, _ = c.Write(http200)
	case Fail:
		_, _ = c.Write(http503)
	default:
		_, _ = c.Write(http404)
	}
}

// wait holds an HTTP connection for a's delay, or while it hangs: until the
// prober closes it or HangMax passes. It reports whether to answer.
func (s *Server) wait(a Answer, c net.Conn) bool {
	switch {
	case a.State == Hang:
		_ = c.SetReadDeadline(time.Now().Add(s.hangMax()))
		var b [64]byte
		for {
			if _, err := c.Read(b[:]); err != nil {
				return false
			}
		}
	case a.Delay > 0:
		time.Sleep(min(a.Delay, s.hangMax()))
	}
	return true
}

// GRPC returns a gRPC server with the health service registered, serving
// probes to Checks; the caller serves it on its listeners (Serve). Close
// stops it.
func (s *Server) GRPC(opts ...grpc.ServerOption) *grpc.Server {
	g := grpc.NewServer(opts...)
	healthpb.RegisterHealthServer(g, &health{s: s})
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.grpc = append(s.grpc, g)
	}
	s.mu.Unlock()
	if closed {
		g.Stop()
	}
	return g
}

// ServeGRPC serves g (from GRPC) on l; with LoopbackOnly, only loopback
// connections reach it. It returns nil when l or g is closed.
func (s *Server) ServeGRPC(g *grpc.Server, l net.Listener) error {
	if !s.track(l) {
		_ = l.Close()
		return nil
	}
	if s.LoopbackOnly {
		l = loopbackListener{l}
	}
	if err := g.Serve(l); err != nil && !errors.Is(err, grpc.ErrServerStopped) && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

type loopbackListener struct{ net.Listener }

func (l loopbackListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || loopback(c) {
			return c, err
		}
		_ = c.Close()
	}
}

// health is grpc.health.v1.Health over a Server's Checks.
type health struct {
	healthpb.UnimplementedHealthServer
	s *Server
}

func (h *health) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	var local net.Addr
	if p, ok := peer.FromContext(ctx); ok {
		local = p.LocalAddr
	}
	a := h.s.Checks.Probe(Probe{Handler: GRPC, Name: []byte(req.GetService()), Local: local})
	if a.State == Hang || a.Delay > 0 {
		d := a.Delay
		if a.State == Hang {
			d = h.s.hangMax()
		}
		t := time.NewTimer(min(d, h.s.hangMax()))
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, grpcstatus.Error(codes.DeadlineExceeded, "probe gave up")
		case <-t.C:
		}
		if a.State == Hang {
			return nil, grpcstatus.Error(codes.DeadlineExceeded, "hung")
		}
	}
	switch a.State {
	case OK:
		return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
	case Fail:
		return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_NOT_SERVING}, nil
	}
	return nil, grpcstatus.Error(codes.NotFound, "unknown service")
}
