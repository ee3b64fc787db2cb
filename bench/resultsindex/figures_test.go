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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFigures(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"CPU 0.38× of upstream's, 2,969 fewer goroutines", []string{"0.38", "2,969"}},
		{"p99 1.0–3.7 ms at 1,000 pods @10 s", []string{"1.0", "3.7", "1,000", "10"}},
		// Names, code, links, dates, hashes, versions and issue numbers are not figures.
		{"p99 k8s v1.37.2 1.36.3 kubernetes#103717 `COUNT=5 make bench` on 2026-11-25, e6a6f8683197", nil},
		{"[run 20261125](../bench/results/20261125-x/summary.md) says 42", []string{"42"}},
		{"run 20261124-045444-default and bench/results/x-7/raw.txt hold 3.0", []string{"3.0"}},
	}
	for _, tc := range tests {
		if got := Figures(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Figures(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// writer returns a function that writes a file below root, making its folders.
func writer(t *testing.T, root string) func(p, s string) {
	return func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckFigures(t *testing.T) {
	root := t.TempDir()
	write := writer(t, root)
	write("bench/results/r1/summary.md", "| goroutines | 5,128 | 2158 | 0.42x |\n")
	write("bench/results/r1/raw.txt", "p99 3.49 ms\n")
	write("docs/page.md", `# Page 7

Goroutines 5,128 → 2,158 (0.42×; [summary](../bench/results/r1/summary.md)).

| figure | value | run |
|---|---|---|
| p99 | 3.49 ms | [raw](../bench/results/r1/raw.txt) |
| p99 | 3.5 ms | [raw](../bench/results/r1/raw.txt) |

- A ratio worked out, 0.41, beside [the run](../bench/results/r1).
- 17 with no result link beside it is not checked.

`+"```"+`
99.9 in a code block: [x](../bench/results/r1/summary.md)
`+"```"+`
`)
	got, err := CheckFigures(root)
	if err != nil {
		t.Fatal(err)
	}
	var figs []string
	for _, p := range got {
		figs = append(figs, p.Figure)
		if p.Page != "docs/page.md" {
			t.Errorf("problem on %s", p.Page)
		}
	}
	// 3.5 is not how raw.txt writes 3.49; 0.41 is in no linked file.
	if want := []string{"3.5", "0.41"}; !slices.Equal(figs, want) {
		t.Errorf("problems %v (%v), want figures %v", figs, got, want)
	}
	if len(got) == 2 && (got[0].Line != 8 || got[1].Line != 10) {
		t.Errorf("lines %d, %d; want 8, 10", got[0].Line, got[1].Line)
	}
}

// TestPagesQuoteTheirResults: every figure README.md and docs/ quote beside
// a results link is in it, and the run measured the current patch set (make
// verify-figures, which make verify-docs runs). The package's other tests
// skip it, so that make test runs it once, with the doc checks.
func TestPagesQuoteTheirResults(t *testing.T) {
	if os.Getenv("PROBEWHEEL_CHECK_FIGURES") == "" {
		t.Skip("PROBEWHEEL_CHECK_FIGURES is not set (make verify-figures sets it)")
	}
	got, err := CheckFigures(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		t.Error(p)
	}
	runs, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	ResolvePatchSets(root, runs)
	current, err := CurrentPatchSets(root)
	if err != nil {
		t.Fatal(err)
	}
	stale, err := CheckCurrent(root, current, runs)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stale {
		t.Error(s)
	}
}

func TestCheckCurrent(t *testing.T) {
	root := t.TempDir()
	write := writer(t, root)
	write("patches/v1.37/0001-a.patch", "main line\n")
	write("patches/v1.36/0001-a.patch", "older minor\n")
	current, err := CurrentPatchSets(root)
	if err != nil {
		t.Fatal(err)
	}
	main, older := current["v1.37"], current["v1.36"]
	if len(current) != 2 || len(main) != 12 || main == older {
		t.Fatalf("CurrentPatchSets = %v", current)
	}
	write("bench/results/new/run.txt", "patch set "+main+"\n")
	write("bench/results/old/run.txt", "patch set 0123456789ab\n")
	write("bench/results/dirty/machine.txt", "measured:    commit 1234567 + uncommitted changes in pkg bench (not citable), patch set "+main+"\n")
	write("bench/results/dirty/summary.md", "42 us\n")
	write("bench/hollow/results/unnamed/summary.md", "no sum here\n")
	write("e2e/results/releases/v1.37.2.txt", "series: patches/v1.37, 1 patches, sha256 "+main+"\n")
	write("e2e/results/releases/v1.36.3.txt", "series: patches/v1.36, 1 patches, sha256 "+older+"\n")
	write("e2e/results/ci-20260101.md", "commit: 1234567\nseries: patches/v1.37, 1 patches, sha256 0123456789ab\n")
	write("docs/page.md", `# Page

Current: [run](../bench/results/new/run.txt), [records](../e2e/results/releases/v1.36.3.txt).

CI's time, of an earlier commit: [record](../e2e/results/ci-20260101.md).

Older: [run](../bench/results/old/) and [one](../bench/hollow/results/unnamed/summary.md#x).

The folder: [records](../e2e/results/releases/), two minors, two sums.

Of the current patch set but uncommitted code: [summary](../bench/results/dirty/summary.md).
`)
	write("CHANGELOG.md", "[old](bench/results/old/run.txt) is history\n")
	runs, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := CheckCurrent(root, current, runs)
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, s := range got {
		links = append(links, fmt.Sprint(s.Link, " ", s.PatchSet, " ", s.Uncommitted))
	}
	want := []string{
		"../bench/results/old/ 0123456789ab false",
		"../bench/hollow/results/unnamed/summary.md#x  false",
		"../e2e/results/releases/  false",
		"../bench/results/dirty/summary.md " + main + " true",
	}
	if !slices.Equal(links, want) {
		t.Errorf("stale citations %q, want %q", links, want)
	}
}
