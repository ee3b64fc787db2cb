// Command upstreamreleases asks the Go module proxy which k8s.io/kubernetes releases it
// serves beyond the ones the series are pinned to, and what changed in the files that
// matter to the series (hack/upstream-releases.sh, make upstream-releases):
//
//	upstreamreleases -next v1.38 -paths paths.txt v1.37.2 v1.36.5 v1.35.8
//
// For each pinned release it prints the newer patch releases of its minor the proxy
// serves, and for the newest of them which of the listed paths (files, or directories
// ending in /) differ from the pinned release's, with lines added and removed; for the
// next minor (-next) its pre-releases and releases, compared with the first pinned
// release (the main line's). So moving a series is a reviewed decision, not a guess.
//
// The proxy's version list (go list -m -versions) is incomplete: it left out v1.36.5
// while serving it. So releases are found by asking for each one in turn, patch
// number after patch number (pre-releases alpha.N, beta.N, rc.N, then .0, .1, ...),
// until the proxy has refused three in a row (it refuses some between served ones:
// v1.35.7, not v1.35.8). Any other error fails the run, since "nothing newer" must
// not be said of a proxy that did not answer.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

const module = "k8s.io/kubernetes"

// errNotServed is the proxy's refusal of a version: it does not have it (yet).
var errNotServed = errors.New("not served by the module proxy")

// info is what the proxy says of one version (go list -m -json).
type info struct {
	Version string
	Time    time.Time
	Dir     string // set only once downloaded
}

// proxy answers for one version; the real one runs the go command, the test's replays
// recorded answers.
type proxy interface {
	info(version string) (info, error)
	download(version string) (dir string, err error)
}

// parseInfo reads the go command's answer for one version: its JSON on success, and on
// failure its error text, where the proxy's refusal (HTTP 403/404/410 "not available",
// "unknown revision", "invalid version") is errNotServed and anything else an error.
func parseInfo(stdout, stderr []byte, runErr error) (info, error) {
	if runErr == nil {
		var in info
		if err := json.Unmarshal(stdout, &in); err != nil {
			return info{}, fmt.Errorf("parsing go list -m -json: %w", err)
		}
		if in.Version == "" {
			return info{}, fmt.Errorf("go list -m -json gave no version: %s", stdout)
		}
		return in, nil
	}
	msg := string(stderr)
	for _, refusal := range []string{"403 Forbidden", "404 Not Found", "410 Gone", "not available", "unknown revision", "invalid version"} {
		if strings.Contains(msg, refusal) {
			return info{}, errNotServed
		}
	}
	return info{}, fmt.Errorf("go list -m -json: %v: %s", runErr, strings.TrimSpace(msg))
}

// goProxy runs the go command outside any module, so nothing here touches a go.mod.
type goProxy struct{}

func (goProxy) run(args ...string) ([]byte, []byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = os.TempDir()
	// GOTOOLCHAIN=auto: a release whose go.mod needs a newer Go than the host's (1.38's
	// go 1.27.0) is downloaded with that Go, fetched through the module proxy.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=auto", "GOWORK=off")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}

func (p goProxy) info(version string) (info, error) {
	return parseInfo(p.run("list", "-m", "-json", module+"@"+version))
}

func (p goProxy) download(version string) (string, error) {
	in, err := parseInfo(p.run("mod", "download", "-json", module+"@"+version))
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", module, version, err)
	}
	return in.Dir, nil
}

// semver is the part of a version this tool orders on.
type semver struct{ major, minor, patch int }

func parseRelease(v string) (semver, error) {
	core, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), "-")
	f := strings.Split(core, ".")
	if len(f) != 3 || !strings.HasPrefix(v, "v") {
		return semver{}, fmt.Errorf("%q is not a release vX.Y.Z", v)
	}
	var s semver
	var err [3]error
	s.major, err[0] = strconv.Atoi(f[0])
	s.minor, err[1] = strconv.Atoi(f[1])
	s.patch, err[2] = strconv.Atoi(f[2])
	if e := errors.Join(err[:]...); e != nil {
		return semver{}, fmt.Errorf("%q is not a release vX.Y.Z: %w", v, e)
	}
	return s, nil
}

