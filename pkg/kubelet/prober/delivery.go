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
	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// resultsDelivery is the results.Manager a worker writes to. A Set that
// changes the cached result sends an Update on the manager's Updates()
// channel (20 deep), and blocks while the channel is full because
// syncLoopIteration does not read it. Upstream blocks one probe's goroutine
// there. Here the run would block holding an executor slot, and enough
// blocked runs — a node-wide readiness flip during a slow pod sync — would
// leave no slot for the liveness probes of unrelated pods. So a run about
// to block there detaches from the pool first: its slot goes to the next due
// run. The run goes on without a slot until it is about to probe its target
// (resume): the Set of a new container's initial result comes before the
// probe, which takes a slot again (waiting for one if the lane is full). A
// run whose Set was its last step ends without one.
//
// Only a Set that finds the channel full detaches: one that finds room does
// not block, and detaching it would let the probe that follows the initial
// result of a new container run outside the pool's bound. A run that finds
// room but loses it to another run before it sends (at most the runs in
// flight at the moment the channel fills) blocks with its slot, and is moved
// to the slow lane after slowAfter like any overrun.
type resultsDelivery struct {
	results.Manager
	w *worker
	// detached: the run in flight gave its slot up in Set. Only the run's own
	// goroutine reads or writes it.
	detached bool
}

func (d *resultsDelivery) Set(id kubecontainer.ContainerID, result results.Result, pod *v1.Pod) {
	if updates := d.Manager.Updates(); !d.detached && len(updates) == cap(updates) && !d.w.probeManager.scheduler.mech.noDetach {
		// Only this worker writes results for its container and probe type,
		// so the cached value cannot change between Get and Set.
		if prev, ok := d.Manager.Get(id); !ok || prev != result {
			d.detached = d.w.probeManager.scheduler.detach(d.w)
		}
	}
	d.Manager.Set(id, result, pod)
}

// resume takes a slot again for a run that gave its slot up, before the run
// probes its target. doProbe calls it; it does nothing for a run that holds
// its slot, and with the ProbeTimerWheel gate off.
func (d *resultsDelivery) resume() {
	if d.detached {
		d.detached = false
		d.w.probeManager.scheduler.reattach(d.w)
	}
}
