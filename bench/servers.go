//go:build linux

package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/kubernetes/pkg/kubelet/prober/results"

	"github.com/probewheel/probewheel/bench/target"
)

// The HTTP, TCP and gRPC targets run in a child process (the test binary re-executed
// with envTargetServer=1), like pods outside the kubelet: the benchmark process's CPU,
// memory and goroutine figures then belong to the prober side only, and the targets
// do not compete with the prober for the benchmark process's Ps. Arrival times go into
// the shared targets mapping. The child listens on the wildcard address (one listener
// receives every pod's 127.x.y.z address) and closes any connection that is not
// loopback-to-loopback.
//
// Control protocol on the child's stdin/stdout:
//
//	child → "ports http=<p> grpc=<p> hole=<p> tcp=<c0 liveness>,<c0 readiness>,<c0 startup>,<c1 …>"
//	parent → "map <slot> <path>" | "unmap <slot>";  child → "ok" | "err <msg>"
//
// The child exits when its stdin closes (the benchmark process ended).
const (
	envTargetServer     = "PROBEWHEEL_BENCH_TARGET_SERVER"
	envTargetContainers = "PROBEWHEEL_BENCH_TARGET_CONTAINERS"
)

const genSlots = 200

// unmapDelay outlives any target handler still holding a mapping (hangMax + deadlines).
const unmapDelay = 15 * time.Second

// servers is the benchmark process's handle on the target-server process.
type servers struct {
	httpPort int
	grpcPort int
	holePort int     // accept queue full: SYNs are dropped, connects hang until the timeout
	tcpPorts [][]int // [container][kind]

	mu  sync.Mutex
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
}

var (
	srvOnce sync.Once
	srv     *servers
	srvErr  error
)

func getServers(containers int) (*servers, error) {
	srvOnce.Do(func() { srv, srvErr = startServers(containers) })
	if srvErr == nil && len(srv.tcpPorts) < containers {
		return nil, fmt.Errorf("target servers started for %d containers per pod, need %d", len(srv.tcpPorts), containers)
	}
	return srv, srvErr
}

func startServers(containers int) (*servers, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envTargetServer+"=1", envTargetContainers+"="+strconv.Itoa(containers))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &servers{in: in, out: bufio.NewReader(outPipe), cmd: cmd}
	line, err := s.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("target server: %v", err)
	}
	for _, f := range strings.Fields(line)[1:] {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "http":
			s.httpPort, _ = strconv.Atoi(v)
		case "grpc":
			s.grpcPort, _ = strconv.Atoi(v)
		case "hole":
			s.holePort, _ = strconv.Atoi(v)
		case "tcp":
			ps := strings.Split(v, ",")
			for c := 0; c+nKinds <= len(ps); c += nKinds {
				row := make([]int, nKinds)
				for k := range row {
					row[k], _ = strconv.Atoi(ps[c+k])
				}
				s.tcpPorts = append(s.tcpPorts, row)
			}
		}
	}
	if s.httpPort == 0 || s.grpcPort == 0 || s.holePort == 0 || len(s.tcpPorts) == 0 {
		return nil, fmt.Errorf("target server: bad greeting %q", line)
	}
	return s, nil
}

func (s *servers) call(format string, args ...any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.in, format+"\n", args...); err != nil {
		return err
	}
	line, err := s.out.ReadString('\n')
	if err != nil {
		return err
	}
	if line = strings.TrimSpace(line); line != "ok" {
		return errors.New(line)
	}
	return nil
}

func (s *servers) mapRun(slot int, path string) error { return s.call("map %d %s", slot, path) }
func (s *servers) unmapRun(slot int) error            { return s.call("unmap %d", slot) }

// ---- the target-server process ----

type targetServer struct {
	slots [genSlots]atomic.Pointer[targets]
}

func (ts *targetServer) lookup(slot int) *targets {
	if slot < 0 || slot >= genSlots {
		return nil
	}
	return ts.slots[slot].Load()
}

