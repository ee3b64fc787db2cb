package bench

import (
	"math"
	"testing"
)

func TestHistogramQuantileBound(t *testing.T) {
	bounds := []float64{0.001, 0.005, 0.025, math.Inf(1)}
	before := histogram{bounds: bounds, counts: []uint64{10, 10, 10, 10}}
	tests := []struct {
		name   string
		counts []uint64 // cumulative, after
		q      float64
		want   float64 // ms
	}{
		{"nothing observed", []uint64{10, 10, 10, 10}, 0.99, 0},
		{"all within 1 ms", []uint64{110, 110, 110, 110}, 0.99, 1},
		{"p99 in the 5 ms bucket", []uint64{108, 110, 110, 110}, 0.99, 5},
		{"p99 within 1 ms, one slow", []uint64{109, 109, 109, 110}, 0.99, 1},
		{"max beyond the last bound", []uint64{109, 109, 109, 110}, 1, math.Inf(1)},
		{"max in the 25 ms bucket", []uint64{50, 60, 70, 70}, 1, 25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := histogram{bounds: bounds, counts: tc.counts}.since(before)
			sum := histogram{}.add(d)
			if got := sum.quantileBound(tc.q); got != tc.want {
				t.Errorf("quantileBound(%v) = %v, want %v (counts %v)", tc.q, got, tc.want, d.counts)
			}
		})
	}
}
