//go:build e2e

// Package e2e tests the kubelet's probes against a real single-node cluster
// (hack/local-up-cluster.sh): pods run e2e/probetarget, whose HTTP, TCP,
// gRPC and exec checks the tests switch healthy/failing at run time through
// its admin port on the pod IP (the host reaches pod IPs over the CNI bridge).
//
//	hack/local-up-cluster.sh            # or --stock for the unpatched kubelet
//	go test -tags e2e -count=1 -v ./e2e/
//	hack/local-down-cluster.sh
//
// Configuration (environment): KUBECONFIG (default
// _output/local-cluster/admin.kubeconfig), PW_NODE_NAME (probewheel-node),
// PW_PROBETARGET_IMAGE (localhost/probewheel/probetarget:e2e).
//
// On a kind cluster (make kind-e2e-suite, docs/kind.md) PW_NODE_NAME names a
// worker, the host reaches pod IPs through the routes hack/kind-up.sh adds,
// and two commands stand in for the local cluster's files:
// PW_KUBELET_RESTART_CMD (hack/kind-restart-kubelet.sh) and
// PW_KUBELET_PID_CMD (hack/kind-kubelet-pid.sh), each run with the node name
// as its last argument.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	client   kubernetes.Interface
	nodeName = envOr("PW_NODE_NAME", "probewheel-node")
	image    = envOr("PW_PROBETARGET_IMAGE", "localhost/probewheel/probetarget:e2e")
	// kubeletVersion is the node's status.nodeInfo.kubeletVersion.
	kubeletVersion string
	// kubeconfig is the cluster's admin kubeconfig, which local-up-cluster.sh
	// writes into the cluster directory.
	kubeconfig string
)

// Ports probetarget listens on (see e2e/probetarget).
const (
	portHTTP  = 8080
	portTCP   = 8081
	portGRPC  = 8082
	portAdmin = 9090
)

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// repoRoot is the checkout the tests were built from (the hack/ scripts).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..")
}

// clusterDir is the local cluster's state directory (PW_CLUSTER_DIR).
func clusterDir() string { return envOr("PW_CLUSTER_DIR", filepath.Dir(kubeconfig)) }

func TestMain(m *testing.M) {
	kubeconfig = os.Getenv("KUBECONFIG")
	if kubeconfig == "" {
		kubeconfig = filepath.Join(repoRoot(), "_output", "local-cluster", "admin.kubeconfig")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: no cluster (%v); start one with hack/local-up-cluster.sh\n", err)
		os.Exit(1)
	}
	cfg.QPS, cfg.Burst = 50, 100
	client = kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	node, err := client.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: node %s: %v\n", nodeName, err)
		os.Exit(1)
	}
	kubeletVersion = node.Status.NodeInfo.KubeletVersion
	fmt.Printf("e2e: node %s, kubelet %s, runtime %s\n", nodeName, kubeletVersion, node.Status.NodeInfo.ContainerRuntimeVersion)
	os.Exit(m.Run())
}

// isProbewheel tells whether the node runs the patched kubelet.
func isProbewheel() bool { return strings.Contains(kubeletVersion, "probewheel") }

// newNamespace creates a namespace for one test, deleted when it ends, and
// waits for its default service account (pods are rejected without it).
func newNamespace(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	name := "e2e-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	name = strings.TrimRight(name, "-") + "-" + rand.String(5)
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			dumpNamespace(t, name)
		}
		_ = client.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	waitFor(t, 60*time.Second, "default service account in "+name, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	return name
}

