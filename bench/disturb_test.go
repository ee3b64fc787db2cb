package bench

import (
	"testing"
	"time"
)

func TestMaxStallIn(t *testing.T) {
	ms := int64(time.Millisecond)
	stalls := []stall{{due: 100 * ms, late: 3 * ms}, {due: 200 * ms, late: 40 * ms}, {due: 500 * ms, late: 9 * ms}}
	for _, tc := range []struct {
		name     string
		from, to int64
		want     time.Duration
	}{
		{"none in span", 300 * ms, 400 * ms, 0},
		{"one inside", 90 * ms, 150 * ms, 3 * time.Millisecond},
		{"the longest of several", 0, 1000 * ms, 40 * time.Millisecond},
		{"a stall that began before the span and ends in it", 230 * ms, 300 * ms, 40 * time.Millisecond},
		{"a stall that began in the span and ends after it", 150 * ms, 210 * ms, 40 * time.Millisecond},
		{"a stall that ended just before the span", 241 * ms, 499 * ms, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := maxStallIn(stalls, tc.from, tc.to); got != tc.want {
				t.Errorf("maxStallIn(%d, %d) = %v, want %v", tc.from, tc.to, got, tc.want)
			}
		})
	}
}

func TestCountIn(t *testing.T) {
	ends := []uint64{10, 20, 30}
	for _, tc := range []struct {
		from, to int64
		want     int
	}{
		{0, 5, 0},
		{10, 30, 3},
		{11, 29, 1},
		{31, 100, 0},
	} {
		if got := countIn(ends, tc.from, tc.to); got != tc.want {
			t.Errorf("countIn(%d, %d) = %d, want %d", tc.from, tc.to, got, tc.want)
		}
	}
}
