package main

import (
	"slices"
	"testing"
	"time"
)

func TestFlipSpans(t *testing.T) {
	s := time.Second
	span := func(from, to time.Duration) [2]time.Duration { return [2]time.Duration{from * s, to * s} }
	cases := []struct {
		name                  string
		window, period, cycle time.Duration
		want                  [][2]time.Duration
	}{
		// 60 s @1 s: 15 s + 5 s of failure, Ready due at 21 s, 10 s to spare.
		{"once", 60 * s, s, 0, [][2]time.Duration{span(15, 20)}},
		// 24 s @1 s: 6 s + 5 s of failure, then 3 periods and 10 s: exactly the window.
		{"once, exactly long enough", 24 * s, s, 0, [][2]time.Duration{span(6, 11)}},
		{"too short for one", 23 * s, s, 0, nil},
		// The fourth span, from 45 s, would end 2 s too late.
		{"every 10 s", 60 * s, s, 10 * s, [][2]time.Duration{span(15, 20), span(25, 30), span(35, 40)}},
		// 130 s @10 s: the second span would end at 162.5 s, after the window.
		{"every 80 s, one fits", 130 * s, 10 * s, 80 * s, [][2]time.Duration{{32500 * time.Millisecond, 82500 * time.Millisecond}}},
		{"every 80 s, a long window", 800 * s, 10 * s, 80 * s, [][2]time.Duration{span(200, 250), span(280, 330),
			span(360, 410), span(440, 490), span(520, 570), span(600, 650), span(680, 730)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := flipSpans(c.window, c.period, c.cycle)
			if !slices.Equal(got, c.want) {
				t.Errorf("flipSpans(%v, %v, %v) = %v, want %v", c.window, c.period, c.cycle, got, c.want)
			}
			for i, sp := range got {
				if sp[1]-sp[0] != flipFor(c.period) {
					t.Errorf("span %d lasts %v, want %v", i, sp[1]-sp[0], flipFor(c.period))
				}
			}
		})
	}
}

// TestCheckWheel: only probewheel's scheduler observes its lateness
// histogram, so a run whose kubelet does not match its flavor fails.
func TestCheckWheel(t *testing.T) {
	cases := []struct {
		flavor           string
		noWheel, observe bool
		wantErr          bool
	}{
		{"stock", false, false, false},
		{"stock", false, true, true}, // a patched binary measured as stock
		{"probewheel", false, true, false},
		{"probewheel", false, false, true}, // stock's binary, or the gate off
		{"probewheel", true, false, false}, // the AfterFunc arm
		{"probewheel", true, true, true},   // -no-wheel on the scheduler's binary
	}
	for _, c := range cases {
		err := checkWheel(c.flavor, c.noWheel, c.observe)
		if (err != nil) != c.wantErr {
			t.Errorf("checkWheel(%q, no-wheel %v, observed %v) = %v, want an error: %v", c.flavor, c.noWheel, c.observe, err, c.wantErr)
		}
	}
}
