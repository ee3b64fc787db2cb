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

// Package resultsindex generates docs/results.md, the index of the committed
// measurement runs: for each run under a level's results folder, its
// date, the commit it measured and the patch set it measured (the series sum
// release records and run.txt name: the first 12 hex digits of the sha256 of
// the main line's patch files, so runs of one patch set group together
// whatever else changed),
// the machine, the workload, its size, and the pages that cite it. Nothing in
// the index is written by hand: TestIndexIsCurrent fails when a run, a
// citation or a size changes and the index was not regenerated
// (make results-index).
//
// The runs were written by several tools over time, so each field is read
// from the first file that states it: machine.txt (bench.sh), run.txt and
// scale.env (the hollow-node and density drivers), runs.txt (make
// reliability), then summary.md, README.md and notes.md, where a run's
// command and commit are stated in prose.
package resultsindex

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ResultDirs are the folders, relative to the repository root, whose entries
// are runs: one per level (in-process, hollow nodes, clusters).
var ResultDirs = []string{"bench/results", "bench/hollow/results", "e2e/results"}

// Pages are the texts whose links count as citations, relative to the root.
var Pages = []string{"README.md", "docs/*.md", "e2e/README.md", "CHANGELOG.md"}

// IndexPath is where the index is written, relative to the root.
const IndexPath = "docs/results.md"

// Budget bounds the bytes of every run in git together, so that a clone stays
// small: a run keeps what a page cites (summaries, benchstat output, raw
// benchmark lines, plots); dumps, profiles, traces and logs stay in _output/
// and the run's command makes them again.
const Budget = 5_000_000

// Problems are what make the committed results unfit to keep: a run no page
// cites (git history keeps it; cite it or remove it) and a total over Budget.
func Problems(runs []Run) []string {
	var out []string
	total, uncited := totals(runs)
	for _, path := range uncited {
		out = append(out, fmt.Sprintf("%s is cited by no page: cite it or remove it (git history keeps it)", path))
	}
	if total > Budget {
		out = append(out, fmt.Sprintf("the results in git are %d bytes, over the budget of %d: keep what a page cites, move the rest to _output/", total, Budget))
	}
	return out
}

// totals are the bytes of all runs and the paths of those no page cites.
func totals(runs []Run) (bytes int64, uncited []string) {
	for _, r := range runs {
		bytes += r.Bytes
		if len(r.CitedBy) == 0 {
			uncited = append(uncited, r.Path)
		}
	}
	return bytes, uncited
}

// Run is one entry of a results folder: a run's directory or a single file.
type Run struct {
	Path     string // relative to the root
	Date     string // YYYY-MM-DD, from the name
	Commit   string // short hash, "" if no file states it
	PatchSet string // series sum (SeriesSum), as the run states it or at Commit; "" if unknown
	Machine  string
	Workload string
	Bytes    int64
	// NotCitable: the run's record (its metaFiles) carries the mark of
	// uncommitted code (NotCitable), so no page may cite it.
	NotCitable bool
	CitedBy    []string // pages, relative to the root; the index itself excluded
}

// metaFiles are the files of a run read for its fields, in the order a field
// is taken from: the first that states it wins.
var metaFiles = []string{"machine.txt", "run.txt", "scale.env", "runs.txt", "summary.md", "README.md", "notes.md"}

var (
	nameDate  = regexp.MustCompile(`^(?:[a-z-]+-)?(20\d\d)(\d\d)(\d\d)`)
	commitRe  = regexp.MustCompile(`(?i)\bcommit(?:s)?[:=\s]+\x60?([0-9a-f]{7,40})\b`)
	keyValue  = regexp.MustCompile(`(?m)^([a-z]+):\s+(.+)$`)
	commandRe = regexp.MustCompile("(?m)^(?:Command|command|Ran|Run):?\\s*`([^`]+)`")
	// statedSum is a patch set as runs state it: "sha256 70453a4bf681" (release
	// records, run.txt) or "patch set 70453a4bf681" (runs.txt).
	statedSum = regexp.MustCompile(`\b(?:sha256|patch set) ([0-9a-f]{12})\b`)
)

// Scan reads every run under root's result folders, in path order: in a git
// checkout the files git tracks (a run in progress, or one not added yet, is
// not in the index), elsewhere every file.
func Scan(root string) ([]Run, error) {
	var runs []Run
	for _, dir := range ResultDirs {
		files, err := runFiles(root, dir)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(files))
		for name := range files {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if name == "README.md" || strings.HasPrefix(name, ".") {
				continue
			}
			r, err := scanRun(root, filepath.Join(dir, name), files[name])
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
		}
	}
	cites, err := citations(root, runs)
	if err != nil {
		return nil, err
	}
	for i := range runs {
		runs[i].CitedBy = cites[runs[i].Path]
	}
	return runs, nil
}

