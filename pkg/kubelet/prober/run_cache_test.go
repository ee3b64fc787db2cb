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
	"net/url"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	httpprobe "k8s.io/kubernetes/pkg/probe/http"
)

// TestRunCacheHTTPRequest: the cached request is the one upstream would build
// for the pod's current IP, and a request that cannot be built gives
// upstream's error on every run.
func TestRunCacheHTTPRequest(t *testing.T) {
	get := &v1.HTTPGetAction{Path: "/p", Port: intstr.FromString("http")}
	named := &v1.Container{Ports: []v1.ContainerPort{{Name: "http", ContainerPort: 8080}}}
	for _, tc := range []struct {
		name      string
		container *v1.Container
		ips       []string
		wantURLs  []string
		wantErr   bool
	}{
		{name: "same IP", container: named, ips: []string{"10.0.0.1", "10.0.0.1"},
			wantURLs: []string{"http://10.0.0.1:8080/p", "http://10.0.0.1:8080/p"}},
		{name: "IP changes", container: named, ips: []string{"10.0.0.1", "10.0.0.2", "10.0.0.1"},
			wantURLs: []string{"http://10.0.0.1:8080/p", "http://10.0.0.2:8080/p", "http://10.0.0.1:8080/p"}},
		{name: "unknown named port", container: &v1.Container{}, ips: []string{"10.0.0.1", "10.0.0.1"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cache runCache
			var prev *http.Request
			for i, ip := range tc.ips {
				req, err := cache.httpRequest(get, tc.container, ip)
				_, upstreamErr := httpprobe.NewRequestForHTTPGetAction(get, tc.container, ip, "probe")
				if tc.wantErr {
					if err == nil || err.Error() != upstreamErr.Error() || cache.httpReq != nil {
						t.Errorf("run %d: err %v (upstream %v), cached %v", i, err, upstreamErr, cache.httpReq)
					}
					continue
				}
				if err != nil || req.URL.String() != tc.wantURLs[i] {
					t.Fatalf("run %d: %v, %v; want %s", i, req, err, tc.wantURLs[i])
				}
				if reused := req == prev; reused != (i > 0 && tc.ips[i-1] == ip) {
					t.Errorf("run %d: request reused %v", i, reused)
				}
				prev = req
			}
		})
	}
}

func mustParseURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
