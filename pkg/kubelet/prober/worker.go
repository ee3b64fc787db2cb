/*
Copyright 2015 The Kubernetes Authors.

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
	"math/rand"
	"strings"
	"sync/atomic"
	"time"

	"github.com/probewheel/probewheel/pkg/features"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// worker handles the periodic probing of its assigned container. The manager's scheduler runs the
// worker's doProbe on an executor goroutine each time the probe is due, until the container permanently
// terminates or the worker is stopped; between runs a worker holds no goroutine. With the
// ProbeTimerWheel feature gate off, the worker runs upstream's loop in a goroutine of its own
// instead (run). The worker uses the probe Manager's statusManager to get up-to-date container IDs.
type worker struct {
	// Scheduling state, guarded by the manager's scheduler.
	sched workerSched

	// Channel for stopping the probe, used by run (gate off) only.
	stopCh chan struct{}

	// Channel for triggering the probe manually, used by run (gate off) only.
	manualTriggerCh chan struct{}

	// The context the worker was started with, passed to every doProbe.
	ctx context.Context

	// The pod containing this probe (read-only)
	pod *v1.Pod

	// The container to probe (read-only): the pod's own, which the kubelet never changes in place,
	// rather than a copy of it in every worker (containerIn).
	container *v1.Container

	// Describes the probe configuration (read-only)
	spec *v1.Probe

	// What upstream computes on every run from inputs fixed for the worker's lifetime: an exec
	// probe's expanded command, an HTTP probe's request.
	cache runCache

	// The type of the worker.
	probeType probeType

	// The probe value during the initial delay.
	initialValue results.Result

	// Where to store this workers results.
	resultsManager results.Manager
	probeManager   *manager

	// The last known container ID for this worker.
	containerID kubecontainer.ContainerID
	// The last probe result for this worker.
	lastResult results.Result
	// How many times in a row the probe has returned the same result.
	resultRun int

	// If set, skip probing.
	onHold bool

	// The worker's metric series, kept while seriesEpoch is unchanged (countResult).
	series workerSeries
}

// The label values of a worker's ProberResults and ProberDuration series are the pod's and
// container's own strings. Upstream keeps five prebuilt label maps per worker (~1.7 KB, more than
// the rest of the worker); arrays built on the stack when used cost nothing to keep.

func (w *worker) proberResultsLabelValues(result string) [6]string {
	return [...]string{w.probeType.String(), result, w.container.Name, w.pod.Name, w.pod.Namespace, string(w.pod.UID)}
}

func (w *worker) proberDurationLabelValues() [4]string {
	return [...]string{w.probeType.String(), w.container.Name, w.pod.Name, w.pod.Namespace}
}

// A worker keeps the ProberResults and ProberDuration series it looked up, so that a run counts
// with an atomic add instead of hashing six label values under two shared locks, and the series
// are exactly upstream's, which looks them up on every run:
//
//   - a series is kept only if the metric was registered before it was looked up: component-base
//     metrics are no-ops until the kubelet's server registers them, which it may do during a run;
//   - the kubelet removes these series only where a worker exits (exit), which then advances
//     seriesEpoch, and a worker drops what it kept when the epoch has moved. So a series another
//     worker deleted — the duration series of a pod created again under the same name, which has
//     no pod_uid label — comes back with the next run, as upstream's does. A run that looked a
//     series up just before another worker deleted it counts in the deleted series, as upstream's
//     run does.
var seriesEpoch atomic.Uint64

// workerSeries are the series a worker kept, valid while seriesEpoch equals epoch.
type workerSeries struct {
	epoch    uint64
	results  [3]metrics.CounterMetric // by seriesResults
	duration metrics.ObserverMetric
}

var seriesResults = [...]string{probeResultSuccessful, probeResultFailed, probeResultUnknown}

// keptSeries returns w's kept series, emptied if the epoch has moved since they were kept.
func (w *worker) keptSeries() *workerSeries {
	if e := seriesEpoch.Load(); w.series.epoch != e { // before the look-ups whose series are kept at e
		w.series = workerSeries{epoch: e}
	}
	return &w.series
}

// countResult counts a run's result seriesResults[i].
func (w *worker) countResult(i int) {
	ks := w.keptSeries()
	if c := ks.results[i]; c != nil {
		c.Inc()
		return
	}
	registered := ProberResults.IsCreated()
	lv := w.proberResultsLabelValues(seriesResults[i])
	c := ProberResults.WithLabelValues(lv[:]...)
	if registered {
		ks.results[i] = c
	}
	c.Inc()
}

// observeDuration records how long a run took, since start.
func (w *worker) observeDuration(start time.Time) {
	ks := w.keptSeries()
	o := ks.duration
	if o == nil {
		registered := ProberDuration.IsCreated()
		lv := w.proberDurationLabelValues()
		o = ProberDuration.WithLabelValues(lv[:]...)
		if registered {
			ks.duration = o
		}
	}
	o.Observe(time.Since(start).Seconds())
}

// The label names of ProberResults and ProberDuration, in their declared order.
var (
	proberResultsLabelNames  = []string{"probe_type", "result", "container", "pod", "namespace", "pod_uid"}
	proberDurationLabelNames = []string{"probe_type", "container", "pod", "namespace"}
)

func zipLabels(names, values []string) metrics.Labels {
	labels := make(metrics.Labels, len(names))
	for i, name := range names {
		labels[name] = values[i]
	}
	return labels
}

// containerIn returns the pod's own copy of container (the kubelet passes a copy of one of the
// pod's containers), or a copy of container if the pod has none equal to it. A copy is 400 bytes
// for every probe.
func containerIn(pod *v1.Pod, container v1.Container) *v1.Container {
	for _, cs := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			if cs[i].Name == container.Name && apiequality.Semantic.DeepEqual(cs[i], container) {
				return &cs[i]
			}
		}
	}
	return &container
}

// sameContainerID reports whether id.String() == s, without building the string on every run.
func sameContainerID(id kubecontainer.ContainerID, s string) bool {
	rest, ok := strings.CutPrefix(s, id.Type)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, "://")
	return ok && rest == id.ID
}

// isInitContainer checks if the worker's container is in the pod's init containers
func (w *worker) isInitContainer() bool {
	for _, initContainer := range w.pod.Spec.InitContainers {
		if initContainer.Name == w.container.Name {
			return true
		}
	}
	return false
}

// Creates and starts a new probe worker.
func newWorker(
	m *manager,
	probeType probeType,
	pod *v1.Pod,
	container v1.Container) *worker {

	w := &worker{
		pod:          pod,
		container:    containerIn(pod, container),
		probeType:    probeType,
		probeManager: m,
	}

	switch probeType {
	case readiness:
		w.spec = container.ReadinessProbe
		w.resultsManager = m.readinessManager
		w.initialValue = results.Failure
	case liveness:
		w.spec = container.LivenessProbe
		w.resultsManager = m.livenessManager
		w.initialValue = results.Success
	case startup:
		w.spec = container.StartupProbe
		w.resultsManager = m.startupManager
		w.initialValue = results.Unknown
	}
	if m.scheduler == nil {
		w.stopCh = make(chan struct{}, 1)          // Buffer so stop() can be non-blocking.
		w.manualTriggerCh = make(chan struct{}, 1) // Buffer so prober_manager can do non-blocking calls to doProbe.
	}

	return w
}

// start hands the worker to the manager's scheduler, which probes the container every period
// until the worker stops. The first probe runs at once, except within one period of the kubelet's
// start, when the manager spreads first probes over the period.
func (w *worker) start(ctx context.Context) {
	w.ctx = ctx
	if w.probeManager.scheduler == nil {
		go w.run(ctx)
		return
	}
	period := probePeriod(ctx, w)
	w.probeManager.scheduler.add(w, period, w.probeManager.spread.delay(period, schedulerTick))
}

// run periodically probes the container: upstream's worker loop, for the ProbeTimerWheel gate off.
func (w *worker) run(ctx context.Context) {
	logger := klog.FromContext(ctx)
	probeTickerPeriod := probePeriod(ctx, w)

	// If kubelet restarted the probes could be started in rapid succession.
	// Let the worker wait for a random portion of tickerPeriod before probing.
	// Do it only if the kubelet has started recently.
	if probeTickerPeriod > time.Since(w.probeManager.start) {
		time.Sleep(time.Duration(rand.Float64() * float64(probeTickerPeriod)))
	}

	probeTicker := time.NewTicker(probeTickerPeriod)

	defer func() {
		// Clean up.
		probeTicker.Stop()
		w.exit()
	}()

probeLoop:
	for w.doProbe(ctx) {
		// Wait for next probe tick.
		select {
		case <-w.stopCh:
			break probeLoop
		case <-probeTicker.C:
			// continue
		case <-w.manualTriggerCh:
			// Updating the periodic timer to run the probe again at intervals of probeTickerPeriod
			// starting from the moment a manual run occurs.
			probeTicker.Reset(probeTickerPeriod)
			logger.V(4).Info("Triggered Probe by manual run", "probeType", w.probeType, "pod", klog.KObj(w.pod), "podUID", w.pod.UID, "containerName", w.container.Name)
			// continue
		}
	}
}

// stop stops the probe worker. The worker handles cleanup and removes itself from its manager.
// It is safe to call stop multiple times.
func (w *worker) stop() {
	if w.stopCh == nil && w.probeManager != nil { // not one of upstream's tests' zero workers
		w.probeManager.scheduler.stop(w)
		return
	}
	select {
	case w.stopCh <- struct{}{}:
	default: // Non-blocking.
	}
}

// trigger asks for an immediate run of the probe that restarts its period. Like upstream's
// non-blocking send on its one-slot trigger channel (which the gate-off loop uses), it reports
// false only while an earlier trigger waits.
func (w *worker) trigger() bool {
	if w.manualTriggerCh == nil && w.probeManager != nil { // not one of upstream's tests' zero workers
		return w.probeManager.scheduler.trigger(w)
	}
	select {
	case w.manualTriggerCh <- struct{}{}:
		return true
	default:
		return false
	}
}

// execute performs one scheduled action on the calling executor and reports whether the worker
// keeps going.
func (w *worker) execute(a action) (keepGoing bool) {
	switch a {
	case actExit:
		w.exit()
		return false
	case actManual:
		klog.FromContext(w.ctx).V(4).Info("Triggered Probe by manual run", "probeType", w.probeType, "pod", klog.KObj(w.pod), "podUID", w.pod.UID, "containerName", w.container.Name)
	}
	keepGoing = w.doProbe(w.ctx)
	if !keepGoing {
		w.exit()
	}
	return keepGoing
}

// exit cleans up after the worker, as upstream's worker loop does when it returns.
func (w *worker) exit() {
	if !w.containerID.IsEmpty() {
		w.resultsManager.Remove(w.containerID)
	}

	w.probeManager.removeWorker(w.pod.UID, w.container.Name, w.probeType)
	for _, result := range seriesResults {
		lv := w.proberResultsLabelValues(result)
		ProberResults.Delete(zipLabels(proberResultsLabelNames, lv[:]))
	}
	lv := w.proberDurationLabelValues()
	ProberDuration.Delete(zipLabels(proberDurationLabelNames, lv[:]))
	seriesEpoch.Add(1) // after the deletions: workers that kept these series look them up again
}

// doProbe probes the container once and records the result.
// Returns whether the worker should continue.
func (w *worker) doProbe(ctx context.Context) (keepGoing bool) {
	defer func() { recover() }() // Actually eat panics (HandleCrash takes care of logging)
	defer runtime.HandleCrashWithContext(ctx, func(ctx context.Context, _ interface{}) { keepGoing = true })

	logger := klog.FromContext(ctx)
	startTime := time.Now()
	status, ok := w.probeManager.statusManager.GetPodStatus(w.pod.UID)
	if !ok {
		// Either the pod has not been created yet, or it was already deleted.
		logger.V(3).Info("No status for pod", "pod", klog.KObj(w.pod))
		return true
	}

	// Worker should terminate if pod is terminated.
	if status.Phase == v1.PodFailed || status.Phase == v1.PodSucceeded {
		logger.V(3).Info("Pod is terminated, exiting probe worker",
			"pod", klog.KObj(w.pod), "phase", status.Phase)
		return false
	}

	c, ok := podutil.GetContainerStatus(status.ContainerStatuses, w.container.Name)
	if !ok || len(c.ContainerID) == 0 {
		c, ok = podutil.GetContainerStatus(status.InitContainerStatuses, w.container.Name)
		if !ok || len(c.ContainerID) == 0 {
			// Either the container has not been created yet, or it was deleted.
			logger.V(3).Info("Probe target container not found",
				"pod", klog.KObj(w.pod), "containerName", w.container.Name)
			return true // Wait for more information.
		}
	}

	isRestartableInitContainer := w.isInitContainer() &&
		w.container.RestartPolicy != nil &&
		*w.container.RestartPolicy == v1.ContainerRestartPolicyAlways

	if !sameContainerID(w.containerID, c.ContainerID) {
		if !w.containerID.IsEmpty() {
			w.resultsManager.Remove(w.containerID)
		}

		w.containerID = kubecontainer.ParseContainerID(logger, c.ContainerID)

		if !utilfeature.DefaultFeatureGate.Enabled(features.ChangeContainerStatusOnKubeletRestart) {
			// On kubelet restart, we don't want to immediately set the probe result to Failure,
			// as this could cause a container that was Ready to become NotReady.
			isRestart := false
			if c.State.Running != nil {
				containerStartTime := c.State.Running.StartedAt.Time
				if !containerStartTime.IsZero() && containerStartTime.Before(kubeletRestartGracePeriod(w.probeManager.start)) {
					isRestart = true
				}
			}

			// For restartable init containers (sidecars) with a startup probe, seed the
			// startup result with Success if the container had already started before the
			// kubelet restarted. This ensures startupManager.Get() returns a valid result,
			// allowing computeInitContainerActions to detect pod initialization.
			// See https://github.com/kubernetes/kubernetes/issues/136910
			if isRestartableInitContainer && w.probeType == startup {
				if c.Started != nil && *c.Started {
					w.resultsManager.Set(w.containerID, results.Success, w.pod)
				}
			}

			if !isRestart {
				w.resultsManager.Set(w.containerID, w.initialValue, w.pod)
			}
		} else {
			w.resultsManager.Set(w.containerID, w.initialValue, w.pod)
		}

		// We've got a new container; resume probing.
		w.onHold = false
	}

	if w.onHold {
		// Worker is on hold until there is a new container.
		return true
	}

	if c.State.Running == nil {
		logger.V(3).Info("Non-running container probed",
			"pod", klog.KObj(w.pod), "containerName", w.container.Name)
		if !w.containerID.IsEmpty() {
			w.resultsManager.Set(w.containerID, results.Failure, w.pod)
		}

		// Abort if the container will not be restarted.
		if utilfeature.DefaultFeatureGate.Enabled(features.ContainerRestartRules) {
			if c.State.Terminated == nil {
				return true
			}
			containerShouldRestart := podutil.ContainerShouldRestart(*w.container, w.pod.Spec, c.State.Terminated.ExitCode)
			allContainersRestarting := utilfeature.DefaultFeatureGate.Enabled(features.RestartAllContainersOnContainerExits) && kubecontainer.ShouldAllContainersRestart(w.pod, nil, &status)
			return containerShouldRestart || allContainersRestarting
		}
		return c.State.Terminated == nil ||
			w.pod.Spec.RestartPolicy != v1.RestartPolicyNever ||
			isRestartableInitContainer
	}

	// Graceful shutdown of the pod.
	if w.pod.ObjectMeta.DeletionTimestamp != nil && (w.probeType == liveness || w.probeType == startup) {
		logger.V(3).Info("Pod deletion requested, setting probe result to success",
			"probeType", w.probeType, "pod", klog.KObj(w.pod), "containerName", w.container.Name)
		if w.probeType == startup {
			logger.Info("Pod deletion requested before container has fully started",
				"pod", klog.KObj(w.pod), "containerName", w.container.Name)
		}
		// Set a last result to ensure quiet shutdown.
		w.resultsManager.Set(w.containerID, results.Success, w.pod)
		// Stop probing at this point.
		return false
	}

	// Probe disabled for InitialDelaySeconds.
	if int32(time.Since(c.State.Running.StartedAt.Time).Seconds()) < w.spec.InitialDelaySeconds {
		return true
	}

	if c.Started != nil && *c.Started {
		// Stop probing for startup once container has started.
		// we keep it running to make sure it will work for restarted container.
		if w.probeType == startup {
			return true
		}
	} else {
		// Disable other probes until container has started.
		if w.probeType != startup {
			return true
		}
	}

	// Note, exec probe does NOT have access to pod environment variables or downward API
	result, err := w.probeManager.prober.probeWith(ctx, w.probeType, w.pod, status, w.container, w.containerID, &w.cache)
	if err != nil {
		// Prober error, throw away the result.
		return true
	}

	switch result {
	case results.Success:
		w.countResult(0)
		w.observeDuration(startTime)
	case results.Failure:
		w.countResult(1)
	default:
		w.countResult(2)
		w.observeDuration(startTime)
	}

	if w.lastResult == result {
		w.resultRun++
	} else {
		w.lastResult = result
		w.resultRun = 1
	}

	if (result == results.Failure && w.resultRun < int(w.spec.FailureThreshold)) ||
		(result == results.Success && w.resultRun < int(w.spec.SuccessThreshold)) {
		// Success or failure is below threshold - leave the probe state unchanged.
		return true
	}

	w.resultsManager.Set(w.containerID, result, w.pod)

	if (w.probeType == liveness && result == results.Failure) || w.probeType == startup {
		// The container fails a liveness/startup check, it will need to be restarted.
		// Stop probing until we see a new container ID. This is to reduce the
		// chance of hitting #21751, where running `docker exec` when a
		// container is being stopped may lead to corrupted container state.
		// In addition, if the threshold for each result of a startup probe is exceeded, we should stop probing
		// until the container is restarted.
		// This is to prevent extra Probe executions #117153.
		w.onHold = true
		w.resultRun = 0
	}

	return true
}
