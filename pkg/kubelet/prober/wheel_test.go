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
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// firedAt advances w to now and returns the due ticks of what fired.
func firedAt(w *timingWheel, now int64) []int64 {
	var got []int64
	for _, t := range w.advance(now, nil) {
		if t.when > now {
			panic("fired early")
		}
		got = append(got, t.when)
	}
	return got
}

func TestWheel(t *testing.T) {
	const day = 24 * 60 * 60 * 1000
	tests := []struct {
		name     string
		start    int64
		schedule []int64 // due ticks
		cancel   []int   // indexes into schedule
		steps    []int64 // advance to each in turn
		want     [][]int64
	}{{
		name:     "ordering across levels",
		schedule: []int64{5000, 1, 64, 63, 4096, 70, 262144},
		steps:    []int64{0, 1, 63, 64, 69, 70, 4096, 5000, 262144},
		want:     [][]int64{nil, {1}, {63}, {64}, nil, {70}, {4096}, {5000}, {262144}},
	}, {
		name:     "one big step fires everything due, nothing early",
		schedule: []int64{10, 20_000, 3, 7_000_000, 999},
		steps:    []int64{20_000, 7_000_000},
		want:     [][]int64{{3, 10, 999, 20_000}, {7_000_000}},
	}, {
		name:     "cancel",
		schedule: []int64{10, 11, 12, 100_000},
		cancel:   []int{1, 3},
		steps:    []int64{1_000_000},
		want:     [][]int64{{10, 12}},
	}, {
		name:     "many timers in one slot",
		schedule: slices.Repeat([]int64{42}, 1000),
		steps:    []int64{41, 42},
		want:     [][]int64{nil, slices.Repeat([]int64{42}, 1000)},
	}, {
		name:     "far future beyond the top level",
		start:    1_000,
		schedule: []int64{1_000 + 3*1000*day, math.MaxInt64 / 2, 2_000},
		steps:    []int64{2_000, 1_000 + 3*1000*day - 1, 1_000 + 3*1000*day, math.MaxInt64 / 2},
		want:     [][]int64{{2_000}, nil, {1_000 + 3*1000*day}, {math.MaxInt64 / 2}},
	}, {
		name:     "overflow timer due exactly when the top level wraps",
		start:    5,
		schedule: []int64{1 << 36, 1<<36 + 1<<18},
		steps:    []int64{1<<36 - 1, 1 << 36, 1<<36 + 1<<18},
		want:     [][]int64{nil, {1 << 36}, {1<<36 + 1<<18}},
	}, {
		name:     "one step over many top-level wraps with only overflow timers",
		schedule: []int64{1 << 62, 1<<62 + 5, 3 << 40},
		steps:    []int64{1 << 40, 3 << 40, 1<<62 - 1, 1 << 62, 1<<62 + 5},
		want:     [][]int64{nil, {3 << 40}, nil, {1 << 62}, {1<<62 + 5}},
	}, {
		name:     "start near a top-level wrap",
		start:    1<<36 - 5,
		schedule: []int64{1<<36 + 1, 1<<36 - 1, 1<<37 + 7},
		steps:    []int64{1<<36 - 1, 1 << 36, 1<<36 + 1, 1<<37 + 7},
		want:     [][]int64{{1<<36 - 1}, nil, {1<<36 + 1}, {1<<37 + 7}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWheelAt(tc.start)
			timers := make([]wheelTimer, len(tc.schedule))
			for i, when := range tc.schedule {
				if !w.schedule(&timers[i], when) {
					t.Fatalf("schedule(%d) refused at %d", when, tc.start)
				}
			}
			for _, i := range tc.cancel {
				w.cancel(&timers[i])
				if timers[i].filed {
					t.Fatalf("cancel(%d) left it filed", tc.schedule[i])
				}
				w.cancel(&timers[i]) // a second cancel does nothing
			}
			for i, now := range tc.steps {
				got := firedAt(w, now)
				slices.Sort(got)
				if !slices.Equal(got, tc.want[i]) {
					t.Errorf("advance(%d) fired %v, want %v", now, got, tc.want[i])
				}
			}
			if filedCount(w) != 0 {
				t.Errorf("%d timers left", filedCount(w))
			}
		})
	}
}

