package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	remote "k8s.io/cri-client/pkg"
)

// execModel is a container runtime whose exec latency grows with the execs in
// flight, for the exec runner (BenchmarkExecRuntime). The runner's default,
// an exec that costs nothing (or a fixed PROBEWHEEL_BENCH_EXEC_LATENCY),
// cannot show what the prober's bound on exec runs in flight
// (pkg/kubelet/prober/exec_limit.go) is for: every exec a container runtime
// runs starts a process in the container (containerd, its shim, runc), and
// past the runtime's CPU every exec slows down together until healthy probes
// time out.
//
// An exec takes base + cost × (execs in flight, this one included) / cores,
// fixed when it starts; one that would take longer than its timeout returns
// remote.ErrCommandTimedOut at its timeout, as the CRI's ExecSync does, and
// holds its place until then. The numbers are kind's containerd (1.6, runc)
// on this 2-core machine under make kind-e2e-storm, exec readiness and
// liveness probes every second with a 1 s timeout:
// e2e/results/kind-storm-20261129-042702 measured 176 ms for an exec on the
// unloaded node (its first window), and both it and -032129 about a core of
// runtime CPU at 30 execs/s (medians 0.91 to 1.07 cores): some 35 ms of CPU
// an exec. The runtime kept up at 30 execs/s; at 60 (-032129's 30 pods) the
// successful execs took 1.3 to 1.4 s on average and healthy probes timed
// out 361 and 369 times. The model agrees: its CPU alone caps it at
// cores / cost = 57 execs/s, and a run meets a 1 s timeout only with at
// most 47 execs in flight, so at a 1 s timeout it keeps up with about 47
// execs/s. pkg/kubelet/prober's TestExecLimitStorm plays the same model
// (modelRuntime).
type execModel struct {
	base  time.Duration // an exec on an idle runtime
	cost  time.Duration // the runtime's CPU an exec takes
	cores int           // the CPUs the runtime's execs share

	mu       sync.Mutex
	inFlight int

	// Runs that timed out, and runs that returned within their timeout.
	timedOut, ran atomic.Int64
}

// newExecModel is the model of kind's containerd on the measured 2-core node.
func newExecModel() *execModel {
	return &execModel{base: 176 * time.Millisecond, cost: 35 * time.Millisecond, cores: 2}
}

// exec plays one exec of cmd: it returns when the runtime would, or when ctx
// ends (ctx's error).
func (m *execModel) exec(ctx context.Context, cmd []string, timeout time.Duration) error {
	m.mu.Lock()
	m.inFlight++
	d := m.base + m.cost*time.Duration(m.inFlight)/time.Duration(m.cores)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.inFlight--
		m.mu.Unlock()
	}()
	timedOut := d > timeout
	if timedOut {
		d = timeout
	}
	tm := time.NewTimer(d)
	select {
	case <-tm.C:
	case <-ctx.Done():
		tm.Stop()
		return ctx.Err()
	}
	if timedOut {
		m.timedOut.Add(1)
		return fmt.Errorf("%w: command %q timed out after %s", remote.ErrCommandTimedOut, strings.Join(cmd, " "), timeout)
	}
	m.ran.Add(1)
	return nil
}