// runFiles maps each entry of a results folder to its files, relative to
// the entry ("" for an entry that is a file itself).
func runFiles(root, dir string) (map[string][]string, error) {
	var paths []string
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", dir).Output()
	if err == nil {
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				paths = append(paths, p)
			}
		}
	} else {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, p)
			paths = append(paths, filepath.ToSlash(rel))
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	files := map[string][]string{}
	for _, p := range paths {
		rest := strings.TrimPrefix(p, dir+"/")
		name, below, _ := strings.Cut(rest, "/")
		files[name] = append(files[name], below)
	}
	return files, nil
}

func scanRun(root, rel string, files []string) (Run, error) {
	r := Run{Path: rel}
	if m := nameDate.FindStringSubmatch(filepath.Base(rel)); m != nil {
		r.Date = m[1] + "-" + m[2] + "-" + m[3]
	}
	texts := map[string]string{}
	for _, f := range files {
		p := filepath.Join(root, rel, f)
		info, err := os.Stat(p)
		if err != nil {
			return r, err
		}
		r.Bytes += info.Size()
		name := f
		if f == "" {
			name = "summary.md" // a run that is one file
		} else if strings.Contains(f, "/") || !slices.Contains(metaFiles, f) {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return r, err
		}
		texts[name] = string(b)
	}
	kv := func(name, key string) string {
		for _, m := range keyValue.FindAllStringSubmatch(texts[name], -1) {
			if m[1] == key {
				return strings.TrimSpace(m[2])
			}
		}
		return ""
	}
	for _, name := range metaFiles {
		t := texts[name]
		if r.Commit == "" {
			// runs.txt appends a line per run: the last one is what the
			// files hold.
			ms := commitRe.FindAllStringSubmatch(t, -1)
			if len(ms) > 0 {
				m := ms[0]
				if name == "runs.txt" {
					m = ms[len(ms)-1]
				}
				r.Commit = m[1][:min(7, len(m[1]))]
			}
		}
		if r.PatchSet == "" {
			ms := statedSum.FindAllStringSubmatch(t, -1)
			if len(ms) > 0 {
				m := ms[0]
				if name == "runs.txt" {
					m = ms[len(ms)-1]
				}
				r.PatchSet = m[1]
			}
		}
		if r.Workload == "" {
			if name == "machine.txt" && kv(name, "mode") != "" {
				r.Workload = "bench.sh " + kv(name, "mode")
			} else if m := commandRe.FindStringSubmatch(t); m != nil {
				r.Workload = m[1]
			}
		}
	}
	if cpu := kv("machine.txt", "cpu"); cpu != "" {
		r.Machine = fmt.Sprintf("%s × %s", kv("machine.txt", "nproc"), cpu)
	}
	for _, t := range texts {
		r.NotCitable = r.NotCitable || strings.Contains(t, NotCitable)
	}
	if r.Workload == "" && texts["runs.txt"] != "" {
		r.Workload = "make reliability (runs.txt)"
	}
	return r, nil
}

// citations maps each run's path to the pages that link to it, or to a file
// below it.
func citations(root string, runs []Run) (map[string][]string, error) {
	pages, err := pagePaths(root)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, rel := range pages {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return nil, err
		}
		text := string(b)
		for _, r := range runs {
			// Links are relative to the page: match on the run's path from
			// its results folder on ("results/<name>"), which every form has.
			key := "results/" + filepath.Base(r.Path)
			if containsPath(text, key) {
				out[r.Path] = append(out[r.Path], rel)
			}
		}
	}
	return out, nil
}

// pagePaths are the pages (Pages, the index itself left out), relative to
// root.
func pagePaths(root string) ([]string, error) {
	var out []string
	for _, g := range Pages {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			return nil, err
		}
		for _, p := range m {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return nil, err
			}
			if rel != IndexPath {
				out = append(out, rel)
			}
		}
	}
	return out, nil
}

// containsPath reports whether text names key as a whole path segment: a run
// named "x-ab" is not cited by a link to "x-ab-upstream".
func containsPath(text, key string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], key)
		if j < 0 {
			return false
		}
		end := i + j + len(key)
		if end == len(text) || strings.ContainsRune("/)#` \n\"'", rune(text[end])) {
			return true
		}
		i = end
	}
}

// ResolvePatchSets fills in the patch set of each run that does not state
// one: the series sum at the run's commit. Runs whose commit git does not
// know keep "".
func ResolvePatchSets(root string, runs []Run) {
	cache := map[string]string{}
	for i := range runs {
		c := runs[i].Commit
		if c == "" || runs[i].PatchSet != "" {
			continue
		}
		ps, ok := cache[c]
		if !ok {
			ps, _ = SeriesSum(root, c)
			cache[c] = ps
		}
		runs[i].PatchSet = ps
	}
}

