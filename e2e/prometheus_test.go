//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// promStartLateFor is ProbeStartLate's hold in the rules this test loads:
// the file's own 15 minutes would outlast the test, and promtool's tests
// (make verify-rules) check the hold itself.
const promStartLateFor = "30s"

// TestPrometheus runs a real Prometheus server (Debian's package, fetched by
// hack/install-prometheus.sh into $PW_PROMETHEUS_DIR) on this host against
// the cluster, the way docs/operating.md tells a platform team to: its
// scrape config (the page's own block, with this host's token and CA paths
// and the nodes its discovery would find: promConfig) scrapes every node's /metrics/probes and /metrics
// with a service account allowed nodes/metrics, and
// scripts/prometheus/rules.yaml is loaded as it is, but for ProbeStartLate's
// hold (promStartLateFor). It checks that both jobs are up on every node and
// the scheduler's series arrive from every probewheel node, that no alert is
// pending or firing on the healthy cluster, and that ProbeStartLate fires
// for the node under test (a probewheel one) whose kubelet is made to start
// runs late: stopped
// (SIGSTOP) for 2.5 s of every 4 s, so that the runs due in the first 1.5 s
// of each stop start over 1 s late.
//
// Prometheus listens on 127.0.0.1 only; it scrapes the kind nodes, which
// are containers this project created.
func TestPrometheus(t *testing.T) {
	promDir := os.Getenv("PW_PROMETHEUS_DIR")
	if promDir == "" {
		t.Skip("PW_PROMETHEUS_DIR is unset: make kind-e2e-suite sets it (hack/install-prometheus.sh); the kind nodes' addresses are containers this project made, the local cluster's kubelet is not")
	}
	ctx := context.Background()
	nodeList, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var nodes, probewheelNodes []string
	for _, n := range nodeList.Items {
		nodes = append(nodes, n.Name)
		if strings.Contains(n.Status.NodeInfo.KubeletVersion, "probewheel") {
			probewheelNodes = append(probewheelNodes, n.Name)
		}
	}
	ns := newNamespace(t)

	// A probed pod on every node, so that every node's scheduler runs.
	for i, node := range nodes {
		c := targetContainer("target")
		c.ReadinessProbe = &v1.Probe{ProbeHandler: httpProbe("readiness"), PeriodSeconds: 1, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
		c.LivenessProbe = &v1.Probe{ProbeHandler: tcpProbe(), PeriodSeconds: 2, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
		p := targetPod(fmt.Sprint("prom-", i), c)
		p.Spec.NodeName = node
		p.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
		createPod(t, ns, p)
	}
	waitAllReady(t, ns, len(nodes), 3*time.Minute)

	dir := t.TempDir()
	tokenFile, caFile := scraperIdentity(t, ns, dir)
	cfg := filepath.Join(dir, "prometheus.yaml")
	rules := filepath.Join(dir, "rules.yaml")
	writeFile(t, rules, shortenedRules(t))
	writeFile(t, cfg, promConfig(t, nodeList.Items, tokenFile, caFile, rules))
	if out, err := exec.Command(filepath.Join(promDir, "promtool"), "check", "config", cfg).CombinedOutput(); err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
	prom := startPrometheus(t, promDir, cfg, filepath.Join(dir, "data"))

	// Both jobs up on every node, the scheduler's series from every
	// probewheel node.
	for _, job := range []string{"kubelet-probes", "kubelet"} {
		waitFor(t, 2*time.Minute, job+" up on every node", func(ctx context.Context) (bool, error) {
			up := prom.query(ctx, t, fmt.Sprintf(`up{job=%q} == 1`, job))
			return sameSet(up.label("node"), nodes), nil
		})
	}
	waitFor(t, 2*time.Minute, "the scheduler's series from every probewheel node", func(ctx context.Context) (bool, error) {
		r := prom.query(ctx, t, `sum by (node) (rate(prober_scheduler_start_lateness_seconds_count[1m])) > 0`)
		return sameSet(r.label("node"), probewheelNodes), nil
	})
	t.Logf("Prometheus scrapes %d nodes (%s), the scheduler's series from %s", len(nodes), strings.Join(nodes, ", "), strings.Join(probewheelNodes, ", "))

	// A healthy cluster: no alert, pending or firing, for two minutes of
	// evaluations.
	healthyUntil := time.Now().Add(2 * time.Minute)
	for time.Now().Before(healthyUntil) {
		if a := prom.query(ctx, t, `ALERTS`); len(a) > 0 {
			t.Fatalf("alerts on the healthy cluster: %v", a)
		}
		time.Sleep(10 * time.Second)
	}
	t.Logf("no alert pending or firing on the healthy cluster for 2 minutes")

	if !slices.Contains(probewheelNodes, nodeName) {
		t.Logf("node %s runs upstream's kubelet: it has no scheduler to make late, no ProbeStartLate to cause", nodeName)
		return
	}
	pid := kubeletPID(t, nodeName)
	stop := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		defer syscall.Kill(pid, syscall.SIGCONT)
		for {
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				t.Errorf("SIGSTOP kubelet %d: %v", pid, err)
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(2500 * time.Millisecond):
			}
			syscall.Kill(pid, syscall.SIGCONT)
			select {
			case <-stop:
				return
			case <-time.After(1500 * time.Millisecond):
			}
		}
	}()
	defer func() { close(stop); <-stopped }()
	started := time.Now()
	waitFor(t, 5*time.Minute, "ProbeStartLate firing for "+nodeName, func(ctx context.Context) (bool, error) {
		a := prom.query(ctx, t, `ALERTS{alertname="ProbeStartLate", alertstate="firing"}`)
		return slices.Contains(prom.nodesOf(ctx, t, a), nodeName), nil
	})
	var p99 []string
	for _, s := range prom.query(ctx, t, `instance:prober_scheduler_start_lateness_seconds:p99_5m`) {
		p99 = append(p99, fmt.Sprintf("%s %v s", strings.Join(prom.nodesOf(ctx, t, promVector{s}), ""), s.Value[1]))
	}
	slices.Sort(p99)
	t.Logf("ProbeStartLate fired for %s %s after its kubelet began stopping 2.5 s of every 4 s; p99 lateness over 5 min: %s",
		nodeName, time.Since(started).Round(time.Second), strings.Join(p99, ", "))
}

