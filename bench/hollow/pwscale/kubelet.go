package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// hollowKubelet is one hollow node process (the real kubelet code against
// the benchmark's fake runtime), started and restarted with the same
// arguments, so a restart finds its root directory and its containers again.
type hollowKubelet struct {
	name      string
	args      []string
	bin       string
	logPath   string
	criPath   string // the fake runtime's socket
	pidPath   string
	roPort    int // the kubelet's read-only port: /metrics, /metrics/probes, /healthz
	pprofPort int // the overlay's --pprof-address
	utsName   bool
	cmd       *exec.Cmd
	done      chan struct{}
	started   time.Time
}

// kubeletPorts: node n uses kubeletBasePort + 10n (the secure port, unused),
// +1 (read-only) and +2 (pprof), all on 127.0.0.1; below the ephemeral range.
const kubeletBasePort = 30000

func newHollowKubelet(o *options, p *plan, n int, rundir string) *hollowKubelet {
	name := p.nodeNames[n]
	base := kubeletBasePort + 10*n
	dir := filepath.Join(rundir, name)
	hk := &hollowKubelet{
		name: name, bin: o.hollowNode, roPort: base + 1, pprofPort: base + 2,
		logPath: filepath.Join(rundir, name+".log"), pidPath: filepath.Join(rundir, name+".pid"),
		criPath: filepath.Join(dir, "cri.sock"), utsName: o.uts,
	}
	hk.args = []string{
		"--morph=kubelet",
		"--name=" + name,
		"--kubeconfig=" + o.kubeconfig,
		"--runtime-endpoint=unix://" + hk.criPath,
		"--use-host-image-service=false",
		"--root-dir=" + filepath.Join(dir, "root"),
		"--address=127.0.0.1",
		"--healthz-port=0",
		fmt.Sprintf("--kubelet-port=%d", base),
		fmt.Sprintf("--kubelet-read-only-port=%d", hk.roPort),
		fmt.Sprintf("--pprof-address=127.0.0.1:%d", hk.pprofPort),
		fmt.Sprintf("--max-pods=%d", p.podsPerNode+10),
		fmt.Sprintf("--kube-api-qps=%g", o.apiQPS),
		fmt.Sprintf("--kube-api-burst=%d", o.apiBurst),
		"--node-ip=" + o.nodeIP,
		"--node-labels=" + runLabel + "=" + o.runID,
		fmt.Sprintf("--v=%d", o.kubeletV),
	}
	return hk
}

