//go:build linux

package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	_ "unsafe" // go:linkname

	remote "k8s.io/cri-client/pkg"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// Probe kinds. A target is one (pod, container, kind); its index is
// (pod*containers + container)*nKinds + kind.
const (
	kLive  = 0
	kReady = 1
	kStart = 2
	nKinds = 3
)

var kindNames = [nKinds]string{"liveness", "readiness", "startup"}

// initialResult is the worker's initial value per kind (worker.go newWorker).
var initialResult = [nKinds]results.Result{results.Success, results.Failure, results.Unknown}

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// nowNs is CLOCK_MONOTONIC in nanoseconds: the same clock in the benchmark process and
// in the target-server process, so their timestamps compare directly.
func nowNs() int64 { return nanotime() }

// hangMax bounds how long a hung target holds a probe (probe timeout is 1 s).
const hangMax = 3 * time.Second

// targets records, per probe target, the arrival time of every probe (a ring of the
// latest ringCap arrivals), the first arrival, what it answered, and its health knobs.
// It lives in a shared memory mapping so that the target-server process (HTTP, TCP and
// gRPC targets) and the benchmark process (exec targets, analysis) see the same data.
//
// Layout: header [16]int64 | cnt [n]uint32 (padded) | fail [n]uint32 | hung [n]uint32 |
// first [n]int64 | acct [n]uint64 | ring [n<<bits]int64.
type targets struct {
	n     int
	bits  uint
	C     int
	path  string // backing file (removed once both sides mapped it)
	mem   []byte
	hdr   []int64
	cnt   []atomic.Uint32
	fail  []atomic.Uint32 // non-zero: answer Failure instead of Success
	hung  []uint32        // non-zero: hold the probe until the prober gives up; fixed before start
	first []atomic.Int64
	acct  []atomic.Uint64 // packed threshold replay, see answer
	buf   []atomic.Int64
}

const (
	tgMagic   = 0x70726f6265776831 // "probewh1"
	hdrWords  = 16
	hMagic    = 0
	hN        = 1
	hBits     = 2
	hC        = 3
	hThresh   = 4 // 6 words: {success, failure} per kind
	maxRunCnt = 1<<28 - 1
)

func layout(n int, bits uint) (cntOff, failOff, hungOff, firstOff, acctOff, bufOff, size int) {
	pad8 := func(x int) int { return (x + 7) &^ 7 }
	cntOff = hdrWords * 8
	failOff = cntOff + pad8(4*n)
	hungOff = failOff + pad8(4*n)
	firstOff = hungOff + pad8(4*n)
	acctOff = firstOff + 8*n
	bufOff = acctOff + 8*n
	size = bufOff + 8*(n<<bits)
	return
}

func view[T any](mem []byte, off, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&mem[off])), n)
}

// newTargets creates the shared mapping for n targets (ring ≥ ringCap arrivals each).
func newTargets(n, ringCap, containers int, thresh [nKinds][2]int32) (*targets, error) {
	bits := uint(4)
	for 1<<bits < ringCap {
		bits++
	}
	_, _, _, _, _, _, size := layout(n, bits)
	dir := "/dev/shm"
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, "probewheel-bench-*")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := f.Truncate(int64(size)); err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	t := mapTargets(mem, n, bits)
	t.path = f.Name()
	t.hdr[hN], t.hdr[hBits], t.hdr[hC] = int64(n), int64(bits), int64(containers)
	for k := 0; k < nKinds; k++ {
		t.hdr[hThresh+2*k], t.hdr[hThresh+2*k+1] = int64(thresh[k][0]), int64(thresh[k][1])
	}
	for i := 0; i < n; i++ {
		r := initialResult[i%nKinds]
		t.acct[i].Store(packAcct(r, r, 0, 0))
	}
	atomic.StoreInt64(&t.hdr[hMagic], tgMagic)
	t.C = containers
	return t, nil
}

// openTargets maps an existing targets file (the target-server side).
func openTargets(path string) (*targets, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	hdr := view[int64](mem, 0, hdrWords)
	if atomic.LoadInt64(&hdr[hMagic]) != tgMagic {
		syscall.Munmap(mem)
		return nil, fmt.Errorf("%s: not a targets file", path)
	}
	t := mapTargets(mem, int(hdr[hN]), uint(hdr[hBits]))
	t.C = int(hdr[hC])
	return t, nil
}

func mapTargets(mem []byte, n int, bits uint) *targets {
	cntOff, failOff, hungOff, firstOff, acctOff, bufOff, _ := layout(n, bits)
	return &targets{
		n: n, bits: bits, mem: mem,
		hdr:   view[int64](mem, 0, hdrWords),
		cnt:   view[atomic.Uint32](mem, cntOff, n),
		fail:  view[atomic.Uint32](mem, failOff, n),
		hung:  view[uint32](mem, hungOff, n),
		first: view[atomic.Int64](mem, firstOff, n),
		acct:  view[atomic.Uint64](mem, acctOff, n),
		buf:   view[atomic.Int64](mem, bufOff, n<<bits),
	}
}

func (t *targets) close() {
	if t.path != "" {
		os.Remove(t.path)
	}
	if t.mem != nil {
		syscall.Munmap(t.mem)
		t.mem = nil
	}
}