// dumpNamespace tells what a failed test's namespace held: the whole of it
// (every pod's status, every event with its count and times) into
// _output/e2e-dumps/<namespace>.json, and in the test's log one line per
// container and one per warning event, so that the failure's own message
// stays near the end of a long log (CI shows its tail).
func dumpNamespace(t *testing.T, ns string) {
	ctx := context.Background()
	pods, perr := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	events, eerr := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if perr != nil || eerr != nil {
		t.Logf("dump of %s: pods: %v, events: %v", ns, perr, eerr)
		return
	}
	for _, p := range pods.Items {
		for _, cs := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
			t.Logf("dump: pod %s container %s: ready %v started %v restarts %d state %s last %s",
				p.Name, cs.Name, cs.Ready, deref(cs.Started), cs.RestartCount, stateString(cs.State), stateString(cs.LastTerminationState))
		}
	}
	for _, e := range events.Items {
		if e.Type != v1.EventTypeNormal {
			t.Logf("dump: event %s %s x%d: %s", e.InvolvedObject.Name, e.Reason, e.Count, e.Message)
		}
	}
	dir := filepath.Join(repoRoot(), "_output", "e2e-dumps")
	b, err := json.MarshalIndent(map[string]any{"pods": pods.Items, "events": events.Items}, "", "  ")
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, ns+".json"), b, 0o644)
	}
	if err != nil {
		t.Logf("dump of %s not saved: %v", ns, err)
		return
	}
	t.Logf("dump: every pod status and event of %s in %s", ns, filepath.Join(dir, ns+".json"))
}

// stateString is a container state in a few words.
func stateString(s v1.ContainerState) string {
	switch {
	case s.Running != nil:
		return "running since " + s.Running.StartedAt.UTC().Format(time.TimeOnly)
	case s.Terminated != nil:
		return fmt.Sprintf("terminated (%s, exit %d, %s–%s)", s.Terminated.Reason, s.Terminated.ExitCode,
			s.Terminated.StartedAt.UTC().Format(time.TimeOnly), s.Terminated.FinishedAt.UTC().Format(time.TimeOnly))
	case s.Waiting != nil:
		return "waiting (" + s.Waiting.Reason + ")"
	}
	return "none"
}

func deref[T any](p *T) (v T) {
	if p != nil {
		v = *p
	}
	return v
}

func ptr[T any](v T) *T { return &v }

// waitFor polls cond every 200 ms until it is true, fails the test after
// timeout. An error from cond is a "not yet", not the end: an API server on a
// loaded two-core machine times a request out now and then, and one such
// answer must not fail a test whose condition comes true a poll later. The
// last error is in the failure's message.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err != nil {
			last = err
		}
		return ok && err == nil, nil
	})
	if err != nil {
		t.Fatalf("waiting %v for %s: %v (last error from the check: %v)", timeout, what, err, last)
	}
}

// targetContainer is a probetarget container; args are extra probetarget
// flags (e.g. "--fail=readiness").
func targetContainer(name string, args ...string) v1.Container {
	return v1.Container{
		Name:            name,
		Image:           image,
		ImagePullPolicy: v1.PullNever,
		Args:            append([]string{"serve"}, args...),
		Ports: []v1.ContainerPort{
			{Name: "http", ContainerPort: portHTTP},
			{Name: "tcp", ContainerPort: portTCP},
			{Name: "grpc", ContainerPort: portGRPC},
			{Name: "admin", ContainerPort: portAdmin},
		},
	}
}

// targetPod is a pod with the given containers, quick to delete.
func targetPod(name string, containers ...v1.Container) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PodSpec{
			NodeName:                      nodeName,
			Containers:                    containers,
			RestartPolicy:                 v1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr(int64(1)),
			AutomountServiceAccountToken:  ptr(false),
			EnableServiceLinks:            ptr(false),
		},
	}
}

// Probe handlers on probetarget's checks.
func httpProbe(check string) v1.ProbeHandler {
	return v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/check/" + check, Port: intstr.FromInt32(portHTTP)}}
}

func tcpProbe() v1.ProbeHandler {
	return v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(portTCP)}}
}

func grpcProbe(check string) v1.ProbeHandler {
	return v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: portGRPC, Service: ptr(check)}}
}

func execProbe(check string) v1.ProbeHandler {
	return v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"/probetarget", "check", check}}}
}

