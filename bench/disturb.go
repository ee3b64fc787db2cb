package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// Disturbances neither prober causes, measured over the span whose intervals
// a window counts: from one period before the window (the interval that
// crosses the window's start begins there) to its end. A period error of
// 30 ms is the scheduler's only if nothing else stopped the process then.
//
//   - GC cycles: with GOMAXPROCS=2 a mark phase can hold both Ps for
//     10–25 ms (golang/go#37116), so a timer fires that much late in any
//     goroutine. The runtime keeps the end time of its last 256 pauses.
//   - Host stalls: a separate process (the test binary re-executed with
//     envStallCanary=child) sleeps 1 ms in a loop and reports every wake-up
//     more than stallReport late. It runs SCHED_FIFO (chrt), so the
//     benchmark process's own threads, GC workers included, cannot delay
//     it: when it is late, the machine (the VM's vCPU, the kernel) stopped
//     everything. Without chrt, or without the privilege, it runs at normal
//     priority and also counts CPU contention; it says so on stderr.
//
// The canary is off unless PROBEWHEEL_BENCH_STALL_CANARY=1: its thousand
// wake-ups a second are small but are not nothing on a 2-core machine.
const envStallCanary = "PROBEWHEEL_BENCH_STALL_CANARY"

// stallReport: the canary reports wake-ups later than this. A 1 ms sleep on
// an idle Linux machine wakes within ~100 µs; the tick is 4 ms.
const stallReport = 2 * time.Millisecond

// stall is one late wake-up of the canary: it should have woken at due
// (Unix ns) and woke late ns after.
type stall struct{ due, late int64 }

// stallCanary is the benchmark process's handle on the canary process.
type stallCanary struct {
	cmd *exec.Cmd
	in  io.WriteCloser

	mu     sync.Mutex
	stalls []stall
}

// startStallCanary starts the canary process if the knob asks for it; nil
// otherwise.
func startStallCanary() (*stallCanary, error) {
	if os.Getenv(envStallCanary) != "1" {
		return nil, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	if chrt, err := exec.LookPath("chrt"); err == nil && exec.Command(chrt, "-f", "10", "true").Run() == nil {
		cmd = exec.Command(chrt, "-f", "10", exe)
	} else {
		fmt.Fprintln(os.Stderr, "bench: stall canary: chrt -f unavailable; it runs at normal priority and counts CPU contention too")
	}
	cmd.Env = append(os.Environ(), envStallCanary+"=child")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &stallCanary{cmd: cmd, in: in}
	go c.read(out)
	return c, nil
}

func (c *stallCanary) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var s stall
		if _, err := fmt.Sscan(sc.Text(), &s.due, &s.late); err != nil {
			continue
		}
		c.mu.Lock()
		c.stalls = append(c.stalls, s)
		c.mu.Unlock()
	}
}

// maxIn is the longest stall that overlaps [from, to] (Unix ns).
func (c *stallCanary) maxIn(from, to int64) time.Duration {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return maxStallIn(c.stalls, from, to)
}

func maxStallIn(stalls []stall, from, to int64) time.Duration {
	var m int64
	for _, s := range stalls {
		if s.due <= to && s.due+s.late >= from {
			m = max(m, s.late)
		}
	}
	return time.Duration(m)
}

// runStallCanary is the canary process's main. Its stdout carries
// "<due Unix ns> <late ns>" lines; it exits when stdin closes.
func runStallCanary() {
	runtime.GOMAXPROCS(1)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	w := bufio.NewWriter(os.Stdout)
	for {
		due := time.Now().Add(time.Millisecond)
		time.Sleep(time.Millisecond)
		if late := time.Since(due); late > stallReport {
			w.WriteString(strconv.FormatInt(due.UnixNano(), 10) + " " + strconv.FormatInt(int64(late), 10) + "\n")
			w.Flush()
		}
	}
}

// gcMarkSlack: a GC cycle whose stop-the-world end falls this long after a
// span may have been marking during it. Mark phases at the benchmark's heap
// sizes last tens of milliseconds (gctrace at 30,000 probes).
const gcMarkSlack = 200 * time.Millisecond

// gcEndsIn counts the GC cycles whose stop-the-world end falls in
// [from, to] (Unix ns), of the runtime's last 256.
func gcEndsIn(from, to int64) int {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return countIn(ms.PauseEnd[:min(int(ms.NumGC), len(ms.PauseEnd))], from, to)
}

func countIn(ends []uint64, from, to int64) int {
	n := 0
	for _, e := range ends {
		if int64(e) >= from && int64(e) <= to {
			n++
		}
	}
	return n
}

// isStallCanary reports whether this process is the canary.
func isStallCanary() bool { return os.Getenv(envStallCanary) == "child" }

var (
	canaryOnce sync.Once
	canary     *stallCanary
)

// getStallCanary starts the canary once per benchmark process; it exits
// when this process does (its stdin closes).
func getStallCanary() *stallCanary {
	canaryOnce.Do(func() {
		var err error
		if canary, err = startStallCanary(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: stall canary: %v\n", err)
		}
	})
	return canary
}
