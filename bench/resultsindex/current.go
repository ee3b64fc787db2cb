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
	"crypto/sha256"
	"encoding/hex"
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

// A StaleCitation is a link of a page to a run of another patch set, or to
// one that does not say which it measured.
type StaleCitation struct {
	Page     string // relative to the root
	Line     int    // of the block's first line
	Link     string // as written
	PatchSet string // the run's; "" when it states none
}

func (s StaleCitation) String() string {
	if s.PatchSet == "" {
		return fmt.Sprintf("%s:%d: %s names no patch set", s.Page, s.Line, s.Link)
	}
	return fmt.Sprintf("%s:%d: %s measured patch set %s", s.Page, s.Line, s.Link, s.PatchSet)
}

// CurrentPatchSets are the sums of the working tree's series, by minor
// directory ("v1.37"), as SeriesSum names a commit's main line: the first 12
// hex digits of the sha256 of its patch files in name order. A release
// record names its own minor's; every other run, the main line's.
func CurrentPatchSets(root string) (map[string]string, error) {
	dirs, err := filepath.Glob(filepath.Join(root, "patches", "v1.*"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.patch"))
		if err != nil || len(files) == 0 {
			return nil, fmt.Errorf("%s: no patches (%v)", dir, err)
		}
		slices.Sort(files)
		h := sha256.New()
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			h.Write(b)
		}
		out[filepath.Base(dir)] = hex.EncodeToString(h.Sum(nil))[:12]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no patches/v1.<minor> under %s", root)
	}
	return out, nil
}

// CheckCurrent returns every link of the pages (the changelog and the index
// apart) to a run whose patch set is not one of current's values. A run's patch set is the
// index's (runs holds them, as Scan and ResolvePatchSets find them); for one
// the index has none of, such as a folder of records, it is what the linked
// files state, which must be one sum.
func CheckCurrent(root string, current map[string]string, runs []Run) ([]StaleCitation, error) {
	isCurrent := map[string]bool{}
	for _, sum := range current {
		isCurrent[sum] = true
	}
	byPath := map[string]Run{}
	for _, r := range runs {
		byPath[r.Path] = r
	}
	runOf := func(p string) (Run, bool) {
		for _, d := range ResultDirs {
			if rest, ok := strings.CutPrefix(p, d+"/"); ok {
				name, _, _ := strings.Cut(rest, "/")
				r, ok := byPath[d+"/"+name]
				return r, ok
			}
		}
		return Run{}, false
	}
	pages, err := pagePaths(root)
	if err != nil {
		return nil, err
	}
	var stale []StaleCitation
	for _, rel := range pages {
		if rel == "CHANGELOG.md" || rel == IndexPath {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return nil, err
		}
		for _, blk := range blocks(string(b)) {
			for _, m := range mdLink.FindAllStringSubmatch(blk.text, -1) {
				target := m[2]
				t, _ := strings.CutSuffix(target, "/")
				p := filepath.Clean(filepath.Join(filepath.Dir(rel), strings.SplitN(t, "#", 2)[0]))
				r, ok := runOf(p)
				if !ok {
					continue
				}
				ps := r.PatchSet
				if ps == "" {
					text, err := linkedText(root, p)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: %w", rel, blk.line, err)
					}
					var sums []string
					for _, s := range statedSum.FindAllStringSubmatch(text, -1) {
						sums = append(sums, s[1])
					}
					if slices.Sort(sums); len(slices.Compact(sums)) == 1 {
						ps = sums[0]
					}
				}
				if !isCurrent[ps] {
					stale = append(stale, StaleCitation{rel, blk.line, target, ps})
				}
			}
		}
	}
	return stale, nil
}