func (hk *hollowKubelet) start() error {
	if err := os.MkdirAll(filepath.Dir(hk.criPath), 0o755); err != nil {
		return err
	}
	logf, err := os.OpenFile(hk.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "=== pwscale: starting %s %s at %s\n", hk.bin, strings.Join(hk.args, " "), time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(hk.bin, hk.args...)
	if hk.utsName {
		// Its own UTS namespace with the node's name as host name, as on a
		// real node: probewheel seeds its first-probe phases from the host
		// name, and hollow nodes sharing this host's would all share one seed.
		// unshare execs the kubelet in place: the PID stays the kubelet's.
		cmd = exec.Command("unshare", append([]string{"--uts", "--", "/bin/sh", "-c",
			`hostname "$0" && exec "$@"`, hk.name, hk.bin}, hk.args...)...)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group; killed with us if we die (the scale-bench script
	// also stops every PID in the .pid files).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	hk.cmd, hk.started, hk.done = cmd, time.Now(), make(chan struct{})
	_ = os.WriteFile(hk.pidPath, []byte(fmt.Sprintf("%d %s\n", cmd.Process.Pid, hk.bin)), 0o644)
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(hk.done)
	}()
	return nil
}

func (hk *hollowKubelet) pid() int { return hk.cmd.Process.Pid }

func (hk *hollowKubelet) alive() bool {
	select {
	case <-hk.done:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM, then SIGKILL after grace; it returns once the process is gone.
func (hk *hollowKubelet) stop(grace time.Duration) {
	if hk.cmd == nil || !hk.alive() {
		return
	}
	_ = hk.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-hk.done:
	case <-time.After(grace):
		_ = hk.cmd.Process.Kill()
		<-hk.done
	}
	_ = os.Remove(hk.pidPath)
}

var loopbackHTTP = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// get fetches a path from the kubelet's loopback ports.
func (hk *hollowKubelet) get(port int, path string) ([]byte, error) {
	resp, err := loopbackHTTP.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return b, err
}

// waitHealthy waits for the read-only port's /healthz.
func (hk *hollowKubelet) waitHealthy(ctx context.Context) error {
	for {
		if _, err := hk.get(hk.roPort, "/healthz"); err == nil {
			return nil
		}
		if !hk.alive() {
			return fmt.Errorf("%s exited; log: %s", hk.name, hk.logPath)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: no /healthz on 127.0.0.1:%d: %w", hk.name, hk.roPort, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// --- sockets (/proc)

// nonLoopbackSockets lists the TCP and UDP sockets of pid whose remote end
// (or, listening, whose local end) is not a loopback address: the benchmark's
// network rule says there must be none.
func nonLoopbackSockets(pid int) ([]string, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	var bad []string
	for _, proto := range []string{"tcp", "tcp6", "udp", "udp6"} {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", pid, proto))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || !inodes[fs[9]] {
				continue
			}
			local, remote := procAddr(fs[1]), procAddr(fs[2])
			check := remote
			if remote.Addr().IsUnspecified() {
				check = local // listening (TCP) or unconnected (UDP)
			}
			if !check.Addr().IsLoopback() {
				bad = append(bad, fmt.Sprintf("%s %s -> %s", proto, local, remote))
			}
		}
		f.Close()
	}
	return bad, nil
}

// procAddr parses /proc/net/tcp's "0100007F:1F90" (little-endian words).
func procAddr(s string) netip.AddrPort {
	hexIP, hexPort, _ := strings.Cut(s, ":")
	b, _ := hex.DecodeString(hexIP)
	port, _ := strconv.ParseUint(hexPort, 16, 16)
	for i := 0; i+4 <= len(b); i += 4 { // each 32-bit word is in host (little-endian) order
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	a, ok := netip.AddrFromSlice(b)
	if !ok {
		return netip.AddrPort{}
	}
	return netip.AddrPortFrom(a.Unmap(), uint16(port))
}

// --- Prometheus text format

// eachSample calls f with the labels ("" or `a="x",...`) and the value of
// every sample of metric name in text.
func eachSample(text []byte, name string, f func(labels string, v float64)) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), name)
		if !ok || rest == "" {
			continue
		}
		labels := ""
		switch rest[0] {
		case '{':
			labels, rest, ok = strings.Cut(rest[1:], "}")
			if !ok {
				continue
			}
		case ' ':
		default:
			continue // another metric whose name starts with this one
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64); err == nil {
			f(labels, v)
		}
	}
}

// metricSum sums every sample of metric name (any labels).
func metricSum(text []byte, name string) (float64, bool) {
	var sum float64
	found := false
	eachSample(text, name, func(_ string, v float64) { sum, found = sum+v, true })
	return sum, found
}

// metricSumWith sums the samples of metric name whose labels contain every
// one of the given label pairs (e.g. `result="failed"`).
func metricSumWith(text []byte, name string, pairs ...string) float64 {
	var sum float64
	eachSample(text, name, func(labels string, v float64) {
		for _, p := range pairs {
			if !strings.Contains(labels, p) {
				return
			}
		}
		sum += v
	})
	return sum
}

// histogram is a Prometheus histogram summed over its label sets.
type histogram struct {
	count, sum float64
	buckets    map[float64]float64 // le -> cumulative count
}

var leLabel = regexp.MustCompile(`le="([^"]+)"`)

func parseHistogram(text []byte, name string) histogram {
	h := histogram{buckets: map[float64]float64{}}
	h.count, _ = metricSum(text, name+"_count")
	h.sum, _ = metricSum(text, name+"_sum")
	eachSample(text, name+"_bucket", func(labels string, v float64) {
		if m := leLabel.FindStringSubmatch(labels); m != nil {
			if le, err := strconv.ParseFloat(m[1], 64); err == nil {
				h.buckets[le] += v
			}
		}
	})
	return h
}

// HistSummary summarises the observations between two scrapes.
type HistSummary struct {
	Count  float64 `json:"count"`
	MeanMs float64 `json:"meanMs"`
	P99Ms  float64 `json:"p99Ms"` // a bucket bound: the histogram's resolution
}

func (h histogram) since(before histogram) HistSummary {
	s := HistSummary{Count: h.count - before.count}
	if s.Count <= 0 {
		return HistSummary{}
	}
	s.MeanMs = (h.sum - before.sum) / s.Count * 1000
	les := make([]float64, 0, len(h.buckets))
	for le := range h.buckets {
		les = append(les, le)
	}
	sort.Float64s(les)
	s.P99Ms = math.Inf(1)
	for _, le := range les {
		if h.buckets[le]-before.buckets[le] >= 0.99*s.Count {
			s.P99Ms = le * 1000
			break
		}
	}
	if math.IsInf(s.P99Ms, 1) {
		s.P99Ms = -1 // JSON has no +Inf: beyond the last finite bucket
	}
	return s
}
