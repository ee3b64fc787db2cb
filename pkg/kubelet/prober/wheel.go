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

import "math/bits"

// timingWheel is a hierarchical timing wheel (Varghese & Lauck) in the layout
// of Tokio's and Linux's: wheelLevels levels of wheelSlots slots, a slot of
// level L covering wheelSlots^L ticks. Time is a count of ticks; with the
// scheduler's tick, the top level spans years.
//
// A timer is filed on the level of the highest 6-bit digit in which its tick
// and the wheel's current tick differ (levelFor). With the wheel at tick 1000:
//
//	tick 1010   differs in digit 0         → level 0, slot 1010%64 = 50
//	tick 1040   differs in digit 1         → level 1, slot (1040>>6)%64 = 16, which starts at tick 1024
//	tick 11000  differs in digit 2         → level 2, slot (11000>>12)%64 = 2, which starts at tick 8192
//
// When the wheel reaches the start of a slot it empties it and files each
// timer again: at tick 8192, tick 11000 moves to level 1, slot 43 (starting at
// tick 10944); at 10944 to level 0, slot 56; at 11000 it fires. A timer moves
// down at most once per level and fires within its own tick, whatever its
// distance; filing, cancelling and each step down are O(1).
//
// Every timer of level L shares its higher digits with the current tick, so
// level L's timers all come after level L-1's, and within a level the lowest
// occupied slot comes first: an occupancy bitmap per level puts the next
// non-empty slot a few TrailingZeros64 away, and the scheduler sleeps until
// it. Timers beyond the top level wait in an overflow list, filed again when
// the top level wraps, or at once when nothing else is filed.
//
// Invariant: every filed timer's tick is after elapsed. The scheduler's mutex
// guards the wheel.
type timingWheel struct {
	elapsed  int64 // the tick the wheel has advanced to
	levels   [wheelLevels]wheelLevel
	overflow *wheelTimer
}

const (
	wheelBits     = 6
	wheelSlots    = 1 << wheelBits
	wheelLevels   = 6
	overflowLevel = wheelLevels // wheelTimer.level of a timer in the overflow list
)

type wheelLevel struct {
	occupied uint64 // bit i: slots[i] is not empty
	slots    [wheelSlots]*wheelTimer
}

// wheelTimer is one entry, embedded in the worker it stands for. Its zero
// value is a timer that is not filed.
type wheelTimer struct {
	when       int64 // the tick at which it fires
	level      int8
	slot       uint8
	filed      bool
	prev, next *wheelTimer
	owner      *worker // for the scheduler; the wheel never reads it
}

// schedule files t to fire at tick when and reports true, or reports false
// and files nothing if when is not after the current tick: such a timer is
// due already, and the caller runs it itself. t must not be filed.
func (w *timingWheel) schedule(t *wheelTimer, when int64) bool {
	if t.filed {
		panic("prober: timing wheel: a timer filed twice")
	}
	if when <= w.elapsed {
		return false
	}
	t.when = when
	w.file(t)
	return true
}

// restart moves an empty wheel to tick now, back too: the scheduler's clock
// starts again with its first worker (scheduler.add).
func (w *timingWheel) restart(now int64) {
	if _, _, ok := w.nextSlot(); ok {
		panic("prober: timing wheel: restarted with timers filed")
	}
	w.elapsed = now
}

// cancel removes t if it is filed.
func (w *timingWheel) cancel(t *wheelTimer) {
	if !t.filed {
		return
	}
	if t.prev != nil {
		t.prev.next = t.next
	} else {
		*w.head(t) = t.next
		if t.next == nil && t.level != overflowLevel {
			w.levels[t.level].occupied &^= 1 << t.slot
		}
	}
	if t.next != nil {
		t.next.prev = t.prev
	}
	t.prev, t.next, t.filed = nil, nil, false
}

// next returns the first tick of the earliest non-empty slot. A timer in it
// may fire later than that: the slot is then only emptied a level down.
func (w *timingWheel) next() (tick int64, ok bool) {
	level, slot, ok := w.nextSlot()
	if !ok {
		return 0, false
	}
	return w.slotStart(level, slot), true
}

// advance moves the wheel to tick now and appends to fired every timer whose
// tick is at or before now, slot by slot. Fired timers are no longer filed.
func (w *timingWheel) advance(now int64, fired []*wheelTimer) []*wheelTimer {
	for {
		level, slot, ok := w.nextSlot()
		if !ok {
			break
		}
		start := w.slotStart(level, slot)
		if start > now {
			break
		}
		var head *wheelTimer
		if level == overflowLevel {
			// Every level is empty, so nothing lies before now: file the
			// list against now at once rather than once per wrap crossed.
			head, w.overflow = w.overflow, nil
			start = now
		} else {
			l := &w.levels[level]
			head, l.slots[slot] = l.slots[slot], nil
			l.occupied &^= 1 << slot
		}
		w.elapsed = start
		for t := head; t != nil; {
			next := t.next
			t.prev, t.next, t.filed = nil, nil, false
			if t.when <= now {
				fired = append(fired, t)
			} else {
				w.file(t)
			}
			t = next
		}
	}
	w.elapsed = max(w.elapsed, now)
	return fired
}

// file links t into the slot its distance from elapsed selects.
func (w *timingWheel) file(t *wheelTimer) {
	level := levelFor(w.elapsed, t.when)
	if level >= wheelLevels {
		t.level, t.slot = overflowLevel, 0
	} else {
		t.level, t.slot = int8(level), uint8(t.when>>(wheelBits*level)&(wheelSlots-1))
		w.levels[level].occupied |= 1 << t.slot
	}
	head := w.head(t)
	t.prev, t.next, t.filed = nil, *head, true
	if *head != nil {
		(*head).prev = t
	}
	*head = t
}

func (w *timingWheel) head(t *wheelTimer) **wheelTimer {
	if t.level == overflowLevel {
		return &w.overflow
	}
	return &w.levels[t.level].slots[t.slot]
}

// nextSlot finds the earliest non-empty slot: the lowest occupied slot of the
// lowest non-empty level, else the overflow list.
func (w *timingWheel) nextSlot() (level int, slot uint8, ok bool) {
	for level := range w.levels {
		if occ := w.levels[level].occupied; occ != 0 {
			return level, uint8(bits.TrailingZeros64(occ)), true
		}
	}
	return overflowLevel, 0, w.overflow != nil
}

// slotStart is the first tick a slot covers; the overflow list's is the
// top level's next wrap, when its timers can be filed on a level.
func (w *timingWheel) slotStart(level int, slot uint8) int64 {
	span := int64(1) << (wheelBits * level) // ticks per slot; for the overflow list, per wrap
	if level == overflowLevel {
		return (w.elapsed | (span - 1)) + 1
	}
	return w.elapsed&^(span<<wheelBits-1) + int64(slot)*span
}

// levelFor is the level of a timer due at tick when, seen from tick elapsed:
// the index of the highest 6-bit digit in which the two differ.
func levelFor(elapsed, when int64) int {
	diff := uint64(elapsed^when) | (wheelSlots - 1)
	return (63 - bits.LeadingZeros64(diff)) / wheelBits
}
