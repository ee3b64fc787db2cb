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
	"crypto/tls"
	"net/http"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/kubernetes/pkg/probe"
	httpprobe "k8s.io/kubernetes/pkg/probe/http"
)

// probeWriteBufferSize is the write buffer of an HTTP probe's connection. A
// probe's request is a GET of a few hundred bytes, and every probe dials a new
// connection (no keep-alive), so net/http's default 4 KiB buffer would be a quarter
// of a run's allocations. A request larger than the buffer goes out in more
// than one write, byte for byte the same. The read buffer keeps net/http's
// default: a chunked response's size line must fit in it, so it bounds what a
// probe accepts.
const probeWriteBufferSize = 512

// httpProber is upstream's HTTP prober (httpprobe.New) with its HTTP/1
// transport built here: the same settings plus a smaller write buffer. What it
// does not override (HTTP/2 over cleartext, where the release has it) is
// upstream's.
type httpProber struct {
	httpprobe.Prober
	transport     *http.Transport
	checkRedirect func(*http.Request, []*http.Request) error
}

func newHTTPProber(followNonLocalRedirects bool) httpProber {
	return httpProber{
		Prober: httpprobe.New(followNonLocalRedirects),
		// httpprobe.NewWithTLSConfig's transport, field for field.
		transport: utilnet.SetTransportDefaults(&http.Transport{
			TLSClientConfig:    &tls.Config{InsecureSkipVerify: true},
			DisableKeepAlives:  true,
			Proxy:              http.ProxyURL(nil),
			DisableCompression: true, // removes Accept-Encoding header
			DialContext:        probe.ProbeDialer().DialContext,
			WriteBufferSize:    probeWriteBufferSize,
		}),
		checkRedirect: httpprobe.RedirectChecker(followNonLocalRedirects),
	}
}

// Probe is httpprobe's Probe on this transport.
func (pr httpProber) Probe(req *http.Request, timeout time.Duration) (probe.Result, string, error) {
	return httpprobe.DoHTTPProbe(req, &http.Client{Timeout: timeout, Transport: pr.transport, CheckRedirect: pr.checkRedirect})
}
