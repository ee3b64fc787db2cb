//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// restartPods is the figure: enough pods that probes started at
// once would visibly bunch, few enough for a 2-core node to start quickly.
const (
	restartPods   = 50
	restartPeriod = 10 * time.Second
	// restartGrace: upstream's 10 s kubelet-restart grace window, plus the
	// one-second resolution of a container's StartedAt and some slack.
	restartGrace = 15 * time.Second
)

// TestKubeletRestart restarts the kubelet under 50 Ready, probed pods and
// checks what a node upgrade must not do: no Ready pod turns NotReady
// (upstream's restart heuristic keeps a running container's readiness), no
// container restarts (liveness starts at Success), every pod is probed again
// within the first period, and those first probes are spread over the
// period instead of firing together.
//
// Not parallel: the restart would disturb the timing of every other test.
func TestKubeletRestart(t *testing.T) {
	ns := newNamespace(t)
	period := int32(restartPeriod / time.Second)
	for i := range restartPods {
		c := targetContainer("target")
		c.ReadinessProbe = &v1.Probe{ProbeHandler: httpProbe("readiness"), PeriodSeconds: period, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 1}
		// The initial delay keeps a liveness run at the container's start, before the target
		// listens, from restarting it (failureThreshold 1); it is long past when the kubelet
		// restarts, so the restart heuristics this test checks see no delay.
		c.LivenessProbe = &v1.Probe{ProbeHandler: tcpProbe(), InitialDelaySeconds: 2, PeriodSeconds: period, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 1}
		createPod(t, ns, targetPod(fmt.Sprintf("r%02d", i), c))
	}
	ips := waitAllReady(t, ns, restartPods, 5*time.Minute)
	before, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Upstream's restart heuristic only covers containers that started more
	// than 10 s before the kubelet did (kubeletRestartGracePeriod): a younger
	// one legitimately restarts at its probes' initial value. Restart once
	// every container is past that window.
	newest := newestStart(before.Items, "target")
	if d := time.Until(newest.Add(restartGrace)); d > 0 {
		t.Logf("waiting %v: the youngest container started at %s", d.Round(time.Second), newest.Format(time.RFC3339))
		time.Sleep(d)
	}
	// Watched from the listed version: every status the API server stores
	// from here on is seen, however briefly it lasted.
	flaps, restarts := watchFlaps(t, ns, before)

	started := restartKubelet(t)
	t.Logf("kubelet restarted at %s", started.Format(time.RFC3339Nano))
	// Two periods after the restart: every worker has run at least once.
	time.Sleep(2*restartPeriod + 5*time.Second)
	if n := flaps(); n > 0 {
		t.Errorf("%d Ready pods turned NotReady after the kubelet restart", n)
	}
	if n := restarts(); n > 0 {
		t.Errorf("%d containers restarted after the kubelet restart", n)
	}

	// When did the new kubelet first probe each pod?
	var offsets []time.Duration
	for name, ip := range ips {
		calls := probeCalls(t, ip, "http/readiness", started, time.Now())
		if len(calls) == 0 {
			t.Errorf("%s: no readiness probe in the %v after the restart", name, 2*restartPeriod)
			continue
		}
		offsets = append(offsets, calls[0].Sub(started))
	}
	if len(offsets) < restartPods {
		return
	}
	sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
	// Densest tenth of the period: with the first probes spread uniformly it
	// holds about restartPods/10 of them (well under 20 by chance); with no
	// spreading (every worker probing as soon as it starts) nearly all.
	window, densest := restartPeriod/10, 0
	for i := range offsets {
		j := sort.Search(len(offsets), func(j int) bool { return offsets[j] >= offsets[i]+window })
		densest = max(densest, j-i)
	}
	span := offsets[len(offsets)-1] - offsets[0]
	t.Logf("first probes after the restart: %v .. %v (span %v); densest %v window holds %d of %d",
		offsets[0].Round(time.Millisecond), offsets[len(offsets)-1].Round(time.Millisecond), span.Round(time.Millisecond), window, densest, len(offsets))
	if densest > 2*restartPods/5 {
		t.Errorf("first probes after the restart bunch: %d of %d within %v", densest, len(offsets), window)
	}
	if span < restartPeriod/2 {
		t.Errorf("first probes after the restart span only %v of the %v period", span, restartPeriod)
	}
	if last := offsets[len(offsets)-1]; last > restartPeriod+10*time.Second {
		t.Errorf("a pod waited %v for its first probe after the restart (period %v)", last, restartPeriod)
	}
}

var restartedAt = regexp.MustCompile(`(?m)^started ([0-9]+)\.([0-9]{6})$`)

// restartKubelet runs hack/local-restart-kubelet.sh on the cluster the tests
// use (or $PW_KUBELET_RESTART_CMD with the node name, e.g.
// hack/kind-restart-kubelet.sh on kind) and returns when the new kubelet
// process started. args go to the script (both take --feature-gates SPEC).
func restartKubelet(t *testing.T, args ...string) time.Time {
	t.Helper()
	argv := append([]string{filepath.Join(repoRoot(), "hack", "local-restart-kubelet.sh")}, args...)
	if c := strings.Fields(os.Getenv("PW_KUBELET_RESTART_CMD")); len(c) > 0 {
		argv = append(append(c, args...), nodeName)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "PW_CLUSTER_DIR="+clusterDir())
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s: %v\n%s%s", argv[0], err, out, stderr)
	}
	m := restartedAt.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("%s printed no start time:\n%s", argv[0], out)
	}
	sec, _ := strconv.ParseInt(m[1], 10, 64)
	usec, _ := strconv.ParseInt(m[2], 10, 64)
	return time.Unix(sec, usec*1000)
}
