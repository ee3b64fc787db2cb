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
	"hash/fnv"
	"math"
	"os"
	"sync/atomic"
	"time"
)

// firstProbeSpread places the first probes of a kubelet that has just
// started. Upstream probes at once, except within one period of the
// kubelet's start, when every worker sleeps a random part of its period so
// that a restarted kubelet does not probe every container at the same
// instant (kubernetes#52154). A random sleep still bunches: with 200 probes,
// some 100 ms window of a 1 s period gets ~1.5× its share. Here the k-th
// worker added in that window starts at the fraction (seed + k/φ) mod 1 of
// its period, which leaves every window within one or two probes of its
// share. The seed differs per node, so nodes that restart together do not
// probe a shared dependency in step.
//
// Example, seed 0.2 and a 10 s period: the first workers added start at
// 2.0 s, 8.18 s, 4.36 s, 0.54 s, 6.72 s, ... each new one in one of the largest gaps
// left, so that the starts stay even however many come.
type firstProbeSpread struct {
	start time.Time // the kubelet's start
	seed  float64   // in [0, 1)
	n     atomic.Uint64
}

// invPhi is 1/φ. Adding it modulo 1 walks the unit interval so that any n
// consecutive points cut it into gaps of at most three lengths (the
// three-gap theorem): the most even deterministic sequence that needs no
// knowledge of how many points will come.
var invPhi = (math.Sqrt(5) - 1) / 2

// delay says how long after it is added a worker with the given period first
// probes: at once after the first period since start, else its place in the
// sequence, truncated to a multiple of tick, the scheduler's resolution, so
// that rounding a first probe up to a tick never makes it a whole period late.
func (s *firstProbeSpread) delay(period, tick time.Duration) time.Duration {
	if period <= time.Since(s.start) {
		return 0
	}
	k := s.n.Add(1) - 1
	_, frac := math.Modf(s.seed + float64(k)*invPhi)
	return time.Duration(frac * float64(period)).Truncate(tick)
}

// nodeSeed derives the per-node phase of the spread from the host name.
func nodeSeed() float64 {
	name, _ := os.Hostname()
	h := fnv.New64a()
	h.Write([]byte(name))
	return float64(h.Sum64()>>11) / (1 << 53)
}
