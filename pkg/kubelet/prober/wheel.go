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
// Tokio and Linux use: wheelLevels levels of 64 slots, level L slot covering
// 64^L ticks, so one level spans 64 times the level below. Time is an int64
// tick count; the scheduler uses 4 ms ticks, so the levels span 256 ms,
// 16.4 s, 17.5 min, 18.6 h, 49.7 days and 8.7 years.
//
// A timer is filed on the lowest level whose slot width still separates it
// from the current time: the level of the highest 6-bit digit in which `when`
// and `elapsed` differ. Example, with elapsed = 1000 ticks (1 s):
//
//	when = 1040     digits differ only in the lowest 6 bits → level 0, slot 1040%64 = 16
//	when = 11000    11000^1000 has its top bit in digit 2  → level 2, slot (11000>>12)%64 = 2
//
// The second timer sits in a slot that starts at tick 8192. When the wheel
// advances to 8192 it empties that slot and files each timer again: 11000 is
// now 2808 ticks away and lands on level 1, slot (11000>>6)%64 = 43, which
// starts at tick 10944; advancing there files it on level 0, slot
// 11000%64 = 56, and at tick 11000 it fires. A timer thus moves down at most
// once per level and fires within its own tick: granularity is one tick at
// any distance, and schedule, cancel and each cascade step are O(1).
//
// Because every timer on level L shares its higher digits with `elapsed`,
// all of level L's timers are later than all of level L-1's, and within a
// level the lowest occupied slot is the earliest. An occupancy bitmap per
// level makes "when is the next non-empty slot?" a few TrailingZeros64 calls,
// so the scheduler sleeps on one runtime timer until exactly that slot
// instead of ticking through empty ones. Timers further away than the top
// level spans wait in an overflow list that is filed again each time the top
// level wraps (every 2^36 ticks), or against the target tick when advance
// jumps over several wraps with nothing else filed.
//
// The wheel is not safe for concurrent use; the scheduler guards it.
type timingWheel struct {
	// elapsed is the tick up to which the wheel has been advanced. Every
	// filed timer has when > elapsed.
	elapsed  int64
	levels   [wheelLevels]wheelLevel
	overflow *wheelTimer
	count    int
}

const (
	wheelBits   = 6
	wheelSlots  = 1 << wheelBits
	wheelLevels = 6
	// overflowLevel marks timers kept in the overflow list.
	overflowLevel = wheelLevels
)

type wheelLevel struct {
	occupied uint64
	slots    [wheelSlots]*wheelTimer
}

// wheelTimer is one entry. Its zero value is a timer that is not filed.
type wheelTimer struct {
	// when is the tick at which the timer is due.
	when       int64
	level      int8
	slot       uint8
	inWheel    bool
	prev, next *wheelTimer
	// owner is what the timer stands for; the wheel never reads it.
	owner *worker
}

func (t *wheelTimer) headOf(w *timingWheel) **wheelTimer {
	if t.level == overflowLevel {
		return &w.overflow
	}
	return &w.levels[t.level].slots[t.slot]
}

func newTimingWheel(now int64) *timingWheel {
	return &timingWheel{elapsed: now}
}

// len returns the number of filed timers.
func (w *timingWheel) len() int { return w.count }

// schedule files t to fire at tick when. It reports false, and files
// nothing, when when <= the current tick: such a timer is already due and
// the caller must run it itself. t must not be filed.
func (w *timingWheel) schedule(t *wheelTimer, when int64) bool {
	if when <= w.elapsed {
		return false
	}
	t.when = when
	w.file(t)
	w.count++
	return true
}

// cancel removes t if it is filed and reports whether it was.
func (w *timingWheel) cancel(t *wheelTimer) bool {
	if !t.inWheel {
		return false
	}
	w.unlink(t)
	w.count--
	return true
}

// next returns the start tick of the earliest non-empty slot; a timer in it
// may be due later than that tick (then it is only moved down a level).
func (w *timingWheel) next() (tick int64, ok bool) {
	level, slot, ok := w.nextSlot()
	if !ok {
		return 0, false
	}
	return w.slotStart(level, slot), true
}

// lone returns the only timer of the earliest non-empty slot, if that slot
// is on level 0 and holds one timer (ablation: exactSparse).
func (w *timingWheel) lone() *wheelTimer {
	level, slot, ok := w.nextSlot()
	if !ok || level != 0 {
		return nil
	}
	if t := w.levels[0].slots[slot]; t.next == nil {
		return t
	}
	return nil
}

// advance moves the wheel to tick now and appends every timer due at or
// before now to fired, in the order of their slots. Fired timers are no
// longer filed, so the caller may schedule them again.
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
			// Every level is empty, so nothing lies between here and now:
			// file the list against now at once instead of once per wrap,
			// which would cost one pass per 2^36 ticks crossed.
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
			t.prev, t.next, t.inWheel = nil, nil, false
			if t.when <= now {
				w.count--
				fired = append(fired, t)
			} else {
				w.file(t)
			}
			t = next
		}
	}
	if now > w.elapsed {
		w.elapsed = now
	}
	return fired
}

// file links t into the slot its distance from elapsed selects.
func (w *timingWheel) file(t *wheelTimer) {
	level := levelFor(w.elapsed, t.when)
	var head **wheelTimer
	if level >= wheelLevels {
		t.level, t.slot = overflowLevel, 0
		head = &w.overflow
	} else {
		slot := uint8((t.when >> (wheelBits * level)) & (wheelSlots - 1))
		t.level, t.slot = int8(level), slot
		l := &w.levels[level]
		l.occupied |= 1 << slot
		head = &l.slots[slot]
	}
	t.prev, t.next, t.inWheel = nil, *head, true
	if *head != nil {
		(*head).prev = t
	}
	*head = t
}

func (w *timingWheel) unlink(t *wheelTimer) {
	if t.prev != nil {
		t.prev.next = t.next
	} else {
		*t.headOf(w) = t.next
		if t.next == nil && t.level != overflowLevel {
			w.levels[t.level].occupied &^= 1 << t.slot
		}
	}
	if t.next != nil {
		t.next.prev = t.prev
	}
	t.prev, t.next, t.inWheel = nil, nil, false
}

// nextSlot finds the earliest non-empty slot: the lowest occupied slot of
// the lowest non-empty level, or else the overflow list.
func (w *timingWheel) nextSlot() (level int, slot uint8, ok bool) {
	for level := range w.levels {
		if occ := w.levels[level].occupied; occ != 0 {
			return level, uint8(bits.TrailingZeros64(occ)), true
		}
	}
	if w.overflow != nil {
		return overflowLevel, 0, true
	}
	return 0, 0, false
}

// slotStart is the first tick a slot covers. The overflow list "starts" when
// the top level wraps, which is when its timers can be filed on a level.
func (w *timingWheel) slotStart(level int, slot uint8) int64 {
	span := int64(1) << (wheelBits * level) // ticks per slot; for overflow, per wrap
	if level == overflowLevel {
		return (w.elapsed | (span - 1)) + 1
	}
	levelStart := w.elapsed &^ (span<<wheelBits - 1)
	return levelStart + int64(slot)*span
}

// levelFor returns the level for a timer due at when, seen from elapsed: the
// index of the highest 6-bit digit in which the two differ.
func levelFor(elapsed, when int64) int {
	diff := uint64(elapsed^when) | (wheelSlots - 1)
	return (63 - bits.LeadingZeros64(diff)) / wheelBits
}
