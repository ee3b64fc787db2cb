// Package bench is the density benchmark suite: one harness drives upstream's
// k8s.io/kubernetes/pkg/kubelet/prober and probewheel's
// github.com/probewheel/probewheel/pkg/kubelet/prober through the Manager interface
// only, with the kubelet's real status manager and results managers, and measures
// at the probe targets (loopback HTTP/TCP/gRPC servers and a fake exec runner).
//
// The benchmarks live in bench_test.go; scripts/bench.sh runs them. Knobs are
// environment variables (see config.go); docs/benchmarks.md explains every
// metric.
package bench

import (
	"fmt"
	"sync"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/featuregate"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	upstream "k8s.io/kubernetes/pkg/kubelet/prober"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/kubelet/status"

	oracle "github.com/probewheel/probewheel/bench/oracle"
	"github.com/probewheel/probewheel/pkg/features"
	probewheel "github.com/probewheel/probewheel/pkg/kubelet/prober"
)

// Manager is what the harness drives: upstream's prober.Manager. probewheel's
// Manager has the same method set, so its managers are used through this type.
type Manager = upstream.Manager

// Compile-time check: probewheel's interface is (still) upstream's.
var _ Manager = probewheel.Manager(nil)

// Impl is one prober implementation under test.
type Impl struct {
	Name string
	New  func(statusManager status.Manager, liveness, readiness, startup results.Manager,
		runner kubecontainer.CommandRunner, recorder record.EventRecorderLogger) Manager
}

// Impls are the implementations, in the default order.
var Impls = []Impl{
	{Name: "upstream", New: func(s status.Manager, l, r, st results.Manager, c kubecontainer.CommandRunner, rec record.EventRecorderLogger) Manager {
		return upstream.NewManager(s, l, r, st, c, rec)
	}},
	{Name: "probewheel", New: func(s status.Manager, l, r, st results.Manager, c kubecontainer.CommandRunner, rec record.EventRecorderLogger) Manager {
		return withTimerWheel(true, func() Manager { return probewheel.NewManager(s, l, r, st, c, rec) })
	}},
	// The same binary with the ProbeExecLimit gate off: what the exec limit costs where it
	// does not bind is the probewheel arm's figures against this one's.
	{Name: "no-exec-limit", New: func(s status.Manager, l, r, st results.Manager, c kubecontainer.CommandRunner, rec record.EventRecorderLogger) Manager {
		return withGates(map[string]bool{string(features.ProbeTimerWheel): true, string(features.ProbeExecLimit): false},
			func() Manager { return probewheel.NewManager(s, l, r, st, c, rec) })
	}},
	// The same binary with the ProbeTimerWheel gate off: probewheel's package running
	// upstream's per-probe loop. It must match the upstream arm within noise.
	{Name: "gate-off", New: func(s status.Manager, l, r, st results.Manager, c kubecontainer.CommandRunner, rec record.EventRecorderLogger) Manager {
		return withTimerWheel(false, func() Manager { return probewheel.NewManager(s, l, r, st, c, rec) })
	}},
	// The design a reviewer proposes first: the same workers and doProbe, each
	// on a time.AfterFunc timer, with a semaphore bounding the runs in flight
	// (pkg/kubelet/prober/afterfunc.go, which the kubelet never builds).
	{Name: "afterfunc", New: func(s status.Manager, l, r, st results.Manager, c kubecontainer.CommandRunner, rec record.EventRecorderLogger) Manager {
		return probewheel.NewAfterFuncManager(withTimerWheel(false, func() Manager { return probewheel.NewManager(s, l, r, st, c, rec) }), 0)
	}},
}

// Oracle is the contract probewheel is held to (bench/oracle): upstream's package with every run
// started on the next tick of probewheel's wheel. bench/parity compares probewheel with it
// exactly; it is not one of Impls, which make bench measures.
var Oracle = Impl{Name: "oracle", New: func(s status.Manager, l, r, st results.Manager, c kubecontainer.CommandRunner, rec record.EventRecorderLogger) Manager {
	return oracle.NewManager(s, l, r, st, c, rec)
}}

var gateMu sync.Mutex

// withTimerWheel builds a manager with the ProbeTimerWheel gate set as given.
func withTimerWheel(enabled bool, build func() Manager) Manager {
	return withGates(map[string]bool{string(features.ProbeTimerWheel): enabled}, build)
}

// withGates builds a manager with the gates set as given, then restores them:
// NewManager reads them once, so the manager keeps its mode.
func withGates(gates map[string]bool, build func() Manager) Manager {
	gateMu.Lock()
	defer gateMu.Unlock()
	was := map[string]bool{}
	for name := range gates {
		was[name] = utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(name))
	}
	set := func(m map[string]bool) {
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(m); err != nil {
			panic(fmt.Sprintf("bench: setting %v: %v", m, err))
		}
	}
	set(gates)
	defer set(was)
	return build()
}

// ImplNamed is the implementation of Impls with that name.
func ImplNamed(name string) (Impl, bool) {
	for _, impl := range Impls {
		if impl.Name == name {
			return impl, true
		}
	}
	return Impl{}, false
}

// Mutant is impl with something around it: a fault, for the tests that show
// a harness's checks are not blind, or a recorder. wrapResults, if not nil,
// is given the results manager of each probe type ("liveness", "readiness",
// "startup") and returns the one the prober writes to; wrapManager, if not
// nil, wraps the manager.
func Mutant(impl Impl, wrapResults func(kind string, m results.Manager) results.Manager, wrapManager func(Manager) Manager) Impl {
	return Impl{Name: "mutant", New: func(s status.Manager, l, r, st results.Manager, c kubecontainer.CommandRunner, rec record.EventRecorderLogger) Manager {
		if wrapResults != nil {
			l, r, st = wrapResults("liveness", l), wrapResults("readiness", r), wrapResults("startup", st)
		}
		m := impl.New(s, l, r, st, c, rec)
		if wrapManager != nil {
			m = wrapManager(m)
		}
		return m
	}}
}