func TestWheelScheduleDueNowIsRefused(t *testing.T) {
	w := newWheelAt(100)
	var tm wheelTimer
	for _, when := range []int64{100, 99, math.MinInt64} {
		if w.schedule(&tm, when) {
			t.Errorf("schedule(%d) at 100 was accepted", when)
		}
	}
	if filedCount(w) != 0 {
		t.Errorf("len = %d", filedCount(w))
	}
}

// TestWheelNextIsExact checks that next() never lets a sleeping scheduler
// oversleep: the earliest timer's tick is never before next().
func TestWheelNextIsExact(t *testing.T) {
	w := newWheelAt(0)
	timers := make([]wheelTimer, 3)
	for i, when := range []int64{300_000, 9_000, 70} {
		w.schedule(&timers[i], when)
	}
	for _, want := range []int64{70, 9_000, 300_000} {
		for {
			next, ok := w.next()
			if !ok || next > want {
				t.Fatalf("next() = %d, %v; want a slot at or before %d", next, ok, want)
			}
			if fired := firedAt(w, next); len(fired) > 0 {
				if fired[0] != want {
					t.Fatalf("fired %v, want %d", fired, want)
				}
				break
			}
		}
	}
}

// wheelModel is the reference: a slice sorted on demand.
type wheelModel struct {
	due map[int]int64
}

func (m *wheelModel) advance(now int64) []int64 {
	var out []int64
	for id, when := range m.due {
		if when <= now {
			out = append(out, when)
			delete(m.due, id)
		}
	}
	slices.Sort(out)
	return out
}

func (m *wheelModel) earliest() (int64, bool) {
	first, ok := int64(math.MaxInt64), false
	for _, when := range m.due {
		first, ok = min(first, when), true
	}
	return first, ok
}

// FuzzWheel drives the wheel and the model with the same operations: each
// 9-byte record is an opcode and an operand.
func FuzzWheel(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 10, 2, 0, 0, 0, 0, 0, 0, 0, 20})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0})
	f.Add(slices.Repeat([]byte{0, 0, 0, 0, 0, 0, 0, 16, 1, 2, 0, 0, 0, 0, 0, 0, 8, 0}, 8))
	// One timer in the overflow list, then steps of 2^50 ticks (2^14 wraps
	// each) and a jump to next().
	f.Add(slices.Concat([]byte{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0},
		slices.Repeat([]byte{2, 4, 0, 0, 0, 0, 0, 0, 0}, 32), []byte{3, 0, 0, 0, 0, 0, 0, 0, 0}))
	f.Fuzz(func(t *testing.T, ops []byte) {
		const maxTimers = 64
		now := int64(1 << 20)
		w := newWheelAt(now)
		m := &wheelModel{due: map[int]int64{}}
		timers := make([]wheelTimer, maxTimers)
		ids := map[*wheelTimer]int{}
		for i := range timers {
			ids[&timers[i]] = i
		}
		for len(ops) >= 9 {
			op, arg := ops[0], binary.BigEndian.Uint64(ops[1:9])
			ops = ops[9:]
			switch op % 4 {
			case 0: // schedule a free timer; distances span every level and the overflow
				id := int(arg % maxTimers)
				if _, busy := m.due[id]; busy {
					continue
				}
				delta := int64(arg>>8) >> (arg % 64)
				when := now + delta
				if when < now { // overflowed: keep far future but valid
					when = math.MaxInt64 - 1
				}
				if ok := w.schedule(&timers[id], when); ok != (when > now) {
					t.Fatalf("schedule(%d) at %d = %v", when, now, ok)
				} else if ok {
					m.due[id] = when
				}
			case 1: // cancel
				id := int(arg % maxTimers)
				_, want := m.due[id]
				if got := timers[id].filed; got != want {
					t.Fatalf("timer %d filed = %v before cancel, model %v", id, got, want)
				}
				w.cancel(&timers[id])
				delete(m.due, id)
			case 2: // advance by a small or large step
				step := int64(arg>>8) >> (arg % 64)
				if now+step < now {
					continue
				}
				now += step
				var got []int64
				for _, tm := range w.advance(now, nil) {
					got = append(got, tm.when)
					if _, ok := m.due[ids[tm]]; !ok {
						t.Fatalf("fired timer %d that the model does not hold", ids[tm])
					}
				}
				slices.Sort(got)
				if want := m.advance(now); !slices.Equal(got, want) {
					t.Fatalf("advance(%d) fired %v, want %v", now, got, want)
				}
			case 3: // jump straight to the next slot, as the scheduler does
				next, ok := w.next()
				earliest, mok := m.earliest()
				if ok != mok {
					t.Fatalf("next() ok = %v, model has timers = %v", ok, mok)
				}
				if !ok {
					continue
				}
				if next > earliest {
					t.Fatalf("next() = %d is after the earliest timer %d", next, earliest)
				}
				now = next
				got := len(w.advance(now, nil))
				if want := len(m.advance(now)); got != want {
					t.Fatalf("advance(next=%d) fired %d, want %d", now, got, want)
				}
			}
			if filedCount(w) != len(m.due) {
				t.Fatalf("len() = %d, model %d", filedCount(w), len(m.due))
			}
		}
	})
}