func (t *targets) ringCap() int { return 1 << t.bits }

// arrive records a probe arrival and returns how the target should answer.
func (t *targets) arrive(i int) (fail, hung bool) {
	ts := nowNs()
	c := t.cnt[i].Add(1) - 1
	t.buf[i<<t.bits+int(c&(1<<t.bits-1))].Store(ts)
	if c == 0 {
		t.first[i].Store(ts)
	}
	if tracingArrivals.Load() {
		logArrival(i)
	}
	return t.fail[i].Load() != 0, t.hung[i] != 0
}

func resBits(r results.Result) uint64 { return uint64(r + 1) } // Unknown -1 → 0, Success → 1, Failure → 2
func bitsRes(b uint64) results.Result { return results.Result(b) - 1 }

func packAcct(last, state results.Result, run, expected uint64) uint64 {
	return resBits(last) | resBits(state)<<2 | run<<4 | expected<<32
}

// answer records the result the target returned. It replays the worker's threshold
// counting (worker.go doProbe), which gives the result transitions the Updates()
// channels must show.
func (t *targets) answer(i int, r results.Result) {
	k := i % nKinds
	th := t.hdr[hThresh+2*k+1]
	if r == results.Success {
		th = t.hdr[hThresh+2*k]
	}
	for {
		old := t.acct[i].Load()
		last, state := bitsRes(old&3), bitsRes(old>>2&3)
		run, exp := old>>4&maxRunCnt, old>>32
		if last == r {
			if run < maxRunCnt {
				run++
			}
		} else {
			last, run = r, 1
		}
		if int64(run) >= th && state != r {
			state = r
			exp++
		}
		if t.acct[i].CompareAndSwap(old, packAcct(last, state, run, exp)) {
			return
		}
	}
}

func (t *targets) expected(i int) int32 { return int32(t.acct[i].Load() >> 32) }

// arrivals appends target i's recorded arrivals (oldest first) to dst.
func (t *targets) arrivals(i int, dst []int64) []int64 {
	c := int(t.cnt[i].Load())
	lo := 0
	if c > t.ringCap() {
		lo = c - t.ringCap()
	}
	base := i << t.bits
	mask := t.ringCap() - 1
	start := len(dst)
	for k := lo; k < c; k++ {
		v := t.buf[base+k&mask].Load()
		if v == 0 { // slot reserved but not yet written
			continue
		}
		dst = append(dst, v)
	}
	// Arrivals of one target are serialized by its worker; sort in case two overlapped.
	s := dst[start:]
	for a := 1; a < len(s); a++ {
		for b := a; b > 0 && s[b] < s[b-1]; b-- {
			s[b], s[b-1] = s[b-1], s[b]
		}
	}
	return dst
}

// podIP gives pod p of generation slot s a distinct loopback address 127.(16+s).x.y.
func podIP(slot, p int) string {
	return fmt.Sprintf("127.%d.%d.%d", 16+slot, p/254, p%254+1)
}

// ---- exec: a fake kubecontainer.CommandRunner per run (in the benchmark process) ----

type execRunner struct {
	tg      *targets
	latency time.Duration
	// model, if not nil, is the runtime the execs share (execmodel.go), in
	// place of latency.
	model  *execModel
	closed atomic.Bool
}

// RunInContainer identifies the probe by container ID ("<slot>-<container index>")
// and command ("probe <kind>").
func (e *execRunner) RunInContainer(ctx context.Context, id kubecontainer.ContainerID, cmd []string, timeout time.Duration) ([]byte, error) {
	if e.closed.Load() {
		return nil, errors.New("bench: run is over")
	}
	cidx, ok := parseCID(id.ID)
	if !ok || len(cmd) < 2 || len(cmd[1]) == 0 {
		return nil, fmt.Errorf("bench: unknown exec target %v %q", id, cmd)
	}
	k := kLive
	switch cmd[1][0] {
	case 'r':
		k = kReady
	case 's':
		k = kStart
	}
	i := cidx*nKinds + k
	tg := e.tg
	if i >= tg.n {
		return nil, fmt.Errorf("bench: exec target %d out of range", i)
	}
	fail, hung := tg.arrive(i)
	if hung {
		// A hung command: ExecSync returns when the CRI gives up at the timeout.
		tm := time.NewTimer(timeout)
		select {
		case <-tm.C:
		case <-ctx.Done():
			tm.Stop()
		}
		return nil, fmt.Errorf("%w: %q timed out after %s", remote.ErrCommandTimedOut, cmd, timeout)
	}
	if e.model != nil {
		if err := e.model.exec(ctx, cmd, timeout); err != nil {
			if errors.Is(err, remote.ErrCommandTimedOut) {
				tg.answer(i, results.Failure) // the exec prober's result for a timeout
			}
			return nil, err
		}
	} else if e.latency > 0 {
		time.Sleep(e.latency)
	}
	if fail {
		tg.answer(i, results.Failure)
		return nil, ExitFailure
	}
	tg.answer(i, results.Success)
	return nil, nil
}

// parseCID parses "<slot>-<container index>".
func parseCID(s string) (int, bool) {
	for j := 0; j < len(s); j++ {
		if s[j] == '-' {
			v, err := strconv.Atoi(s[j+1:])
			return v, err == nil
		}
	}
	return 0, false
}
