//go:build !probewheel_export

// Module-only: compares the scheduler with the AfterFunc arm (afterfunc.go), which the kubelet never builds.

/*
Copyright 2026 The probewheel Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package prober

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/probe"
	"k8s.io/utils/exec"
)

// signalExec is an exec prober that succeeds at once and tells the run's
// container's channel that it ran.
type signalExec map[string]chan struct{}

func (s signalExec) Probe(cmd exec.Cmd) (probe.Result, string, error) {
	s[cmd.(*execInContainer).containerName] <- struct{}{}
	return probe.Success, "", nil
}

// signalledPod is a pod of readiness workers whose runs signal their
// container's channel in ran; workers are in the order of the containers,
// each after its first run.
type signalledPod struct {
	pod     *v1.Pod
	ran     signalExec
	workers []*worker
}

// addSignalledPod adds, through mgr (m itself or a manager built on it), a
// pod of n containers with a readiness exec probe every hour, so that after
// the first run, which comes at once, only triggers run them. m's results are
// drained until tb's cleanup.
func addSignalledPod(tb testing.TB, m *manager, mgr Manager, n int) signalledPod {
	tb.Helper()
	m.start = time.Now().Add(-time.Hour) // first runs at once, no start-up spread
	m.spread.start = m.start
	sp := signalledPod{ran: signalExec{}}
	cs := containers(n, func(c *v1.Container, _ int) { c.ReadinessProbe = execProbe(3600) })
	for _, c := range cs {
		sp.ran[c.Name] = make(chan struct{}, 1)
	}
	m.prober.exec = sp.ran
	stop := make(chan struct{})
	tb.Cleanup(func() { close(stop) })
	for _, rm := range []results.Manager{m.readinessManager, m.livenessManager, m.startupManager} {
		go func() {
			for {
				select {
				case <-rm.Updates():
				case <-stop:
					return
				}
			}
		}()
	}
	sp.pod = podWith("p", cs...)
	setRunning(m, sp.pod)
	mgr.AddPod(klog.NewContext(context.Background(), klog.Background()), sp.pod)
	for _, c := range cs {
		<-sp.ran[c.Name]
		w, ok := m.getWorker(sp.pod.UID, c.Name, readiness)
		if !ok {
			tb.Fatalf("no worker for %s", c.Name)
		}
		sp.workers = append(sp.workers, w)
	}
	return sp
}

// removeAll removes the pod through mgr and waits until every worker exited.
func (sp signalledPod) removeAll(m *manager, mgr Manager) {
	mgr.RemovePod(sp.pod)
	for m.workerCount() > 0 {
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkSchedulerContention is the scheduler's shared path under
// contention (docs/design.md, "Many cores"): every add, stop, trigger,
// dispatch and finish takes the one scheduler mutex, where upstream's
// workers share nothing. Each of b.RunParallel's goroutines owns one worker
// and triggers a run of it, then waits until the run probed: an op is one
// trigger and one run end to end (trigger, dispatch, an executor's doProbe,
// finish), for as many clients at once as -cpu gives Ps. Run with
// -cpu 1,2,4,8; the same for upstream's loop (gate-off) and the AfterFunc arm.
func BenchmarkSchedulerContention(b *testing.B) {
	for _, mode := range []string{"wheel", "gate-off", "afterfunc"} {
		b.Run("mode="+mode, func(b *testing.B) {
			// 64 clients per P at most (RunParallel's default is one per P).
			const workers = 512
			m := newTestManager()
			if mode != "wheel" {
				m.scheduler = nil
			}
			var mgr Manager = m
			var a *afterFuncManager
			if mode == "afterfunc" {
				a = NewAfterFuncManager(m, 0).(*afterFuncManager)
				mgr = a
			}
			sp := addSignalledPod(b, m, mgr, workers)
			free := make(chan *worker, workers)
			for _, w := range sp.workers {
				free <- w
			}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var w *worker
				select {
				case w = <-free:
				default:
					panic(fmt.Sprintf("more than %d parallel clients", workers))
				}
				done := sp.ran[w.container.Name]
				for pb.Next() {
					for !w.trigger() { // an earlier trigger still waits: cannot happen here
					}
					if a != nil {
						a.poke(w)
					}
					<-done
				}
			})
			b.StopTimer()
			sp.removeAll(m, mgr)
		})
	}
}
