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
	"time"

	"k8s.io/utils/clock"
)

// loop is the wheel's goroutine. It sleeps on one timer until the earliest
// of the wheel's next non-empty slot, the pool's next possible demotion and
// maxLoopSleep; then it dispatches what is due, moves overrun fast runs, and
// sleeps again. It retires, with the parked executors, when the last worker
// exits.
func (s *scheduler) loop() {
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		s.mu.Lock()
		if s.workers == 0 {
			s.looping = false
			s.armed = noWake
			s.retireExecutors()
			s.mu.Unlock()
			return
		}
		now := s.now()
		s.fired = s.wheel.advance(floorTick(now), s.fired[:0])
		for i, t := range s.fired {
			s.run(t.owner, now, t.owner.sched.ticker.due)
			s.fired[i] = nil
		}
		s.startDemoted(now)
		wake := floorTick(now + maxLoopSleep)
		if tick, ok := s.wheel.next(); ok {
			wake = min(wake, tick)
		}
		if at, ok := s.pool.nextDemotion(); ok {
			wake = min(wake, ceilTick(at))
		}
		s.armed = wake
		s.mu.Unlock()

		d := time.Duration(wake)*schedulerTick - s.now()
		if timer == nil {
			timer = s.clock.NewTimer(d)
		} else {
			timer.Reset(d)
		}
		select {
		case <-timer.C():
		case <-s.kick:
		}
	}
}
