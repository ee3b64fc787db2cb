package bench

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	remote "k8s.io/cri-client/pkg"
)

func TestExecModel(t *testing.T) {
	const ms = time.Millisecond
	// exec is one exec: when it starts, its timeout, and when its context ends
	// (0: never).
	type exec struct {
		at, timeout, cancelAt time.Duration
	}
	type result struct {
		took     time.Duration
		timedOut bool
		canceled bool
	}
	n := func(k int, e exec) []exec {
		s := make([]exec, k)
		for i := range s {
			s[i] = e
		}
		return s
	}
	// ok is the result of an exec that returns in time with k execs in flight:
	// 176 ms + k × 35 ms / 2 cores.
	ok := func(k int) result { return result{took: 176*ms + time.Duration(k)*35*ms/2} }
	for _, tc := range []struct {
		name  string
		execs []exec // by start
		want  []result
	}{
		{
			name:  "idle: the base and one exec's share of the CPU",
			execs: []exec{{timeout: time.Second}},
			want:  []result{ok(1)},
		},
		{
			name:  "one after another returned: idle again",
			execs: []exec{{timeout: time.Second}, {at: 500 * ms, timeout: time.Second}},
			want:  []result{ok(1), ok(1)},
		},
		{
			name:  "one while another is in flight: both count",
			execs: []exec{{timeout: time.Second}, {at: 100 * ms, timeout: time.Second}},
			want:  []result{ok(1), ok(2)},
		},
		{
			name:  "ten at once: each slower than the one before",
			execs: n(10, exec{timeout: time.Second}),
			want:  []result{ok(1), ok(2), ok(3), ok(4), ok(5), ok(6), ok(7), ok(8), ok(9), ok(10)},
		},
		{
			name:  "47 at once: the last meets a 1 s timeout (998.5 ms)",
			execs: n(47, exec{timeout: time.Second}),
			want: func() (r []result) {
				for k := 1; k <= 47; k++ {
					r = append(r, ok(k))
				}
				return r
			}(),
		},
		{
			name:  "48 at once: the last would take 1016 ms and times out at 1 s",
			execs: n(48, exec{timeout: time.Second}),
			want: func() (r []result) {
				for k := 1; k <= 47; k++ {
					r = append(r, ok(k))
				}
				return append(r, result{took: time.Second, timedOut: true})
			}(),
		},
		{
			name: "a timed-out exec holds its place until its timeout",
			execs: []exec{
				{timeout: 200 * ms}, {timeout: 200 * ms}, // 193.5 ms; 211 ms: times out at 200 ms
				{at: 199 * ms, timeout: time.Second}, // the second still in flight
				{at: 201 * ms, timeout: time.Second}, // both gone, the third in flight
			},
			want: []result{ok(1), {took: 200 * ms, timedOut: true}, ok(2), ok(2)},
		},
		{
			name:  "a shorter timeout times out sooner",
			execs: []exec{{timeout: 150 * ms}},
			want:  []result{{took: 150 * ms, timedOut: true}},
		},
		{
			name:  "an exec whose context ends returns then and leaves",
			execs: []exec{{timeout: time.Second, cancelAt: 50 * ms}, {at: 60 * ms, timeout: time.Second}},
			want:  []result{{took: 50 * ms, canceled: true}, ok(1)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := newExecModel()
				got := make([]result, len(tc.execs))
				epoch := time.Now()
				var wg sync.WaitGroup
				for i, e := range tc.execs {
					time.Sleep(e.at - time.Since(epoch))
					wg.Go(func() {
						ctx := context.Background()
						if e.cancelAt > 0 {
							var cancel context.CancelFunc
							ctx, cancel = context.WithCancel(ctx)
							time.AfterFunc(e.cancelAt, cancel)
						}
						start := time.Now()
						err := m.exec(ctx, []string{"probe", "readiness"}, e.timeout)
						got[i] = result{took: time.Since(start), timedOut: errors.Is(err, remote.ErrCommandTimedOut), canceled: errors.Is(err, context.Canceled)}
						if err != nil && !got[i].timedOut && !got[i].canceled {
							t.Errorf("exec %d: %v", i, err)
						}
					})
					synctest.Wait() // in flight before the next starts: the table's order
				}
				wg.Wait()
				var timedOut, ran int64
				for i, r := range got {
					if r != tc.want[i] {
						t.Errorf("exec %d: %+v, want %+v", i, r, tc.want[i])
					}
					switch {
					case r.timedOut:
						timedOut++
					case !r.canceled:
						ran++
					}
				}
				if m.timedOut.Load() != timedOut || m.ran.Load() != ran {
					t.Errorf("counted %d timed out and %d returned in time, want %d and %d", m.timedOut.Load(), m.ran.Load(), timedOut, ran)
				}
				if m.inFlight != 0 {
					t.Errorf("%d execs still in flight after every exec returned", m.inFlight)
				}
			})
		})
	}
}