// BenchmarkWheelAdvanceAcrossWraps measures one advance over 2^56 ticks (2^20
// top-level wraps) with only an overflow timer filed: what a wheel costs after
// a long idle span, since the scheduler only wakes for the next slot.
func BenchmarkWheelAdvanceAcrossWraps(b *testing.B) {
	w := newWheelAt(0)
	var tm wheelTimer
	w.schedule(&tm, math.MaxInt64-1)
	now := int64(0)
	for b.Loop() {
		if now > math.MaxInt64-1<<57 {
			b.StopTimer()
			w, now = newWheelAt(0), 0
			w.schedule(&tm, math.MaxInt64-1)
			b.StartTimer()
		}
		now += 1 << 56
		w.advance(now, nil)
	}
}

func newWheelAt(tick int64) *timingWheel { return &timingWheel{elapsed: tick} }

// filedCount counts the timers filed in w.
func filedCount(w *timingWheel) int {
	n := 0
	for t := w.overflow; t != nil; t = t.next {
		n++
	}
	for l := range w.levels {
		for _, head := range w.levels[l].slots {
			for t := head; t != nil; t = t.next {
				n++
			}
		}
	}
	return n
}

// TestLevelFor: wheel.go's examples of where a timer is filed and how it
// moves down as the wheel advances.
func TestLevelFor(t *testing.T) {
	tests := []struct {
		elapsed, when   int64
		level           int
		slot, slotStart int64
	}{
		{1000, 1010, 0, 50, 1010},
		{1000, 1040, 1, 16, 1024},
		{1000, 11000, 2, 2, 8192},
		{1024, 1040, 0, 16, 1040},
		{8192, 11000, 1, 43, 10944},
		{10944, 11000, 0, 56, 11000},
		{0, 1 << 36, wheelLevels, 0, 1 << 36}, // beyond the top level: the overflow list
	}
	for _, tc := range tests {
		w := newWheelAt(tc.elapsed)
		var tm wheelTimer
		if !w.schedule(&tm, tc.when) {
			t.Fatalf("schedule(%d) at %d refused", tc.when, tc.elapsed)
		}
		if got := levelFor(tc.elapsed, tc.when); got != tc.level {
			t.Errorf("levelFor(%d, %d) = %d, want %d", tc.elapsed, tc.when, got, tc.level)
		}
		start, _ := w.next()
		if int(tm.level) != min(tc.level, overflowLevel) || int64(tm.slot) != tc.slot || start != tc.slotStart {
			t.Errorf("tick %d at %d: filed on level %d slot %d starting at %d, want level %d slot %d starting at %d",
				tc.when, tc.elapsed, tm.level, tm.slot, start, tc.level, tc.slot, tc.slotStart)
		}
	}
}
