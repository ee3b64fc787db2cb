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
	"net/http"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	httpprobe "k8s.io/kubernetes/pkg/probe/http"
)

// runCache holds what a worker's runs would otherwise compute again on every
// run from inputs fixed for the worker's lifetime: its probe spec and its
// container (the pod's own, never changed in place) and, for an HTTP probe,
// the pod's IP. Only the worker's own run uses it: a probe has one run in
// flight at a time.
type runCache struct {
	// An exec probe's command with the container's environment expanded, once
	// a run expanded it (an empty command expands to nil, again every run).
	execCmd []string
	// An HTTP probe's request for httpPodIP. net/http's client does not
	// change a request it sends (it copies it to set a deadline or follow a
	// redirect), so one request serves every run: the same bytes on the wire.
	httpReq   *http.Request
	httpPodIP string
	// An exec probe's place in the exec limit, made by its first run there
	// (exec_limit.go); guarded by the limit's lock.
	exec *limitedProbe
}

// execCommand returns exec's command with container's environment expanded.
// A nil cache expands it every time, as upstream does. A command without a
// '$' expands to itself: the cache keeps the spec's own, so that no worker
// keeps an object allocated among a run's garbage, which would hold the
// run's heap spans in use.
func (rc *runCache) execCommand(exec *v1.ExecAction, container *v1.Container) []string {
	if rc != nil && rc.execCmd != nil {
		return rc.execCmd
	}
	var cmd []string
	if rc != nil && len(exec.Command) > 0 && !slices.ContainsFunc(exec.Command, func(arg string) bool { return strings.Contains(arg, "$") }) {
		cmd = exec.Command
	} else {
		cmd = kubecontainer.ExpandContainerCommandOnlyStatic(exec.Command, container.Env)
	}
	if rc != nil {
		rc.execCmd = cmd
	}
	return cmd
}

// httpRequest returns the request of httpGet to podIP. A nil cache builds it
// every time, as upstream does; an error is not kept, so it is upstream's on
// every run.
func (rc *runCache) httpRequest(httpGet *v1.HTTPGetAction, container *v1.Container, podIP string) (*http.Request, error) {
	if rc != nil && rc.httpReq != nil && rc.httpPodIP == podIP {
		return rc.httpReq, nil
	}
	req, err := httpprobe.NewRequestForHTTPGetAction(httpGet, container, podIP, "probe")
	if err == nil && rc != nil {
		rc.httpReq, rc.httpPodIP = req, podIP
	}
	return req, err
}