// gap is how many refusals in a row end a sequence: the proxy serves some releases and
// refuses others between them (v1.35.7 refused, v1.35.8 served).
const gap = 3

// served asks for each version that next gives, in order, until the proxy has refused gap
// in a row.
func served(p proxy, next func(i int) string) ([]info, error) {
	var out []info
	refused := 0
	for i := 0; i < 100; i++ {
		in, err := p.info(next(i))
		switch {
		case errors.Is(err, errNotServed):
			if refused++; refused == gap {
				return out, nil
			}
		case err != nil:
			return out, err
		default:
			refused = 0
			out = append(out, in)
		}
	}
	return out, fmt.Errorf("more than 100 versions after %s: stopped", next(0))
}

// newerPatches: the releases of pinned's minor after it that the proxy serves: its patch
// releases, and for a pre-release (v1.38.0-beta.0) the later pre-releases and releases too.
func newerPatches(p proxy, pinned string) ([]info, error) {
	s, err := parseRelease(pinned)
	if err != nil {
		return nil, err
	}
	if strings.Contains(pinned, "-") {
		all, err := minorReleases(p, fmt.Sprintf("v%d.%d", s.major, s.minor))
		for i, r := range all {
			if r.Version == pinned {
				return all[i+1:], err
			}
		}
		return nil, fmt.Errorf("pinned %s: the proxy does not list it among v%d.%d's releases", pinned, s.major, s.minor)
	}
	return served(p, func(i int) string { return fmt.Sprintf("v%d.%d.%d", s.major, s.minor, s.patch+1+i) })
}

// minorReleases: minor's pre-releases of its .0 (alpha.N, beta.N, rc.N) and its
// releases that the proxy serves, oldest first.
func minorReleases(p proxy, minor string) ([]info, error) {
	var all []info
	for _, pre := range []string{"alpha", "beta", "rc"} {
		got, err := served(p, func(i int) string { return fmt.Sprintf("%s.0-%s.%d", minor, pre, i) })
		if err != nil {
			return nil, err
		}
		all = append(all, got...)
	}
	got, err := served(p, func(i int) string { return fmt.Sprintf("%s.%d", minor, i) })
	return append(all, got...), err
}

// change is one path that differs between two releases.
type change struct {
	path           string
	added, removed int // -1, -1: binary
}

// parseNumstat reads the counts of `git diff --no-index --numstat a b` for two files:
// lines added and removed, -1 and -1 for a binary file, 0 and 0 for no output (equal).
func parseNumstat(out []byte) (added, removed int, err error) {
	line, _, _ := strings.Cut(string(out), "\n")
	if line == "" {
		return 0, 0, nil
	}
	f := strings.SplitN(line, "\t", 3)
	if len(f) != 3 {
		return 0, 0, fmt.Errorf("numstat line %q", line)
	}
	if f[0] == "-" && f[1] == "-" {
		return -1, -1, nil
	}
	var e1, e2 error
	added, e1 = strconv.Atoi(f[0])
	removed, e2 = strconv.Atoi(f[1])
	if err := errors.Join(e1, e2); err != nil {
		return 0, 0, fmt.Errorf("numstat line %q: %w", line, err)
	}
	return added, removed, nil
}

// files lists the regular files at root/p (p itself, or every file below it), relative
// to root.
func files(root, p string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(root, p), func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		out[filepath.ToSlash(rel)] = true
		return err
	})
	return out, err
}