// scraperIdentity makes the service account docs/operating.md#scraping asks
// for (get on nodes/metrics) and writes its token and the cluster's CA
// into dir.
func scraperIdentity(t *testing.T, ns, dir string) (tokenFile, caFile string) {
	t.Helper()
	ctx := context.Background()
	name := "probewheel-prometheus-" + ns
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes/metrics"}, Verbs: []string{"get"}}},
	}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "prometheus", Namespace: ns}},
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.RbacV1().ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	sa := &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus"}}
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "prometheus",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tokenFile = filepath.Join(dir, "token")
	writeFile(t, tokenFile, tr.Status.Token)
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ca := rc.CAData
	if len(ca) == 0 && rc.CAFile != "" {
		if ca, err = os.ReadFile(rc.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	if len(ca) == 0 {
		t.Fatalf("kubeconfig %s has no cluster CA", kubeconfig)
	}
	caFile = filepath.Join(dir, "ca.crt")
	writeFile(t, caFile, string(ca))
	return tokenFile, caFile
}

// scrapeBlock is the YAML block under docs/operating.md's "### Scraping".
func scrapeBlock(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "operating.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)### Scraping\n.*?```yaml\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/operating.md: no yaml block under ### Scraping")
	}
	return string(m[1])
}

// promConfig is the page's scrape config with this host's paths (the token
// and CA files for those of a pod's service account) and, for its node
// discovery, the nodes it would find: Debian's Prometheus is built without
// Kubernetes service discovery, so each role: node becomes a static target
// per node, its InternalIP and the kubelet's port, with the discovery's
// __meta_kubernetes_node_name label for the page's relabelling.
func promConfig(t *testing.T, nodes []v1.Node, tokenFile, caFile, rules string) string {
	t.Helper()
	block := scrapeBlock(t)
	for from, to := range map[string]string{
		"/var/run/secrets/kubernetes.io/serviceaccount/token":  tokenFile,
		"/var/run/secrets/kubernetes.io/serviceaccount/ca.crt": caFile,
	} {
		if !strings.Contains(block, from) {
			t.Fatalf("docs/operating.md's scrape config no longer names %s", from)
		}
		block = strings.ReplaceAll(block, from, to)
	}
	var static strings.Builder
	for _, n := range nodes {
		ip := ""
		for _, a := range n.Status.Addresses {
			if a.Type == v1.NodeInternalIP {
				ip = a.Address
			}
		}
		if ip == "" {
			t.Fatalf("node %s has no InternalIP", n.Name)
		}
		fmt.Fprintf(&static, "${1}  - targets: [%q]\n${1}    labels: {__meta_kubernetes_node_name: %q}\n",
			net.JoinHostPort(ip, "10250"), n.Name)
	}
	sd := regexp.MustCompile(`(?m)^(\s*)kubernetes_sd_configs:\n\s*- role: node.*\n`)
	if len(sd.FindAllString(block, -1)) != 2 {
		t.Fatalf("docs/operating.md's scrape config has not two node-role jobs (/metrics/probes and /metrics):\n%s", block)
	}
	block = sd.ReplaceAllString(block, "${1}static_configs:\n"+static.String())
	return fmt.Sprintf("global:\n  scrape_interval: 5s\n  scrape_timeout: 4s\n  evaluation_interval: 5s\nrule_files:\n  - %s\n%s", rules, block)
}

