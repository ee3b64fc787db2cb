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
	"strings"
)

// A page describes the patch set as it is, so a run it cites must have
// measured the current one: a figure of an older patch set belongs in the
// changelog, with its day. CheckCurrent checks that; CheckFigures checks
// that each figure is in the run it cites.

// NotCitable is the mark hack/lib.sh's pw::dirty_suffix puts in a run's
// record when the tree had uncommitted changes to the code the run measured:
// its figures are of code no commit holds.
const NotCitable = "(not citable)"

// A StaleCitation is a link of a page to a run of another patch set, to one
// that does not say which it measured, or to one made from uncommitted code.
type StaleCitation struct {
	Page        string // relative to the root
	Line        int    // of the block's first line
	Link        string // as written
	PatchSet    string // the run's; "" when it states none
	Uncommitted bool   // the run's record carries NotCitable
}

func (s StaleCitation) String() string {
	if s.Uncommitted {
		return fmt.Sprintf("%s:%d: %s was made from uncommitted code (its record says %s)", s.Page, s.Line, s.Link, NotCitable)
	}
	if s.PatchSet == "" {
		return fmt.Sprintf("%s:%d: %s names no patch set", s.Page, s.Line, s.Link)
	}
	return fmt.Sprintf("%s:%d: %s measured patch set %s", s.Page, s.Line, s.Link, s.PatchSet)
}

// CurrentPatchSets are the sums of the working tree's series, by minor
// directory ("v1.37"), as SeriesSum names a commit's main line. A release
// record names its own minor's; every other run, the main line's.
func CurrentPatchSets(root string) (map[string]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, "patches"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range entries {
		if _, ok := minorDir(e.Name()); !ok {
			continue
		}
		dir := filepath.Join(root, "patches", e.Name())
		files, err := filepath.Glob(filepath.Join(dir, "*.patch"))
		if err != nil {
			return nil, err
		}
		sum, err := seriesSum(files, os.ReadFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		out[e.Name()] = sum
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no patches/v1.<minor> under %s", root)
	}
	return out, nil
}

// CheckCurrent returns every link of the pages (the changelog apart) to a
// run whose patch set is not one of current's values. A run's patch set is
// the index's (runs holds them, as Scan and ResolvePatchSets find them); for
// one the index has none of, such as a folder of records, it is what the
// linked files state, which must be one sum. CI records are not runs of a
// patch set: see isCIRecord.
func CheckCurrent(root string, current map[string]string, runs []Run) ([]StaleCitation, error) {
	isCurrent := map[string]bool{}
	for _, sum := range current {
		isCurrent[sum] = true
	}
	byPath := map[string]Run{}
	for _, r := range runs {
		byPath[r.Path] = r
	}
	cites, err := citingBlocks(root)
	if err != nil {
		return nil, err
	}
	var stale []StaleCitation
	for _, c := range cites {
		for i, t := range c.targets {
			r, ok := byPath[runPath(t)]
			if !ok || isCIRecord(r.Path) {
				continue
			}
			// The linked files themselves, where the run's own record does not
			// say it all: a folder of records states a sum and a mark per file.
			ps, dirty := r.PatchSet, r.NotCitable
			if ps == "" || !dirty {
				text, err := linkedText(root, t)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", c.page, c.blk.line, err)
				}
				if ps == "" {
					var sums []string
					for _, s := range statedSum.FindAllStringSubmatch(text, -1) {
						sums = append(sums, s[1])
					}
					if slices.Sort(sums); len(slices.Compact(sums)) == 1 {
						ps = sums[0]
					}
				}
				dirty = dirty || strings.Contains(text, NotCitable)
			}
			if !isCurrent[ps] || dirty {
				stale = append(stale, StaleCitation{c.page, c.blk.line, c.links[i], ps, dirty})
			}
		}
	}
	return stale, nil
}

// isCIRecord: a CI record (hack/ci-record.sh) times the repository's CI on one
// commit, which must exist before it can be timed; so the commit that adds a
// record, and every one before the next, cites a record of an earlier commit,
// of another patch set whenever pkg/ changed in between. hack/ci-record.sh
// --check holds the pages to the newest record instead.
func isCIRecord(path string) bool {
	dir, name := filepath.Split(path)
	return dir == "e2e/results/" && strings.HasPrefix(name, "ci-") && strings.HasSuffix(name, ".md")
}

// runPath is the run a path below a results folder belongs to: the folder's
// entry it is in ("bench/results/x" for "bench/results/x/raw.txt").
func runPath(p string) string {
	for _, d := range ResultDirs {
		if rest, ok := strings.CutPrefix(p, d+"/"); ok {
			name, _, _ := strings.Cut(rest, "/")
			return d + "/" + name
		}
	}
	return ""
}
