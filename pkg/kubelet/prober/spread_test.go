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
	"testing"
	"time"
)

// TestFirstProbeSpread: within one period of the start, the k-th worker
// starts at (seed + k/φ) mod 1 of its period, on a tick (spread.go's
// example); after it, at once.
func TestFirstProbeSpread(t *testing.T) {
	s := firstProbeSpread{start: time.Now(), seed: 0.2}
	for k, want := range []time.Duration{2000, 8180, 4360, 540, 6720} {
		want *= time.Millisecond
		if got := s.delay(10*time.Second, 4*time.Millisecond); got != want {
			t.Errorf("worker %d: delay %v, want %v", k, got, want)
		}
	}
	late := firstProbeSpread{start: time.Now().Add(-time.Minute), seed: 0.2}
	if got := late.delay(10*time.Second, 4*time.Millisecond); got != 0 {
		t.Errorf("a minute after the start: delay %v, want 0", got)
	}
	if n := late.n.Load(); n != 0 {
		t.Errorf("a worker added after the window took place %d in the sequence", n)
	}
}
