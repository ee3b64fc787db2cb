package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// recorded replays the proxy's answers in testdata/answers; a question it has no
// answer for fails the test, so the tool cannot ask more than the recording shows.
type recorded struct {
	t     *testing.T
	trees map[string]string // version -> module tree, for download
}

func (r recorded) info(version string) (info, error) {
	base := filepath.Join("testdata", "answers", version)
	if out, err := os.ReadFile(base + ".json"); err == nil {
		return parseInfo(out, nil, nil)
	}
	stderr, err := os.ReadFile(base + ".err")
	if err != nil {
		r.t.Fatalf("asked the proxy for %s, which the recording has no answer for", version)
	}
	return parseInfo(nil, stderr, errors.New("exit status 1"))
}

func (r recorded) download(version string) (string, error) {
	dir, ok := r.trees[version]
	if !ok {
		r.t.Fatalf("downloaded %s, which the test has no tree for", version)
	}
	return dir, nil
}

func TestParseInfo(t *testing.T) {
	for _, tc := range []struct {
		name           string
		stdout, stderr string
		runErr         error
		want           string
		wantErr        error
		wantOtherError bool
	}{
		{name: "served", stdout: `{"Path":"k8s.io/kubernetes","Version":"v1.36.5","Time":"2026-09-23T17:07:00Z"}`, want: "v1.36.5"},
		{name: "refused 403", stderr: "go: k8s.io/kubernetes@v1.36.6: reading https://proxy.golang.org/k8s.io/kubernetes/@v/v1.36.6.info: 403 Forbidden\n\tserver response: This module version is not available.", runErr: errors.New("exit status 1"), wantErr: errNotServed},
		{name: "refused 410", stderr: "go: reading .../@v/v9.info: 410 Gone", runErr: errors.New("exit status 1"), wantErr: errNotServed},
		{name: "unknown revision", stderr: "go: k8s.io/kubernetes@v1.99.0: unknown revision v1.99.0", runErr: errors.New("exit status 1"), wantErr: errNotServed},
		{name: "network down is no answer", stderr: "go: dial tcp: lookup proxy.golang.org: no such host", runErr: errors.New("exit status 1"), wantOtherError: true},
		{name: "garbled output", stdout: "{", wantOtherError: true},
		{name: "no version", stdout: "{}", wantOtherError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseInfo([]byte(tc.stdout), []byte(tc.stderr), tc.runErr)
			switch {
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			case tc.wantOtherError:
				if err == nil || errors.Is(err, errNotServed) {
					t.Fatalf("err = %v, want an error other than a refusal", err)
				}
			default:
				if err != nil || got.Version != tc.want {
					t.Fatalf("got %+v, %v; want %s", got, err, tc.want)
				}
			}
		})
	}
}

func TestFindReleases(t *testing.T) {
	p := recorded{t: t}
	for _, tc := range []struct {
		pinned string
		want   []string
	}{
		{"v1.37.2", nil},
		{"v1.36.3", []string{"v1.36.4", "v1.36.5"}},
		// v1.35.7 refused between served releases: the search goes past it.
		{"v1.35.4", []string{"v1.35.5", "v1.35.6", "v1.35.8"}},
		{"v1.36.5", nil},
		{"v1.35.8", nil},
		{"v1.38.0-alpha.0", []string{"v1.38.0-beta.0"}},
		{"v1.38.0-beta.0", nil},
	} {
		got, err := newerPatches(p, tc.pinned)
		if err != nil {
			t.Fatalf("%s: %v", tc.pinned, err)
		}
		if names := versions(got); !reflect.DeepEqual(names, tc.want) {
			t.Errorf("newer than %s: %v, want %v", tc.pinned, names, tc.want)
		}
	}
	got, err := minorReleases(p, "v1.38")
	if err != nil {
		t.Fatal(err)
	}
	// alpha.1 was refused while beta.0 was served: each kind of pre-release is asked for
	// on its own.
	if want := []string{"v1.38.0-alpha.0", "v1.38.0-beta.0"}; !reflect.DeepEqual(versions(got), want) {
		t.Errorf("v1.38: %v, want %v", versions(got), want)
	}
}

func versions(in []info) []string {
	var s []string
	for _, i := range in {
		s = append(s, i.Version)
	}
	return s
}

func TestReport(t *testing.T) {
	a, _ := filepath.Abs("testdata/trees/a")
	b, _ := filepath.Abs("testdata/trees/b")
	p := recorded{t: t, trees: map[string]string{"v1.36.3": a, "v1.36.5": b, "v1.37.2": a, "v1.38.0-beta.0": b}}
	var out bytes.Buffer
	paths := []string{"pkg/kubelet/prober/", "pkg/probe/", "pkg/kubelet/kubelet.go"}
	if err := report(&out, p, []string{"v1.37.2", "v1.36.3"}, "v1.38", paths); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"v1.37: pinned v1.37.2 (2026-10-27), the newest the proxy serves",
		"v1.36: pinned v1.36.3 (2026-07-22); newer: v1.36.4 (2026-08-20), v1.36.5 (2026-09-23)",
		"    v1.36.3 -> v1.36.5, in the paths the series depend on:",
		"      pkg/kubelet/prober/added.go +1 -0",
		"      pkg/kubelet/prober/gone.go +0 -1",
		"      pkg/kubelet/prober/worker.go +2 -0",
		"v1.38 (next minor): v1.38.0-alpha.0 (2026-08-06), v1.38.0-beta.0 (2026-11-06)",
		"    v1.37.2 -> v1.38.0-beta.0, in the paths the series depend on:",
		"      pkg/kubelet/prober/added.go +1 -0",
		"      pkg/kubelet/prober/gone.go +0 -1",
		"      pkg/kubelet/prober/worker.go +2 -0",
		"",
	}, "\n")
	if out.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestParseNumstat(t *testing.T) {
	for _, tc := range []struct {
		out          string
		added, remov int
		bad          bool
	}{
		{"", 0, 0, false},
		{"2\t0\ta => b\n", 2, 0, false},
		{"-\t-\tbin\n", -1, -1, false},
		{"x\t1\tf\n", 0, 0, true},
		{"garbage\n", 0, 0, true},
	} {
		a, r, err := parseNumstat([]byte(tc.out))
		if (err != nil) != tc.bad || a != tc.added || r != tc.remov {
			t.Errorf("parseNumstat(%q) = %d, %d, %v; want %d, %d, error %v", tc.out, a, r, err, tc.added, tc.remov, tc.bad)
		}
	}
}
