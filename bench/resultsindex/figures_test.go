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

func TestCheckFigures(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
// a results link is in it (make verify-figures). Run on demand while the
// pages still quote figures their runs do not state.
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
}
