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

package resultsindex

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/results.md")

const root = "../.."

// TestIndexIsCurrent: docs/results.md is what the results folders and the
// pages that cite them give today.
func TestIndexIsCurrent(t *testing.T) {
	runs, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	ResolvePatchSets(root, runs)
	path := filepath.Join(root, IndexPath)
	committed, _ := os.ReadFile(path)
	known := PatchSetsFrom(string(committed))
	for i, r := range runs {
		if r.PatchSet == "" && r.Commit != "" {
			runs[i].PatchSet = known[filepath.Base(r.Path)]
		}
	}
	got := Render(runs)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != string(committed) {
		t.Errorf("%s is not current: run make results-index and commit it\n%s", IndexPath, firstDiff(string(committed), got))
	}
}

// TestResultsFitTheBudget: every committed run is cited by a page and all of
// them together stay within Budget.
func TestResultsFitTheBudget(t *testing.T) {
	runs, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Problems(runs) {
		t.Error(p)
	}
}

func TestProblems(t *testing.T) {
	cited := []string{"README.md"}
	tests := []struct {
		name string
		runs []Run
		want []string
	}{
		{"cited and small", []Run{{Path: "a", Bytes: Budget / 2, CitedBy: cited}, {Path: "b", Bytes: Budget / 2, CitedBy: cited}}, nil},
		{"uncited", []Run{{Path: "a", Bytes: 1, CitedBy: cited}, {Path: "b", Bytes: 1}}, []string{"b is cited by no page"}},
		{"one byte over", []Run{{Path: "a", Bytes: Budget / 2, CitedBy: cited}, {Path: "b", Bytes: Budget/2 + 1, CitedBy: cited}}, []string{"over the budget"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Problems(tt.runs)
			if len(got) != len(tt.want) {
				t.Fatalf("Problems = %q, want %d problem(s) %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "committed: " + x + "\ngenerated: " + y
		}
	}
	return ""
}

func TestContainsPath(t *testing.T) {
	tests := []struct {
		text, key string
		want      bool
	}{
		{"see [x](../bench/results/run-ab/summary.md)", "results/run-ab", true},
		{"see [x](../bench/results/run-ab-upstream/summary.md)", "results/run-ab", false},
		{"`bench/results/run-ab`", "results/run-ab", true},
		{"bench/results/run-ab", "results/run-ab", true},
		{"bench/results/run-ab-upstream and bench/results/run-ab)", "results/run-ab", true},
		{"nothing", "results/run-ab", false},
	}
	for _, tc := range tests {
		if got := containsPath(tc.text, tc.key); got != tc.want {
			t.Errorf("containsPath(%q, %q) = %v, want %v", tc.text, tc.key, got, tc.want)
		}
	}
}

func TestScanRunReadsEachTool(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bench/results/20261124-190959-default/machine.txt", "date:        2026-11-24T19:09:59Z\nmode:        default (count 5, bench '.')\nnproc:       2\ncpu:         Xeon\ncommit:      67f715d\n")
	write("bench/results/reliability-20261124/runs.txt", "2026-11-24T10:00:00Z make soak: commit aaaaaaa, 2 CPUs\n2026-11-24T19:58:15Z make fuzz-diff: commit 0d8bbb0, 2 CPUs\n")
	write("bench/hollow/results/hollow-20261123-185704/summary.md", "# x\n\nCommand: `make scale-bench`, commit 3f53d3d.\n")
	write("e2e/results/ci-20261123.md", "CI of commit 48048b5\n")
	write("docs/a.md", "[s](../bench/results/20261124-190959-default/machine.txt) and ../e2e/results/ci-20261123.md")
	runs, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]string{ // commit, workload, date
		"bench/results/20261124-190959-default":       {"67f715d", "bench.sh default (count 5, bench '.')", "2026-11-24"},
		"bench/results/reliability-20261124":          {"0d8bbb0", "make reliability (runs.txt)", "2026-11-24"},
		"e2e/results/ci-20261123.md":                  {"48048b5", "", "2026-11-23"},
		"bench/hollow/results/hollow-20261123-185704": {"3f53d3d", "make scale-bench", "2026-11-23"},
	}
	if len(runs) != len(want) {
		t.Fatalf("%d runs, want %d", len(runs), len(want))
	}
	for _, r := range runs {
		w := want[r.Path]
		if r.Commit != w[0] || r.Workload != w[1] || r.Date != w[2] {
			t.Errorf("%s: commit %q workload %q date %q, want %q %q %q", r.Path, r.Commit, r.Workload, r.Date, w[0], w[1], w[2])
		}
		cited := len(r.CitedBy) > 0
		if wantCited := strings.Contains(r.Path, "190959") || strings.Contains(r.Path, "ci-"); cited != wantCited {
			t.Errorf("%s: cited by %v", r.Path, r.CitedBy)
		}
	}
}

// TestSeriesSum: the patch set of HEAD is what hack/lib.sh's pw::series_sum
// gives for the main line's patch files (when patches/ has no uncommitted
// change), and a revision without patches/ is an error.
func TestSeriesSum(t *testing.T) {
	if err := exec.Command("git", "-C", root, "diff", "--quiet", "HEAD", "--", "patches").Run(); err != nil {
		t.Skip("patches/ differs from HEAD")
	}
	got, err := SeriesSum(root, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `dir=$(ls -d patches/v1.* | sort -t. -k2 -n | tail -n1) && find "$dir" -maxdepth 1 -name '*.patch' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12`)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("SeriesSum(HEAD) = %s, the main line's patch files give %s", got, want)
	}
	if _, err := SeriesSum(root, "HEAD:bench"); err == nil {
		t.Error("SeriesSum of a tree without patches/: no error")
	}
}