// probe is a 1 s probe with thresholds 1, timeout 1 s.
func probe(h v1.ProbeHandler) *v1.Probe {
	return &v1.Probe{ProbeHandler: h, PeriodSeconds: 1, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 1}
}

// createPod creates the pod, again after an answer that leaves it unknown
// whether the API server did (a timeout, an overload: see waitFor); a pod of
// that name found then is the one created.
func createPod(t *testing.T, ns string, pod *v1.Pod) *v1.Pod {
	t.Helper()
	var created *v1.Pod
	retried := false
	waitFor(t, 30*time.Second, "create pod "+pod.Name, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		switch {
		case err == nil:
			created = p
		case retried && apierrors.IsAlreadyExists(err):
			created, err = getPod(ctx, ns, pod.Name)
		case apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsAlreadyExists(err) || apierrors.IsBadRequest(err):
			t.Fatalf("create pod %s: %v", pod.Name, err)
		default:
			retried = true
		}
		return err == nil, err
	})
	return created
}

func getPod(ctx context.Context, ns, name string) (*v1.Pod, error) {
	return client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
}

func podReady(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

func containerStatus(p *v1.Pod, name string) *v1.ContainerStatus {
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == name {
			return &p.Status.ContainerStatuses[i]
		}
	}
	for i := range p.Status.InitContainerStatuses {
		if p.Status.InitContainerStatuses[i].Name == name {
			return &p.Status.InitContainerStatuses[i]
		}
	}
	return nil
}

// waitPod waits until cond holds for the pod and returns it.
func waitPod(t *testing.T, ns, name string, timeout time.Duration, what string, cond func(*v1.Pod) bool) *v1.Pod {
	t.Helper()
	var last *v1.Pod
	waitFor(t, timeout, fmt.Sprintf("pod %s: %s", name, what), func(ctx context.Context) (bool, error) {
		p, err := getPod(ctx, ns, name)
		if err != nil {
			return false, err
		}
		last = p
		return cond(p), nil
	})
	return last
}

// waitAllReady waits until n pods of the namespace are Ready and returns
// their IPs by name.
func waitAllReady(t *testing.T, ns string, n int, timeout time.Duration) map[string]string {
	t.Helper()
	var ips map[string]string
	waitFor(t, timeout, fmt.Sprintf("%d pods Ready in %s", n, ns), func(ctx context.Context) (bool, error) {
		pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		ips = map[string]string{}
		for _, p := range pods.Items {
			if podReady(&p) {
				ips[p.Name] = p.Status.PodIP
			}
		}
		return len(ips) == n, nil
	})
	return ips
}

// waitRunning waits for the pod to have an IP and the container to run, and
// for probetarget's admin port to answer; returns the pod.
func waitRunning(t *testing.T, ns, name, container string) *v1.Pod {
	t.Helper()
	p := waitPod(t, ns, name, 90*time.Second, container+" running", func(p *v1.Pod) bool {
		cs := containerStatus(p, container)
		return p.Status.PodIP != "" && cs != nil && cs.State.Running != nil
	})
	waitFor(t, 30*time.Second, "probetarget admin port of "+name, func(ctx context.Context) (bool, error) {
		_, err := admin(ctx, p.Status.PodIP, portAdmin, "GET", "/healthz")
		return err == nil, nil
	})
	return p
}

// setCheck switches a probetarget check (ok, fail, hang) through its admin port.
func setCheck(t *testing.T, podIP string, adminPort int, check, state string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := admin(ctx, podIP, adminPort, "POST", "/set?name="+check+"&state="+state); err != nil {
		t.Fatalf("set check %s=%s on %s: %v", check, state, podIP, err)
	}
}