// runTargetServer is the child process's main.
func runTargetServer() error {
	containers, err := strconv.Atoi(os.Getenv(envTargetContainers))
	if err != nil || containers < 1 {
		containers = 1
	}
	if _, err := raiseNoFile(); err != nil {
		fmt.Fprintf(os.Stderr, "target server: raising RLIMIT_NOFILE: %v\n", err)
	}
	ts := &targetServer{}
	srv := &target.Server{Checks: ts, HangMax: hangMax, LoopbackOnly: true}
	serve := func(what string, f func() error) {
		go func() {
			if err := f(); err != nil {
				fmt.Fprintf(os.Stderr, "target server: %s: %v\n", what, err)
			}
		}()
	}

	hln, httpPort, err := listenWildcard()
	if err != nil {
		return err
	}
	serve("http", func() error { return srv.ServeHTTP(hln) })

	var tcp []string
	for ci := 0; ci < containers; ci++ {
		for k := 0; k < nKinds; k++ {
			ln, port, err := listenWildcard()
			if err != nil {
				return err
			}
			tcp = append(tcp, strconv.Itoa(port))
			tag := ci*nKinds + k
			serve("tcp", func() error { return srv.ServeTCP(ln, tag) })
		}
	}

	// Black hole for hung TCP probes: listen(backlog 0) and never accept. Once the
	// accept queue holds a connection, further SYNs are dropped and connects hang.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{}); err != nil {
		return err
	}
	if err := syscall.Listen(fd, 0); err != nil {
		return err
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return err
	}
	holePort := sa.(*syscall.SockaddrInet4).Port

	gln, grpcPort, err := listenWildcard()
	if err != nil {
		return err
	}
	gs := srv.GRPC()
	serve("grpc", func() error { return srv.ServeGRPC(gs, gln) })

	fmt.Printf("ports http=%d grpc=%d hole=%d tcp=%s\n", httpPort, grpcPort, holePort, strings.Join(tcp, ","))

	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		reply := "err bad command"
		switch {
		case len(f) == 3 && f[0] == "map":
			slot, err := strconv.Atoi(f[1])
			if err != nil || slot < 0 || slot >= genSlots {
				break
			}
			t, err := openTargets(f[2])
			if err != nil {
				reply = "err " + err.Error()
				break
			}
			if old := ts.slots[slot].Swap(t); old != nil {
				time.AfterFunc(unmapDelay, old.close)
			}
			reply = "ok"
		case len(f) == 2 && f[0] == "unmap":
			slot, err := strconv.Atoi(f[1])
			if err != nil || slot < 0 || slot >= genSlots {
				break
			}
			if old := ts.slots[slot].Swap(nil); old != nil {
				time.AfterFunc(unmapDelay, old.close)
			}
			reply = "ok"
		}
		fmt.Println(reply)
	}
	return sc.Err()
}

func listenWildcard() (*net.TCPListener, int, error) {
	ln, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4zero, Port: 0})
	if err != nil {
		return nil, 0, err
	}
	return ln, ln.Addr().(*net.TCPAddr).Port, nil
}

func decodeIP(ip net.IP) (slot, pod int, ok bool) {
	ip4 := ip.To4()
	if ip4 == nil || ip4[0] != 127 || ip4[1] < 16 || ip4[3] == 0 || ip4[3] == 255 {
		return 0, 0, false
	}
	return int(ip4[1]) - 16, int(ip4[2])*254 + int(ip4[3]) - 1, true
}

// parseGenTarget parses "<slot>/<target>" (HTTP path without the leading slash, gRPC service).
func parseGenTarget(s []byte) (slot, tgt int, ok bool) {
	j := bytes.IndexByte(s, '/')
	if j <= 0 {
		return 0, 0, false
	}
	a, err1 := strconv.Atoi(string(s[:j]))
	b, err2 := strconv.Atoi(string(s[j+1:]))
	return a, b, err1 == nil && err2 == nil
}

// Probe is target.Checks for the benchmark's targets: the HTTP path or gRPC
// service "<slot>/<target>" names the probe, and a TCP probe's pod is its
// destination address, its container and kind the listener's tag.
func (ts *targetServer) Probe(p target.Probe) target.Answer {
	var t *targets
	var i int
	switch p.Handler {
	case target.HTTP, target.GRPC:
		slot, tgt, ok := parseGenTarget(p.Name)
		if t = ts.lookup(slot); !ok || t == nil || tgt < 0 || tgt >= t.n {
			return target.Answer{State: target.NotFound}
		}
		i = tgt
	case target.TCP:
		la, _ := p.Local.(*net.TCPAddr)
		if la == nil {
			return target.Answer{State: target.NotFound}
		}
		slot, pod, ok := decodeIP(la.IP)
		ci, k := p.Tag/nKinds, p.Tag%nKinds
		if t = ts.lookup(slot); !ok || t == nil || ci >= t.C {
			return target.Answer{State: target.NotFound}
		}
		if i = (pod*t.C+ci)*nKinds + k; i >= t.n {
			return target.Answer{State: target.NotFound}
		}
	}
	fail, hung := t.arrive(i)
	switch {
	case hung && p.Handler != target.TCP:
		return target.Answer{State: target.Hang}
	case fail && p.Handler != target.TCP:
		t.answer(i, results.Failure)
		return target.Answer{State: target.Fail}
	}
	t.answer(i, results.Success)
	return target.Answer{State: target.OK}
}
