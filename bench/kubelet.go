package bench

import (
	"errors"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubepod "k8s.io/kubernetes/pkg/kubelet/pod"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/kubelet/status"
	statustest "k8s.io/kubernetes/pkg/kubelet/status/testing"
	kubeletutil "k8s.io/kubernetes/pkg/kubelet/util"
	"k8s.io/utils/exec"
)

// Kubelet is what surrounds the prober in a kubelet, as every in-process
// harness (the benchmarks, bench/parity, bench/reliability) builds it: the
// pod manager, the real status manager over a fake API client, and the three
// results managers whose Updates() syncLoopIteration reads. Reading those
// channels is left to the harness: how it plays the sync loop (one
// goroutine or three, pausing it, writing readiness back to the status
// manager) is what each one measures. The prober package's own test harness
// builds its own: it runs inside the kubernetes tree too, where this module
// is not.
type Kubelet struct {
	Pods      kubepod.Manager
	Status    status.Manager
	Liveness  results.Manager
	Readiness results.Manager
	Startup   results.Manager
}

// NewKubelet returns the kubelet's managers, empty; no prober yet, so that a
// harness can take its baselines (goroutines, heap) between the two.
func NewKubelet() *Kubelet {
	pods := kubepod.NewBasicPodManager()
	return &Kubelet{
		Pods:      pods,
		Status:    status.NewManager(&fake.Clientset{}, pods, &statustest.FakePodDeletionSafetyProvider{}, kubeletutil.NewPodStartupLatencyTracker()),
		Liveness:  results.NewManager(),
		Readiness: results.NewManager(),
		Startup:   results.NewManager(),
	}
}

// Results are the three results managers by probe type, named as the
// prober's metrics name them.
func (k *Kubelet) Results() map[string]results.Manager {
	return map[string]results.Manager{"liveness": k.Liveness, "readiness": k.Readiness, "startup": k.Startup}
}

// NewManager builds impl's prober manager on k, its exec probes run through
// runner. wrap, if not nil, is given each results manager the prober will
// write to, by probe type, and returns the one the prober gets instead (a
// harness that records every Set); the Updates() channels stay k's.
func (k *Kubelet) NewManager(impl Impl, runner kubecontainer.CommandRunner, wrap func(kind string, m results.Manager) results.Manager) Manager {
	return Mutant(impl, wrap, nil).New(k.Status, k.Liveness, k.Readiness, k.Startup, runner, &record.FakeRecorder{})
}

// ExitFailure is what a failing exec probe's command returns: the error the
// runtime reports for exit status 1, which the prober reads as Failure.
var ExitFailure error = exec.CodeExitError{Err: errors.New("exit status 1"), Code: 1}