// probeCalls returns the times (the target's clock, which is this host's) at
// which the kubelet's probe key (e.g. "http/readiness") reached the target in
// [from, to]. The target keeps the last 256 calls of each key.
func probeCalls(t *testing.T, podIP, key string, from, to time.Time) []time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	body, err := admin(ctx, podIP, portAdmin, "GET", "/times?key="+key)
	if err != nil {
		t.Fatalf("probe times of %s on %s: %v", key, podIP, err)
	}
	var ns []int64
	if err := json.Unmarshal([]byte(body), &ns); err != nil {
		t.Fatalf("probe times of %s on %s: %v", key, podIP, err)
	}
	var calls []time.Time
	for _, n := range ns {
		if at := time.Unix(0, n); !at.Before(from) && !at.After(to) {
			calls = append(calls, at)
		}
	}
	return calls
}

// newestStart is the latest StartedAt of the running containers named
// container in pods.
func newestStart(pods []v1.Pod, container string) time.Time {
	var newest time.Time
	for i := range pods {
		if cs := containerStatus(&pods[i], container); cs != nil && cs.State.Running != nil && cs.State.Running.StartedAt.After(newest) {
			newest = cs.State.Running.StartedAt.Time
		}
	}
	return newest
}

func admin(ctx context.Context, podIP string, port int, method, path string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, method, fmt.Sprintf("http://%s:%d%s", podIP, port, path), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(b)))
	}
	return string(b), nil
}

// holds asserts cond stays true for d (polled every 200 ms). A failed GET
// skips its poll (see waitFor); a hold with no answer for a second fails.
func holds(t *testing.T, ns, name string, d time.Duration, what string, cond func(*v1.Pod) bool) {
	t.Helper()
	start := time.Now()
	deadline, answered := start.Add(d), start
	for now := start; now.Before(deadline); now = time.Now() {
		p, err := getPod(context.Background(), ns, name)
		switch {
		case err != nil && time.Since(answered) > time.Second:
			t.Fatalf("pod %s: no answer for %v while holding %s: %v", name, time.Since(answered).Round(time.Millisecond), what, err)
		case err != nil:
			t.Logf("pod %s: %v (polling on)", name, err)
		case !cond(p):
			cs := containerStatus(p, "target")
			detail := ""
			if cs != nil {
				detail = fmt.Sprintf(" (container target: restarts %d, state %s, last %s)", cs.RestartCount, stateString(cs.State), stateString(cs.LastTerminationState))
			}
			t.Fatalf("pod %s: expected %s for %v, broken after %v%s", name, what, d, now.Sub(start).Round(time.Millisecond), detail)
		default:
			answered = time.Now()
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitEvent waits for an event about the pod with the given reason whose
// message contains text (the kubelet batches events: they lag a little).
func waitEvent(t *testing.T, ns, pod, reason, text string) {
	t.Helper()
	waitFor(t, 30*time.Second, fmt.Sprintf("event %s %q on %s", reason, text, pod), func(ctx context.Context) (bool, error) {
		events, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + pod})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.Reason == reason && strings.Contains(e.Message, text) {
				return true, nil
			}
		}
		return false, nil
	})
}

// probeMetrics returns the kubelet's /metrics/probes through the apiserver's node proxy.
func probeMetrics(t *testing.T) string { return kubeletMetrics(t, "metrics", "probes") }

// kubeletGet GETs a kubelet path through the apiserver's node proxy.
func kubeletGet(t *testing.T, params map[string]string, path ...string) []byte {
	t.Helper()
	return nodeKubeletGet(t, nodeName, params, path...)
}

// nodeKubeletGet GETs a path of the given node's kubelet through the apiserver's node proxy.
func nodeKubeletGet(t *testing.T, node string, params map[string]string, path ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := client.CoreV1().RESTClient().Get().AbsPath(append([]string{"/api/v1/nodes", node, "proxy"}, path...)...)
	for k, v := range params {
		req = req.Param(k, v)
	}
	b, err := req.DoRaw(ctx)
	if err != nil {
		t.Fatalf("GET kubelet /%s: %v", strings.Join(path, "/"), err)
	}
	return b
}

func kubeletMetrics(t *testing.T, path ...string) string { return string(kubeletGet(t, nil, path...)) }
