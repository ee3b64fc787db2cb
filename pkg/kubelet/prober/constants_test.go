//go:build !probewheel_export

// Module-only: reads the repository's pages, which the kubernetes tree does not have.

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
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The package states each of its constants once, at its declaration; its
// comments name them. A page that needs a value writes it between markers,
// <!-- const:NAME -->VALUE<!-- /const -->, and TestDocumentedConstants holds
// the value to the code's (go test -run TestDocumentedConstants -update
// rewrites them).
var updateConstants = flag.Bool("update", false, "rewrite the pages' constant markers from the code")

// documentedConstants are the values the pages may state, by marker name.
func documentedConstants() map[string]string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%g ms", float64(d)/float64(time.Millisecond)) }
	return map[string]string{
		"schedulerTick":         ms(schedulerTick),
		"maxIdleExecutors":      fmt.Sprint(maxIdleExecutors),
		"denseTicks":            fmt.Sprint(denseTicks),
		"wheelLevels":           fmt.Sprint(wheelLevels),
		"wheelSlots":            fmt.Sprint(wheelSlots),
		"fallbackPeriodSeconds": fmt.Sprintf("%d s", fallbackPeriodSeconds),
	}
}

var constMarker = regexp.MustCompile(`<!-- const:(\w+) -->(.*?)<!-- /const -->`)

// TestDocumentedConstants: every marked value of README.md and docs/*.md is
// the code's.
func TestDocumentedConstants(t *testing.T) {
	pages, err := filepath.Glob("../../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../../../README.md")
	values := documentedConstants()
	found := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		fixed := constMarker.ReplaceAllStringFunc(text, func(m string) string {
			found++
			sub := constMarker.FindStringSubmatch(m)
			name, stated := sub[1], sub[2]
			want, ok := values[name]
			switch {
			case !ok:
				t.Errorf("%s: %q names no constant the package documents (documentedConstants)", page, m)
				return m
			case stated != want && !*updateConstants:
				t.Errorf("%s: states %s as %q, the code has %q (go test -run TestDocumentedConstants -update ./pkg/kubelet/prober/)", page, name, stated, want)
			}
			return fmt.Sprintf("<!-- const:%s -->%s<!-- /const -->", name, want)
		})
		if *updateConstants && fixed != text {
			if err := os.WriteFile(page, []byte(fixed), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if found == 0 {
		t.Error("no page states a constant through a marker: the check checks nothing")
	}
	if strings.Contains(fmt.Sprint(values), "%!") {
		t.Errorf("a value did not format: %v", values)
	}
}
