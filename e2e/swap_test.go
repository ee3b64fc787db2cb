//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// TestKubeletSwap runs scripts/kubelet-swap.sh, the rollout docs/operating.md
// names, on a kind node as a platform team would on theirs: roll back to the
// stock kubelet ($PW_STOCK_KUBELET), ship probewheel dark (gate off) with the
// exec limit off, turn the gate on (the limit's setting carried), turn the
// limit on, each in one kubelet restart, and after each the script's check
// from the host (the node's version, its gate through /metrics/probes, the
// limit's through kubernetes_feature_enabled). A probed pod on the node stays
// Ready and is not restarted throughout. The node ends as it began: the
// probewheel kubelet it ran, both gates on.
//
// Not parallel: it restarts the kubelet.
func TestKubeletSwap(t *testing.T) {
	stock := os.Getenv("PW_STOCK_KUBELET")
	if stock == "" || os.Getenv("PW_KUBELET_PID_CMD") == "" {
		t.Skip("PW_STOCK_KUBELET unset or not on kind: make kind-e2e-suite sets it and runs this on a kind node")
	}
	if !isProbewheel() {
		t.Skipf("node %s runs %s: the swap starts from probewheel", nodeName, kubeletVersion)
	}
	script := filepath.Join(repoRoot(), "scripts", "kubelet-swap.sh")
	mustDocker := func(args ...string) string {
		t.Helper()
		out, err := docker(args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	mustDocker("cp", script, nodeName+":/usr/local/bin/kubelet-swap.sh")
	mustDocker("cp", stock, nodeName+":/usr/local/bin/kubelet-stock")
	mustDocker("exec", nodeName, "cp", "-p", "/usr/bin/kubelet", "/usr/local/bin/kubelet-probewheel")
	restore := true
	t.Cleanup(func() {
		if restore {
			out, err := docker("exec", nodeName, "/usr/local/bin/kubelet-swap.sh", "install", "/usr/local/bin/kubelet-probewheel")
			t.Logf("restoring the probewheel kubelet: %v\n%s", err, out)
		}
	})

	ns := newNamespace(t)
	c := targetContainer("target")
	c.ReadinessProbe = &v1.Probe{ProbeHandler: httpProbe("readiness"), PeriodSeconds: 1, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	c.LivenessProbe = &v1.Probe{ProbeHandler: execProbe("liveness"), PeriodSeconds: 2, TimeoutSeconds: 2, SuccessThreshold: 1, FailureThreshold: 3}
	createPod(t, ns, targetPod("swap", c))
	waitRunning(t, ns, "swap", "target")
	waitPod(t, ns, "swap", 2*time.Minute, "Ready", podReady)
	// Past upstream's 10 s restart grace window (TestKubeletRestart says why).
	time.Sleep(restartGrace)

	kubectl := "kubectl"
	if k := filepath.Join(repoRoot(), "_output", "bin", "kubectl"); fileExists(k) {
		kubectl = k
	}
	pw := "/usr/local/bin/kubelet-probewheel"
	for _, step := range []struct {
		args   []string
		expect string // check's second word
		limit  string // check's --exec-limit, if any
	}{
		{[]string{"rollback", "/usr/local/bin/kubelet-stock"}, "stock", ""},
		{[]string{"install", pw, "--gate=off", "--exec-limit=off"}, "gate-off", "off"},
		{[]string{"install", pw}, "probewheel", "off"}, // the exec limit's setting carried
		{[]string{"install", pw, "--exec-limit=on"}, "probewheel", "on"},
	} {
		name := strings.Join(append(step.args[:1:1], step.args[2:]...), " ") + " (" + step.expect + ")"
		start := time.Now()
		out := mustDocker(append([]string{"exec", nodeName, "/usr/local/bin/kubelet-swap.sh"}, step.args...)...)
		t.Logf("%s on %s, %s:\n%s", name, nodeName, time.Since(start).Round(time.Second), strings.TrimSpace(out))
		var last string
		waitFor(t, 2*time.Minute, name+": kubelet-swap.sh check "+step.expect, func(ctx context.Context) (bool, error) {
			args := []string{"check", nodeName, step.expect}
			if step.limit != "" {
				args = append(args, "--exec-limit="+step.limit)
			}
			cmd := exec.CommandContext(ctx, script, args...)
			cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "KUBECTL="+kubectl)
			b, err := cmd.CombinedOutput()
			last = string(b)
			return err == nil, nil
		})
		t.Logf("%s", strings.TrimSpace(last))
		holds(t, ns, "swap", 5*time.Second, name+": Ready, no restart", func(p *v1.Pod) bool {
			cs := containerStatus(p, "target")
			return podReady(p) && cs != nil && cs.RestartCount == 0
		})
	}
	restore = false
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