// diffPaths lists the files that differ in paths between the module trees a and b, each
// once, in name order.
func diffPaths(a, b string, paths []string) ([]change, error) {
	seen := map[string]bool{}
	for _, p := range paths {
		for _, root := range []string{a, b} {
			got, err := files(root, p)
			if err != nil {
				return nil, err
			}
			for f := range got {
				seen[f] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for f := range seen {
		names = append(names, f)
	}
	sort.Strings(names)
	var all []change
	for _, f := range names {
		pa, pb := filepath.Join(a, f), filepath.Join(b, f)
		if _, err := os.Stat(pa); err != nil {
			pa = os.DevNull
		}
		if _, err := os.Stat(pb); err != nil {
			pb = os.DevNull
		}
		out, err := exec.Command("git", "diff", "--no-index", "--numstat", "--", pa, pb).Output()
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) { // 1: they differ
			return nil, fmt.Errorf("git diff %s: %w", f, err)
		}
		added, removed, err := parseNumstat(out)
		if err != nil {
			return nil, err
		}
		if added != 0 || removed != 0 {
			all = append(all, change{path: f, added: added, removed: removed})
		}
	}
	return all, nil
}

func report(w io.Writer, p proxy, pinned []string, next string, paths []string) error {
	day := func(in info) string {
		if in.Time.IsZero() {
			return "no date"
		}
		return in.Time.UTC().Format("2006-01-02")
	}
	// compare prints what changed in paths from release from to release to.
	compare := func(from, to string) error {
		if len(paths) == 0 {
			return nil
		}
		a, err := p.download(from)
		if err != nil {
			return err
		}
		b, err := p.download(to)
		if err != nil {
			return err
		}
		cs, err := diffPaths(a, b, paths)
		if err != nil {
			return err
		}
		if len(cs) == 0 {
			fmt.Fprintf(w, "    %s -> %s: no change in the %d paths the series depend on\n", from, to, len(paths))
			return nil
		}
		fmt.Fprintf(w, "    %s -> %s, in the paths the series depend on:\n", from, to)
		for _, c := range cs {
			if c.added < 0 {
				fmt.Fprintf(w, "      %s (binary)\n", c.path)
				continue
			}
			fmt.Fprintf(w, "      %s +%d -%d\n", c.path, c.added, c.removed)
		}
		return nil
	}
	for _, pin := range pinned {
		s, err := parseRelease(pin)
		if err != nil {
			return err
		}
		in, err := p.info(pin)
		if err != nil {
			return fmt.Errorf("pinned %s: %w", pin, err)
		}
		newer, err := newerPatches(p, pin)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "v%d.%d: pinned %s (%s)", s.major, s.minor, pin, day(in))
		if len(newer) == 0 {
			fmt.Fprintf(w, ", the newest the proxy serves\n")
			continue
		}
		var names []string
		for _, n := range newer {
			names = append(names, n.Version+" ("+day(n)+")")
		}
		fmt.Fprintf(w, "; newer: %s\n", strings.Join(names, ", "))
		if err := compare(pin, newer[len(newer)-1].Version); err != nil {
			return err
		}
	}
	if next == "" {
		return nil
	}
	rs, err := minorReleases(p, next)
	if err != nil {
		return err
	}
	if len(rs) == 0 {
		fmt.Fprintf(w, "%s (next minor): nothing served yet\n", next)
		return nil
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Version+" ("+day(r)+")")
	}
	fmt.Fprintf(w, "%s (next minor): %s\n", next, strings.Join(names, ", "))
	if len(pinned) > 0 {
		return compare(pinned[0], rs[len(rs)-1].Version)
	}
	return nil
}

func main() {
	next := flag.String("next", "", "the next minor, v1.Y: its pre-releases and releases too, compared with the first pinned release")
	pathsFile := flag.String("paths", "", "a file listing the paths to compare, one a line (a directory ends in /)")
	flag.Parse()
	log.SetFlags(0)
	var paths []string
	if *pathsFile != "" {
		b, err := os.ReadFile(*pathsFile)
		if err != nil {
			log.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				paths = append(paths, l)
			}
		}
	}
	if err := report(os.Stdout, goProxy{}, flag.Args(), *next, paths); err != nil {
		log.Fatalf("upstreamreleases: %v", err)
	}
}
