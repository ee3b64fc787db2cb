//go:build !probewheel_export

// Module-only: what bench/oracle, upstream's package with runs on probewheel's ticks, shares with
// the scheduler; the kubelet never builds it.

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

import "time"

// UntilTick is how long after since (from the manager's start) the first tick at or after it
// comes: where the scheduler starts a run due then.
func UntilTick(since time.Duration) time.Duration {
	return time.Duration(ceilTick(since))*schedulerTick - since
}

// FirstProbeDelays returns what a manager started at start, on this host, gives each new
// worker as the delay of its first probe (spread.go), in the order they are added.
func FirstProbeDelays(start time.Time) func(period time.Duration) time.Duration {
	s := &firstProbeSpread{start: start, seed: nodeSeed()}
	return func(period time.Duration) time.Duration { return s.delay(period, schedulerTick) }
}
