package main

import (
	"fmt"
	"net/netip"
	"strconv"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// podImage never leaves this machine: the fake image service says it is
// present, so the kubelet never pulls it (.invalid cannot resolve anyway).
const podImage = "probewheel.invalid/hollow-pod:1"

// handlerSets name the probes of a pod, as [startup, readiness, liveness].
// "mixed" gives even pods the network set and odd pods the exec one.
var handlerSets = map[string][2][nKinds]handler{
	"net":   {{hTCP, hHTTP, hGRPC}, {hTCP, hHTTP, hGRPC}},
	"exec":  {{hExec, hExec, hExec}, {hExec, hExec, hExec}},
	"mixed": {{hTCP, hHTTP, hGRPC}, {hExec, hExec, hExec}},
}

type podPlan struct {
	name     string
	node     int // index of its hollow node
	index    int // index on its node
	global   int // index in plan.pods
	ip       netip.Addr
	tcpPort  int
	handlers [nKinds]handler
	flip     bool // its readiness check fails for a while during the window
}

func (p *podPlan) key(kind int) int { return p.global*nKinds + kind }

type plan struct {
	nodes       int
	podsPerNode int
	period      int32 // seconds
	pods        []podPlan
	nodeNames   []string
}

// podIP is the loopback address of pod i of node n: podsPerIP pods share one,
// so that the gRPC probes (which go to the pod IP) are spread over many
// addresses, each with its own ephemeral port space, and few listeners serve them.
func podIP(n, i, podsPerIP int) (netip.Addr, error) {
	g := i / podsPerIP
	if n > 200 || g >= 250*250 {
		return netip.Addr{}, fmt.Errorf("node %d, pod %d: out of loopback addresses", n, i)
	}
	return netip.AddrFrom4([4]byte{127, byte(20 + n), byte(g / 250), byte(g%250 + 1)}), nil
}

func newPlan(runID string, nodes, podsPerNode int, period int32, set string, podsPerIP, flipEvery int) (*plan, error) {
	hs, ok := handlerSets[set]
	if !ok {
		return nil, fmt.Errorf("unknown handler set %q (want net, exec or mixed)", set)
	}
	if podsPerIP < 1 || podsPerIP > 1000 {
		return nil, fmt.Errorf("pods per IP %d: want 1..1000", podsPerIP)
	}
	p := &plan{nodes: nodes, podsPerNode: podsPerNode, period: period}
	for n := range nodes {
		p.nodeNames = append(p.nodeNames, fmt.Sprintf("%s-%d", runID, n))
		for i := range podsPerNode {
			ip, err := podIP(n, i, podsPerIP)
			if err != nil {
				return nil, err
			}
			p.pods = append(p.pods, podPlan{
				name:     fmt.Sprintf("%s-%d-%04d", runID, n, i),
				node:     n,
				index:    i,
				global:   len(p.pods),
				ip:       ip,
				tcpPort:  tcpBasePort + i%podsPerIP,
				handlers: hs[i%2],
				flip:     flipEvery > 0 && i%flipEvery == flipEvery/2,
			})
		}
	}
	return p, nil
}

func (p *plan) keys() int { return len(p.pods) * nKinds }

// podSpec is pod's API object: one container with a startup, a readiness
// and a liveness probe, every one aimed at a loopback address.
func (p *plan) podSpec(pod *podPlan, labels map[string]string) (*v1.Pod, error) {
	var probes [nKinds]*v1.Probe
	for kind, h := range pod.handlers {
		k := strconv.Itoa(pod.key(kind))
		var ph v1.ProbeHandler
		switch h {
		case hExec:
			ph.Exec = &v1.ExecAction{Command: []string{execProbeCmd, k}}
		case hHTTP:
			ph.HTTPGet = &v1.HTTPGetAction{Host: pod.ip.String(), Port: intstr.FromInt32(httpPort), Path: "/p/" + k}
		case hTCP:
			ph.TCPSocket = &v1.TCPSocketAction{Host: pod.ip.String(), Port: intstr.FromInt32(int32(pod.tcpPort))}
		case hGRPC:
			// No host field: the kubelet dials the pod IP, which the fake
			// runtime takes from podIPAnnotation (loopback, checked there).
			ph.GRPC = &v1.GRPCAction{Port: grpcPort, Service: ptr.To(k)}
		}
		probes[kind] = &v1.Probe{ProbeHandler: ph, PeriodSeconds: p.period, TimeoutSeconds: 1,
			SuccessThreshold: 1, FailureThreshold: 3}
	}
	probes[kStartup].FailureThreshold = 30
	pod0 := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        pod.name,
			Labels:      labels,
			Annotations: map[string]string{podIPAnnotation: pod.ip.String()},
		},
		Spec: v1.PodSpec{
			NodeName:                      p.nodeNames[pod.node],
			AutomountServiceAccountToken:  ptr.To(false),
			EnableServiceLinks:            ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Tolerations:                   []v1.Toleration{{Operator: v1.TolerationOpExists}},
			Containers: []v1.Container{{
				Name: "c", Image: podImage, ImagePullPolicy: v1.PullIfNotPresent,
				StartupProbe: probes[kStartup], ReadinessProbe: probes[kReadiness], LivenessProbe: probes[kLiveness],
			}},
		},
	}
	if err := assertLoopbackTargets(pod0); err != nil {
		return nil, err
	}
	return pod0, nil
}

// assertLoopbackTargets checks that every probe of the pod goes to a
// loopback address: HTTP and TCP probes by their host, gRPC probes (and the
// rest) by the pod IP the fake runtime will report.
func assertLoopbackTargets(pod *v1.Pod) error {
	if _, err := loopbackIP(pod.Annotations[podIPAnnotation]); err != nil {
		return fmt.Errorf("pod %s: pod IP: %w", pod.Name, err)
	}
	for _, c := range pod.Spec.Containers {
		for _, pr := range []*v1.Probe{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
			if pr == nil {
				continue
			}
			host := ""
			switch {
			case pr.HTTPGet != nil:
				host = pr.HTTPGet.Host
			case pr.TCPSocket != nil:
				host = pr.TCPSocket.Host
			default:
				continue
			}
			if _, err := loopbackIP(host); err != nil {
				return fmt.Errorf("pod %s container %s: probe host: %w", pod.Name, c.Name, err)
			}
		}
	}
	return nil
}
