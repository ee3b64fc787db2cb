// probewheel:module-only — compares the scheduler with the AfterFunc arm (afterfunc.go), which the kubelet never builds.

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
			m.start = time.Now().Add(-time.Hour) // first runs at once, no start-up spread
			m.spread.start = m.start
			if mode != "wheel" {
				m.scheduler = nil
			}
			var mgr Manager = m
			var a *afterFuncManager
			if mode == "afterfunc" {
				a = NewAfterFuncManager(m, 0).(*afterFuncManager)
				mgr = a
			}
			sig := signalExec{}
			cs := containers(workers, func(c *v1.Container, _ int) {
				c.ReadinessProbe = execProbe(3600)
			})
			for _, c := range cs {
				sig[c.Name] = make(chan struct{}, 1)
			}
			m.prober.exec = sig
			stop := make(chan struct{})
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
			pod := podWith("bench", cs...)
			setRunning(m, pod)
			mgr.AddPod(klog.NewContext(context.Background(), klog.Background()), pod)
			free := make(chan *worker, workers)
			for _, c := range cs {
				<-sig[c.Name] // the first run, at once
				w, ok := m.getWorker(pod.UID, c.Name, readiness)
				if !ok {
					b.Fatalf("no worker for %s", c.Name)
				}
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
				done := sig[w.container.Name]
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
			mgr.RemovePod(pod)
			for m.workerCount() > 0 {
				time.Sleep(time.Millisecond)
			}
			close(stop)
		})
	}
}
