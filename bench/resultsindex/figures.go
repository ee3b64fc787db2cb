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
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A figure a page quotes beside a link to a run must be in what it links to:
// that is what makes the figure checkable, and what CheckFigures checks.
//
// "Beside" is the same table row, list item or paragraph. A figure is a
// number in its prose: digits with thousands commas and a decimal part
// ("2,969", "0.38", "1.0"), compared without the commas with the numbers of
// the linked files (a linked folder: its text files), as written: 1.0 is
// not 1.00. Not figures: numbers inside code spans (commands, flags), inside
// a link's text or target, paths and run names written out, dates, hex
// hashes, versions and issue numbers. So "probewheel 0.38× of upstream's CPU
// ([summary](../bench/results/x/summary.md))" passes only if 0.38 occurs in
// summary.md, and a figure worked out from the results (a ratio of two
// medians, a percentage) fails until the results state it too.

// A FigureProblem is a figure its page quotes beside result links that none
// of them contains.
type FigureProblem struct {
	Page   string // relative to the root
	Line   int    // of the block's first line
	Figure string
	Links  []string // the result links beside it, as written
}

func (p FigureProblem) String() string {
	return fmt.Sprintf("%s:%d: %s is in none of %s", p.Page, p.Line, p.Figure, strings.Join(p.Links, ", "))
}

var (
	mdLink     = regexp.MustCompile(`!?\[((?:[^\]\\]|\\.)*)\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	dateRe     = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	hexRe      = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	numberRe   = regexp.MustCompile(`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`)
	fileNumber = regexp.MustCompile(`\d+(?:\.\d+)?`)
	orderedRe  = regexp.MustCompile(`^\d+\. `)
	// Not figures: versions ("v1.37.2", "1.37.2"), issue and PR numbers
	// ("kubernetes#103717", "#42").
	versionRe = regexp.MustCompile(`\bv?\d+\.\d+\.\d+\b|\bv\d+(?:\.\d+)?\b|#\d+`)
	// Nor paths and run names written out: "bench/results/x-1", "20261124-045444".
	pathRe = regexp.MustCompile(`\S*/\S*|\b\d{8}-\d{6}\b`)
)

// A block is a unit a figure is "beside" in: a table row, a list item or a
// paragraph, with its first line's number.
type block struct {
	line int
	text string
}

// blocks splits a markdown page into its blocks; code blocks are left out.
func blocks(text string) (out []block) {
	var cur []string
	start, fenced := 0, false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, block{start, strings.Join(cur, "\n")})
		}
		cur = nil
	}
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```"):
			flush()
			fenced = !fenced
			continue
		case fenced:
			continue
		case t == "" || strings.HasPrefix(t, "#"):
			flush()
			continue
		case strings.HasPrefix(t, "|") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || orderedRe.MatchString(t):
			flush()
		}
		if len(cur) == 0 {
			start = i + 1
		}
		cur = append(cur, l)
		if strings.HasPrefix(t, "|") {
			flush()
		}
	}
	flush()
	return out
}

// resultLink resolves a link of a page to a path under a results folder,
// relative to the root; ok is false for any other link.
func resultLink(page, target string) (string, bool) {
	target, _, _ = strings.Cut(target, "#")
	if target == "" || strings.Contains(target, "://") {
		return "", false
	}
	p := filepath.Clean(filepath.Join(filepath.Dir(page), target))
	for _, d := range ResultDirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return p, p != d
		}
	}
	return "", false
}

// linkedText is the text of a linked result: a file, or every text file
// below a folder, with thousands commas removed.
func linkedText(root, rel string) (string, error) {
	p := filepath.Join(root, rel)
	var b strings.Builder
	err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".png", ".pprof", ".gz", ".trace":
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b.Write(data)
		b.WriteByte('\n')
		return nil
	})
	return strings.ReplaceAll(b.String(), ",", ""), err
}

// A citingBlock is a block of a page with the links in it that point into a
// results folder: as written, and resolved relative to the root.
type citingBlock struct {
	page    string
	blk     block
	links   []string
	targets []string
}

// citingBlocks are the blocks of every page (Pages without the index and the
// changelog, whose figures and runs are those of their day) that link to
// results.
func citingBlocks(root string) ([]citingBlock, error) {
	pages, err := pagePaths(root)
	if err != nil {
		return nil, err
	}
	var out []citingBlock
	for _, rel := range pages {
		if rel == "CHANGELOG.md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return nil, err
		}
		for _, blk := range blocks(string(b)) {
			c := citingBlock{page: rel, blk: blk}
			for _, m := range mdLink.FindAllStringSubmatch(blk.text, -1) {
				if t, ok := resultLink(rel, m[2]); ok {
					c.links, c.targets = append(c.links, m[2]), append(c.targets, t)
				}
			}
			if len(c.targets) > 0 {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// CheckFigures returns the figures of the pages that are in none of the
// results linked beside them.
func CheckFigures(root string) ([]FigureProblem, error) {
	cites, err := citingBlocks(root)
	if err != nil {
		return nil, err
	}
	numbersOf := map[string]map[string]bool{} // linked path -> the numbers it holds
	var problems []FigureProblem
	for _, c := range cites {
		have := map[string]bool{}
		for _, t := range c.targets {
			if numbersOf[t] == nil {
				text, err := linkedText(root, t)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", c.page, c.blk.line, err)
				}
				numbersOf[t] = map[string]bool{}
				for _, n := range fileNumber.FindAllString(text, -1) {
					numbersOf[t][n] = true
				}
			}
			for n := range numbersOf[t] {
				have[n] = true
			}
		}
		for _, f := range Figures(c.blk.text) {
			if !have[strings.ReplaceAll(f, ",", "")] {
				problems = append(problems, FigureProblem{c.page, c.blk.line, f, slices.Compact(c.links)})
			}
		}
	}
	return problems, nil
}

// Figures are the numbers of a block's prose, as written.
func Figures(text string) []string {
	text = mdLink.ReplaceAllString(text, " ")
	text = codeSpan.ReplaceAllString(text, " ")
	text = dateRe.ReplaceAllString(text, " ")
	text = versionRe.ReplaceAllString(text, " ")
	text = pathRe.ReplaceAllString(text, " ")
	text = hexRe.ReplaceAllStringFunc(text, func(h string) string {
		if strings.ContainsAny(h, "abcdef") {
			return " "
		}
		return h
	})
	var out []string
	for _, loc := range numberRe.FindAllStringIndex(text, -1) {
		// A number glued to letters is a name, not a figure: "p99", "v1",
		// "k8s", "x2" (but "0.38x" and "12ms" are figures).
		if loc[0] > 0 && isLetter(text[loc[0]-1]) {
			continue
		}
		out = append(out, text[loc[0]:loc[1]])
	}
	return out
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
