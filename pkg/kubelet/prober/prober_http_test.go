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
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/probe"
	httpprobe "k8s.io/kubernetes/pkg/probe/http"
)

// rawTarget is a loopback HTTP target that records every request's bytes as
// they arrive and answers each with respond(path), written as it is.
type rawTarget struct {
	addr    string
	port    int
	mu      sync.Mutex
	reqs    []string
	respond func(path string) string
}

func newRawTarget(t *testing.T, ip string, respond func(path string) string) *rawTarget {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	rt := &rawTarget{addr: l.Addr().String(), port: l.Addr().(*net.TCPAddr).Port, respond: respond}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go rt.serve(c)
		}
	}()
	return rt
}

func (rt *rawTarget) serve(c net.Conn) {
	defer c.Close()
	var req strings.Builder
	r := bufio.NewReader(c)
	for !strings.HasSuffix(req.String(), "\r\n\r\n") {
		line, err := r.ReadString('\n')
		req.WriteString(line)
		if err != nil {
			return
		}
	}
	rt.mu.Lock()
	rt.reqs = append(rt.reqs, req.String())
	rt.mu.Unlock()
	path := strings.Fields(req.String())[1]
	_, _ = c.Write([]byte(rt.respond(path)))
}

func (rt *rawTarget) take() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	reqs := rt.reqs
	rt.reqs = nil
	return reqs
}

func rawResponse(status int, headers, body string) string {
	return fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Length: %d\r\nConnection: close\r\n%s\r\n%s",
		status, http.StatusText(status), len(body), headers, body)
}

// TestHTTPProbeParity: an HTTP probe run through a worker's run cache and
// newHTTPProber gives upstream's result, output and error, and puts the same
// bytes on the wire as upstream's path (a request built on every run and
// httpprobe.New), on its first run and when the cached request is sent again.
func TestHTTPProbeParity(t *testing.T) {
	other := newRawTarget(t, "127.0.0.2", func(string) string { return rawResponse(200, "", "elsewhere") })
	longHeader := strings.Repeat("x", 2000) // beyond the write buffer: the request goes out in pieces
	longChunkLine := "5;" + strings.Repeat("e", 3000)
	respond := func(path string) string {
		switch path {
		case "/ok":
			return rawResponse(200, "", "ok")
		case "/fail":
			return rawResponse(500, "", "boom")
		case "/local-redirect":
			return rawResponse(302, "Location: /ok\r\n", "")
		case "/remote-redirect":
			return rawResponse(302, "Location: http://"+other.addr+"/ok\r\n", "")
		case "/big":
			return rawResponse(200, "", strings.Repeat("b", 20<<10)) // beyond the 10 KiB body limit
		case "/chunk-extension":
			// A 3,000-byte chunk size line: within net/http's 4 KiB read buffer.
			return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
				longChunkLine + "\r\nhello\r\n0\r\n\r\n"
		case "/malformed":
			return "HTTP/1.1 abc\r\n\r\n"
		}
		return rawResponse(404, "", "")
	}
	target := newRawTarget(t, "127.0.0.1", respond)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := closed.Addr().(*net.TCPAddr).Port
	_ = closed.Close()

	for _, tc := range []struct {
		name    string
		path    string
		port    int
		headers []v1.HTTPHeader
	}{
		{name: "success", path: "/ok"},
		{name: "status 500", path: "/fail"},
		{name: "redirect to the same host is followed", path: "/local-redirect"},
		{name: "redirect to another host is not", path: "/remote-redirect"},
		{name: "body over the limit", path: "/big"},
		{name: "chunk size line of 3 KB", path: "/chunk-extension"},
		{name: "malformed response", path: "/malformed"},
		{name: "query string", path: "/ok?a=1&b=%20"},
		{name: "headers", path: "/ok", headers: []v1.HTTPHeader{
			{Name: "Host", Value: "example.com"}, {Name: "User-Agent", Value: "mine"}, {Name: "Accept", Value: ""},
			{Name: "X-Long", Value: longHeader}, {Name: "X-Twice", Value: "1"}, {Name: "X-Twice", Value: "2"},
		}},
		{name: "connection refused", path: "/ok", port: closedPort},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := target.port
			if tc.port != 0 {
				port = tc.port
			}
			p := &v1.Probe{TimeoutSeconds: 1, ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{
				Path: tc.path, Port: intstr.FromInt32(int32(port)), HTTPHeaders: tc.headers}}}
			container := &v1.Container{Name: "c"}
			status := v1.PodStatus{PodIP: "127.0.0.1"}

			req, err := httpprobe.NewRequestForHTTPGetAction(p.HTTPGet, container, status.PodIP, "probe")
			if err != nil {
				t.Fatal(err)
			}
			wantRes, wantOut, wantErr := httpprobe.New(false).Probe(req, time.Second)
			wantReqs := target.take()
			other.take()

			pb := newProber(nil, nil)
			cache := &runCache{}
			for run := 1; run <= 2; run++ {
				res, out, err := pb.runProbe(context.Background(), readiness, p, &v1.Pod{}, status, container, kubecontainer.ContainerID{}, cache)
				if res != wantRes || out != wantOut || fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("run %d: got (%v, %q, %v), upstream (%v, %q, %v)", run, res, out, err, wantRes, wantOut, wantErr)
				}
				if got := target.take(); strings.Join(got, "|") != strings.Join(wantReqs, "|") {
					t.Errorf("run %d sent %q, upstream %q", run, got, wantReqs)
				}
				if got := other.take(); len(got) != 0 {
					t.Errorf("run %d followed a redirect to another host: %q", run, got)
				}
			}
		})
	}
}

// TestHTTPProbeTimeoutParity: a target that answers after the timeout fails
// the probe with upstream's output.
func TestHTTPProbeTimeoutParity(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	slow := newRawTarget(t, "127.0.0.1", func(string) string { <-release; return rawResponse(200, "", "late") })
	req, err := httpprobe.NewProbeRequest(mustParseURL(t, "http://"+slow.addr+"/"), nil)
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 50 * time.Millisecond
	wantRes, wantOut, wantErr := httpprobe.New(false).Probe(req, timeout)
	res, out, err := newHTTPProber(false).Probe(req, timeout)
	if wantRes != probe.Failure || res != wantRes || out != wantOut || fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Errorf("got (%v, %q, %v), upstream (%v, %q, %v)", res, out, err, wantRes, wantOut, wantErr)
	}
}
