// probewheel:module-only — reads the repository's docs, so it stays out of the kubernetes tree.

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
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// numberTexts are the texts that state the scheduler's constants: the
// package's comments (doc.go's contract among them), docs/design.md, docs/proposal.md and the
// patch messages, keyed by path.
func numberTexts(t *testing.T) map[string]string {
	t.Helper()
	var paths []string
	for _, glob := range []string{"*.go", "../../../docs/design.md", "../../../docs/proposal.md", "../../../series/[0-9]*/message"} {
		m, err := filepath.Glob(glob)
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: no file (%v)", glob, err)
		}
		paths = append(paths, m...)
	}
	comment := regexp.MustCompile(`(?m)^\s*//\s?`)
	space := regexp.MustCompile(`\s+`)
	texts := map[string]string{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.HasSuffix(p, ".go") {
			text = comment.ReplaceAllString(text, " ")
		}
		// Sentences wrap: compare them as one line.
		texts[p] = space.ReplaceAllString(text, " ")
	}
	return texts
}

func ms(d time.Duration) string { return fmt.Sprint(float64(d) / float64(time.Millisecond)) }

// TestDocumentedNumbers: wherever the package's comments, docs/design.md or a
// patch message state one of the scheduler's constants in a form it checks,
// the number is the code's. Each form must occur somewhere, so that a
// rewording cannot turn a check off unnoticed.
func TestDocumentedNumbers(t *testing.T) {
	tick := ms(schedulerTick)
	checks := []struct {
		what    string
		pattern string // captures the number(s), joined by a space
		want    string
	}{
		{"the wheel's tick", `wheel's (?:first )?(\d+) ms tick`, tick},
		{"the wheel's tick", `wheel \((\d+) ms\)`, tick},
		{"the wheel's tick", `(\d+) ms ticks?, O\(1\)`, tick},
		{"the wheel's tick", `The tick: (\d+) ms`, tick},
		{"the wheel's tick", `scheduler uses (\d+) ms ticks`, tick},
		{"the wheel's size", `(\d+) levels (?:of|×) (\d+) slots`, fmt.Sprint(wheelLevels, " ", wheelSlots)},
		{"fast slots per CPU", `(\d+)(?: slots)?(?: per |/)CPU`, fmt.Sprint(fastSlotsPerCPU)},
		{"fast lane bounds", `CPU,? \(?(\d+)(?: to |–)(\d+)`, fmt.Sprint(minFastSlots, " ", maxFastSlots)},
		{"slow lane", `slow lane \((\d+)`, fmt.Sprint(slowSlots)},
		{"slow lane", `slow lane has (\d+)`, fmt.Sprint(slowSlots)},
		{"slowAfter", "slowAfter`? \\((\\d+) ms\\)", ms(defaultSlowAfter)},
		{"slowAfter", `(?:has taken|run >) (\d+) ms while`, ms(defaultSlowAfter)},
		{"slowAfter", `waited (\d+) ms (?:for a fast slot )?while runs`, ms(defaultSlowAfter)},
		{"slowAfter on ticks", `rounded up to the wheel's tick \((\d+) ms`, ms(time.Duration(ceilTick(defaultSlowAfter)) * schedulerTick)},
		{"inlineMaxRun", `quick \(under (\d+) ms\)`, ms(inlineMaxRun)},
		{"inlineMaxRun", `took under (\d+) ms`, ms(inlineMaxRun)},
		{"inlineBudget", `for up to (\d+) ms per tick`, ms(inlineBudget)},
		{"inlineWatch", `(?:still going|first tick) (\d+) ms after the batch started`, ms(inlineWatch)},
		{"inlineWatchMax", `(?:longer|more) than about (\d+) ms`, ms(inlineWatchMax.Round(time.Millisecond))},
		{"inlineWatchMax", `up to (\d+) ms late`, ms(inlineWatchMax.Round(time.Millisecond))},
	}
	consts := map[string]time.Duration{
		"schedulerTick": schedulerTick, "slowAfter": defaultSlowAfter, "inlineMaxRun": inlineMaxRun,
		"inlineBudget": inlineBudget, "inlineWatch": inlineWatch,
	}
	texts := numberTexts(t)
	for _, c := range checks {
		re := regexp.MustCompile(c.pattern)
		found := false
		for path, text := range texts {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				found = true
				if got := strings.Join(m[1:], " "); got != c.want {
					t.Errorf("%s: %q states %s as %s, the code has %s", path, m[0], c.what, got, c.want)
				}
			}
		}
		if !found {
			t.Errorf("no text states %s as /%s/ any more: reword the check with the text", c.what, c.pattern)
		}
	}
	// The form "N ms (`name`)" or "`name` (N ms)" for any constant above.
	named := regexp.MustCompile("(\\d+(?:\\.\\d+)?) ms \\(`(\\w+)`|`(\\w+)` \\((\\d+(?:\\.\\d+)?) ms\\)")
	for path, text := range texts {
		for _, m := range named.FindAllStringSubmatch(text, -1) {
			n, name := m[1], m[2]
			if name == "" {
				n, name = m[4], m[3]
			}
			if d, ok := consts[name]; ok && n != ms(d) {
				t.Errorf("%s: %q states %s as %s ms, the code has %s ms", path, m[0], name, n, ms(d))
			}
		}
	}
}