// shortenedRules is scripts/prometheus/rules.yaml with ProbeStartLate's
// hold set to promStartLateFor.
func shortenedRules(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "scripts", "prometheus", "rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?s)(- alert: ProbeStartLate\n.*?for: )(\S+)`)
	if !re.Match(b) {
		t.Fatal("scripts/prometheus/rules.yaml: no ProbeStartLate with a for:")
	}
	return string(re.ReplaceAll(b, []byte("${1}"+promStartLateFor)))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// prometheus is a running server's query API.
type prometheus struct{ base string }

// startPrometheus runs the server on a free loopback port until the test ends.
func startPrometheus(t *testing.T, promDir, cfg, data string) *prometheus {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	log, err := os.Create(filepath.Join(filepath.Dir(cfg), "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(promDir, "prometheus"), "--config.file="+cfg, "--storage.tsdb.path="+data,
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("prometheus log:\n%s", b)
		}
	})
	p := &prometheus{base: "http://" + addr}
	waitFor(t, time.Minute, "Prometheus ready", func(ctx context.Context) (bool, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/-/ready", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	return p
}

// promSample is one series of an instant vector.
type promSample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

func (s promSample) String() string { return fmt.Sprintf("%v=%v", s.Metric, s.Value[1]) }

type promVector []promSample

// label is the set of values of one label.
func (v promVector) label(name string) []string {
	var out []string
	for _, s := range v {
		if x, ok := s.Metric[name]; ok && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// query evaluates an instant query.
func (p *prometheus) query(ctx context.Context, t *testing.T, q string) promVector {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/api/v1/query?query="+url.QueryEscape(q), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string     `json:"resultType"`
			Result     promVector `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	if r.Status != "success" || r.Data.ResultType != "vector" {
		t.Fatalf("query %s: %s %s (%s)", q, r.Status, r.Error, r.Data.ResultType)
	}
	return r.Data.Result
}

// nodesOf maps the instance labels of v (the rules aggregate by instance)
// to node names through the up series.
func (p *prometheus) nodesOf(ctx context.Context, t *testing.T, v promVector) []string {
	t.Helper()
	var out []string
	for _, up := range p.query(ctx, t, `up{job="kubelet-probes"}`) {
		if slices.Contains(v.label("instance"), up.Metric["instance"]) {
			out = append(out, up.Metric["node"])
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