// SeriesSum is the patch set at git revision rev, as hack/lib.sh's
// pw::series_sum names it: the first 12 hex digits of the sha256 of the main
// line's patch files in name order. The main line is the newest
// patches/v1.<minor>/; a tree from before the series had minors holds its
// patches in patches/ itself.
func SeriesSum(root, rev string) (string, error) {
	git := func(args ...string) ([]byte, error) {
		return exec.Command("git", append([]string{"-C", root}, args...)...).Output()
	}
	out, err := git("ls-tree", "--name-only", rev+":patches")
	if err != nil {
		return "", fmt.Errorf("%s has no patches/: %w", rev, err)
	}
	dir, best := "patches", -1
	var flat []string
	for _, name := range strings.Fields(string(out)) {
		if minor, ok := minorDir(name); ok {
			if minor > best {
				dir, best = "patches/"+name, minor
			}
		} else if strings.HasSuffix(name, ".patch") {
			flat = append(flat, name)
		}
	}
	files := flat
	if best >= 0 {
		out, err := git("ls-tree", "--name-only", rev+":"+dir)
		if err != nil {
			return "", err
		}
		files = nil
		for _, name := range strings.Fields(string(out)) {
			if strings.HasSuffix(name, ".patch") {
				files = append(files, name)
			}
		}
	}
	sum, err := seriesSum(files, func(name string) ([]byte, error) {
		return git("cat-file", "blob", rev+":"+dir+"/"+name)
	})
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", rev, dir, err)
	}
	return sum, nil
}

// minorDir reports whether name is a minor's series folder, "v1.<minor>", and
// which minor.
func minorDir(name string) (int, bool) {
	var minor int
	n, _ := fmt.Sscanf(name, "v1.%d", &minor)
	return minor, n == 1 && name == fmt.Sprintf("v1.%d", minor)
}

// seriesSum is a series' patch set, as hack/lib.sh's pw::series_sum names it:
// the first 12 hex digits of the sha256 of its patch files in name order,
// read by read.
func seriesSum(files []string, read func(string) ([]byte, error)) (string, error) {
	if len(files) == 0 {
		return "", fmt.Errorf("no patches")
	}
	files = slices.Sorted(slices.Values(files))
	h := sha256.New()
	for _, f := range files {
		b, err := read(f)
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// Render writes the index page.
func Render(runs []Run) string {
	var b strings.Builder
	b.WriteString("# Results index\n\n")
	b.WriteString("Generated by `make results-index` from each level's results: `bench/results/` (in-process),\n")
	b.WriteString("`bench/hollow/results/` (hollow nodes) and `e2e/results/` (clusters); `make test` fails when\n")
	b.WriteString("it is not current. One row per committed run: the commit it measured, the patch set it\n")
	b.WriteString("measured (the series sum that release records and `run.txt` name: the first 12 hex digits of\n")
	b.WriteString("the sha256 of the main line's patch files; `make patch-set` prints the current one), the\n")
	b.WriteString("machine, the workload, its size, and the pages that cite it.\n\n")
	total, uncited := totals(runs)
	fmt.Fprintf(&b, "%d runs, %s in all (budget: %s, checked by `make test`), %d cited by no page (**uncited**).\n\n",
		len(runs), size(total), size(Budget), len(uncited))
	b.WriteString("| run | date | commit | patch set | machine | workload | size | cited by |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		cited := "**uncited**"
		if len(r.CitedBy) > 0 {
			var links []string
			for _, p := range r.CitedBy {
				links = append(links, fmt.Sprintf("[%s](%s)", p, relLink(p)))
			}
			cited = strings.Join(links, ", ")
		}
		fmt.Fprintf(&b, "| [%s](%s) | %s | %s | %s | %s | %s | %s | %s |\n",
			filepath.Base(r.Path), relLink(r.Path), orDash(r.Date), orDash(r.Commit), orDash(r.PatchSet),
			cell(r.Machine), cell(r.Workload), size(r.Bytes), cited)
	}
	return b.String()
}

// committedRow matches a row of a rendered index: the run's name and its patch set.
var committedRow = regexp.MustCompile(`(?m)^\| \[([^\]]+)\]\([^)]*\) \| [^|]* \| [^|]* \| ([^|]*?) \|`)

// PatchSetsFrom reads the patch set of each run from a rendered index, for
// runs whose commit the local git cannot resolve (a shallow clone).
func PatchSetsFrom(index string) map[string]string {
	out := map[string]string{}
	for _, m := range committedRow.FindAllStringSubmatch(index, -1) {
		if m[2] != "—" {
			out[m[1]] = m[2]
		}
	}
	return out
}

// relLink is a path relative to the repository root as seen from IndexPath.
func relLink(p string) string {
	rel, err := filepath.Rel(filepath.Dir(IndexPath), p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	if len(s) > 90 {
		s = s[:87] + "…"
	}
	return orDash(s)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", (n+512)>>10)
	}
	return fmt.Sprintf("%d B", n)
}
