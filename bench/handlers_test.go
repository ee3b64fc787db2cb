package bench

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/probe"
	grpcprobe "k8s.io/kubernetes/pkg/probe/grpc"
	httpprobe "k8s.io/kubernetes/pkg/probe/http"
	tcpprobe "k8s.io/kubernetes/pkg/probe/tcp"

	"github.com/probewheel/probewheel/bench/target"
	probewheel "github.com/probewheel/probewheel/pkg/kubelet/prober"
)

// envOKTargets set to 1 makes the test binary a probe target, bench/target's
// server answering every probe OK: HTTP 200 (no body), TCP accept and close,
// gRPC health SERVING, on loopback (TestMain). It prints "http tcp grpc"
// ports on one line and runs until its stdin closes. In a child process the
// targets' allocations and CPU do not count in BenchmarkRunProbe's B/op and
// ns/op.
const envOKTargets = "PROBEWHEEL_BENCH_OK_TARGETS"

func serveOKTargets() {
	listen := func() net.Listener {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return l
	}
	hl, tl, gl := listen(), listen(), listen()
	srv := &target.Server{Checks: target.ChecksFunc(func(target.Probe) target.Answer { return target.Answer{State: target.OK} }), LoopbackOnly: true}
	go func() { _ = srv.ServeHTTP(hl) }()
	go func() { _ = srv.ServeTCP(tl, 0) }()
	go func() { _ = srv.ServeGRPC(srv.GRPC(), gl) }()
	port := func(l net.Listener) int { return l.Addr().(*net.TCPAddr).Port }
	fmt.Printf("%d %d %d\n", port(hl), port(tl), port(gl))
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // EOF when the parent exits
}

// startOKTargets runs the probe targets in a child process and returns their
// ports: HTTP, TCP, gRPC.
func startOKTargets(b *testing.B) (httpPort, tcpPort, grpcPort int) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envOKTargets+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("probe target child: %v", err)
	}
	fields := strings.Fields(line)
	if len(fields) != 3 {
		b.Fatalf("probe target child printed %q, want three ports", line)
	}
	var ports [3]int
	for i, f := range fields {
		if ports[i], err = strconv.Atoi(f); err != nil {
			b.Fatalf("probe target child printed %q", line)
		}
	}
	return ports[0], ports[1], ports[2]
}

// BenchmarkRunProbe is one run of each network handler against a live
// loopback target, as a probewheel worker does it (runProbe with the
// worker's run cache, probewheel.HandlerRun),
// next to upstream's runProbe branch for that handler as in v1.37.2 (for HTTP:
// a request built on every run, net/http's default buffers, the log line's
// arguments built at every verbosity). B/op and allocs/op count the kubelet's
// side only.
func BenchmarkRunProbe(b *testing.B) {
	httpPort, tcpPort, grpcPort := startOKTargets(b)
	status := v1.PodStatus{PodIP: "127.0.0.1"}
	pod := &v1.Pod{}
	ctx := klog.NewContext(context.Background(), klog.Background())
	logger := klog.FromContext(ctx)
	container := &v1.Container{Name: "c"}
	upstreamHTTP, upstreamTCP, upstreamGRPC := httpprobe.New(false), tcpprobe.New(), grpcprobe.New()
	for _, tc := range []struct {
		name     string
		probe    v1.ProbeHandler
		upstream func(p *v1.Probe) (probe.Result, string, error)
	}{
		{"http", v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(int32(httpPort))}},
			func(p *v1.Probe) (probe.Result, string, error) {
				req, err := httpprobe.NewRequestForHTTPGetAction(p.HTTPGet, container, status.PodIP, "probe")
				if err != nil {
					return probe.Unknown, "", err
				}
				if loggerV4 := logger.V(4); logger.Enabled() {
					loggerV4.Info("HTTP-Probe", "scheme", req.URL.Scheme, "host", req.URL.Hostname(), "port", req.URL.Port(), "path", req.URL.Path,
						"timeout", time.Second, "headers", p.HTTPGet.HTTPHeaders, "probeType", "Readiness")
				}
				return upstreamHTTP.Probe(req, time.Second)
			}},
		{"tcp", v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(int32(tcpPort))}},
			func(p *v1.Probe) (probe.Result, string, error) {
				port, err := probe.ResolveContainerPort(p.TCPSocket.Port, container)
				if err != nil {
					return probe.Unknown, "", err
				}
				return upstreamTCP.Probe(status.PodIP, port, time.Second)
			}},
		{"grpc", v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: int32(grpcPort)}},
			func(p *v1.Probe) (probe.Result, string, error) {
				return upstreamGRPC.Probe(status.PodIP, "", int(p.GRPC.Port), time.Second, grpcprobe.ProbeOptions{})
			}},
	} {
		p := &v1.Probe{ProbeHandler: tc.probe, TimeoutSeconds: 1}
		worker := probewheel.HandlerRun(p, pod, status, container) // with a worker's run cache
		for _, r := range []struct {
			impl string
			run  func() (probe.Result, string, error)
		}{
			{"upstream", func() (probe.Result, string, error) { return tc.upstream(p) }},
			{"probewheel", func() (probe.Result, string, error) { return worker(ctx) }},
		} {
			b.Run("handler="+tc.name+"/impl="+r.impl, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if res, out, err := r.run(); res != probe.Success || err != nil {
						b.Fatalf("run: %v %q %v", res, out, err)
					}
				}
			})
		}
	}
}
