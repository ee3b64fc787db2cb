package parity

import (
	"fmt"
	"strings"
	"time"
)

// An API sequence is what FuzzDifferential plays against every manager: up
// to maxOps calls of the Manager interface and changes of the world the
// probes see (container restarts, targets that flip, hang, error or panic),
// each at its own instant of fake time.
//
// Timing discipline. Upstream's worker picks at random among channels that
// are ready at the same instant; a sequence must never let that randomness
// decide an outcome the comparison looks at. Every period and every hang is
// a whole number of seconds, and op i happens at a whole second plus its
// offset, which is distinct from every other op's. Probe runs start only
// when a pod is added, on ticks of a grid that starts at a run, at the end
// of a run, or on a manual trigger, so every run starts and ends at a whole
// second plus the offset of the op that added the pod or triggered the run,
// and no op ever lands on the instant a tick falls due or a run starts or
// ends. What randomness remains is at the end of a run, when a stop, a tick
// or a trigger that arrived during the run are ready together;
// compare_test.go finds those points and explains them by doc.go's
// differences.
//
// Where an op lands (op.place) is what probewheel's ticks see. On a tick
// (i+1)·opSpacing from the manager's start, a run the op starts is due on a
// tick of the wheel, where probewheel starts it at the instant upstream
// does. Off a tick (a millisecond later), probewheel starts it on the next
// tick, up to schedulerTick late (doc.go). In the shadow of an earlier op
// that starts runs (AddPod, UpdatePodStatus), the op lands a millisecond
// after that op's offset, in a later second: between the due time of a run
// on that op's grid and the tick probewheel starts it on, where a trigger, a
// stop or a change of the world must not change which runs happen. With the
// AddPod right before it, an UpdatePodStatus, StopLivenessAndStartup,
// RemovePod or CleanupPods lands at that instant, while the new workers'
// first runs begin (upstream's worker takes the trigger or the stop after
// its first run, whichever goroutine goes first); any other op lands off a
// tick instead, since a change of the world at that instant would race the
// first runs.

// kind is a probe type, in the order AddPod starts a container's workers.
type kind uint8

const (
	startupKind kind = iota
	readinessKind
	livenessKind
	numKinds
)

func (k kind) String() string { return [...]string{"startup", "readiness", "liveness"}[k] }

// probeParams are one probe's spec; a zero period means no probe.
type probeParams struct{ period, success, failure, delay int32 }

type ctrSpec struct {
	sidecar bool // a restartable init container
	probes  [numKinds]probeParams
}

func (c ctrSpec) has(k kind) bool { return c.probes[k].period > 0 }

type podSpec struct{ ctrs []ctrSpec }

type opKind uint8

const (
	opAdd     opKind = iota // AddPod: a new pod in the slot, or the slot's pod again
	opUpdate                // UpdatePodStatus, then the kubelet writes the status back
	opStopLS                // StopLivenessAndStartup
	opRemove                // RemovePod
	opCleanup               // CleanupPods with the pods of the slots in mask desired
	opRestart               // the runtime restarted a container: a new container ID
	opTarget                // a probe's target changes what it answers
	numOps
)

var opNames = [...]string{"AddPod", "UpdatePodStatus", "StopLivenessAndStartup", "RemovePod", "CleanupPods", "RestartContainer", "Target"}

// opCodes maps an op's first byte (mod 16) to its kind, weighting the kinds;
// canonical is the code encode writes.
var (
	opCodes   = [16]opKind{opAdd, opAdd, opAdd, opUpdate, opUpdate, opUpdate, opStopLS, opRemove, opCleanup, opRestart, opRestart, opTarget, opTarget, opTarget, opTarget, opTarget}
	canonical = [numOps]byte{0, 3, 6, 7, 8, 9, 11}
)

// mode is what a probe's handler does when it is run.
type mode uint8

const (
	modeOK      mode = iota
	modeFail         // exits 1: Failure
	modeTimeout      // the CRI's "command timed out": Failure
	modeError        // any other error: the prober retries, then drops the result
	modePanic        // the handler panics; doProbe recovers
	numModes
)

var modeNames = [...]string{"ok", "fail", "timeout", "error", "panic"}

// hangs are the durations a handler can take; longer than every period
// (1-4 s) at the top, so runs overrun.
var hangs = [...]time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second, 5 * time.Second}

const (
	numSlots  = 3
	maxOps    = 48
	maxDelay  = 6 // whole seconds between ops: 0..maxDelay-1
	opSpacing = 8 * time.Millisecond
	// Off a tick, an op lands offTick plus i·placeStep after its place: a
	// tick's first millisecond, distinct for every op.
	offTick   = time.Millisecond
	placeStep = 10 * time.Microsecond
	// startAfter is when the first op may happen: past the restart window of
	// the longest period (4 s), so no worker sleeps a random part of its
	// period (doc.go's golden-ratio spread applies only within it).
	startAfter = 10 * time.Second
	// settle is how long the sequence runs after its last op.
	settle = 12 * time.Second
)

// place is where in its second an op lands.
type place uint8

const (
	onTheGrid place = iota
	offTickPlace
	shadow
	withAdd // at the instant of the AddPod just before, at its first runs
	numPlaces
)

var placeNames = [...]string{"", " (off a tick)", " (in a due window)", " (with the AddPod)"}

type op struct {
	kind  opKind
	delay int // whole seconds after the previous op's whole second
	place place
	slot  int
	fresh bool    // opAdd: a new pod even if the slot holds one
	spec  podSpec // opAdd, used when a new pod is made
	mask  uint8   // opCleanup
	ctr   int     // opRestart, opTarget
	probe kind    // opTarget
	mode  mode    // opTarget
	hang  int     // opTarget: index in hangs
}

// sequence is a decoded fuzz input.
type sequence struct{ ops []op }

// at is when op i happens, since the runner's t0 (the manager's start plus
// startAfter): its whole second plus its offset, a second later while that
// is not after the op before it (an op in the shadow of an earlier one may
// have a smaller offset than the one before it).
func (s sequence) at(i int) time.Duration {
	var at, prev time.Duration = 0, -1
	secs := 0
	for j, o := range s.ops[:i+1] {
		secs += o.delay
		at = time.Duration(secs)*time.Second + s.offset(j)
		for at < prev || at == prev && s.offset(j) != s.offset(j-1) {
			at += time.Second
		}
		prev = at
	}
	return at
}

// offset is where in its second op i lands.
func (s sequence) offset(i int) time.Duration {
	switch s.ops[i].place {
	case offTickPlace:
		return offTheTick(time.Duration(i+1)*opSpacing + offTick + time.Duration(i)*placeStep)
	case withAdd:
		if k := s.ops[i].kind; i > 0 && s.ops[i-1].kind == opAdd && s.ops[i].delay == 0 &&
			(k == opUpdate || k == opStopLS || k == opRemove || k == opCleanup) {
			return s.offset(i - 1)
		}
		return offTheTick(time.Duration(i+1)*opSpacing + offTick + time.Duration(i)*placeStep)
	case shadow:
		for j := i - 1; j >= 0; j-- {
			if k := s.ops[j].kind; k == opAdd || k == opUpdate {
				return offTheTick(s.offset(j) + offTick + time.Duration(i)*placeStep)
			}
		}
		return offTheTick(time.Duration(i+1)*opSpacing + offTick + time.Duration(i)*placeStep)
	}
	return time.Duration(i+1) * opSpacing
}

// offTheTick moves an op meant to land off a tick, which a chain of due
// windows can bring onto one, half a placeStep later: at a tick's instant,
// runs of the oracle and probewheel start that the op races in either, so
// that neither is deterministic there.
func offTheTick(d time.Duration) time.Duration {
	if d%wheelTick == 0 {
		return d + placeStep/2
	}
	return d
}

// end is when the comparison stops looking: settle after the last op, at an
// offset no op uses.
func (s sequence) end() time.Duration {
	n := len(s.ops)
	return s.at(n-1).Truncate(time.Second) + settle + time.Duration(n+1)*opSpacing
}

// reader hands out a fuzz input's bytes, zeros past its end.
type reader struct {
	b []byte
	i int
}

func (r *reader) next() byte {
	if r.i >= len(r.b) {
		r.i++
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *reader) done() bool { return r.i >= len(r.b) }

// decode turns any byte string into a valid sequence. Each op takes four
// bytes [code, delay, a, b]; an AddPod nine more for the pod it may create.
func decode(data []byte) sequence {
	r := &reader{b: data}
	var s sequence
	for !r.done() && len(s.ops) < maxOps {
		o := op{kind: opCodes[r.next()%16]}
		d := r.next()
		o.delay, o.place = int(d%maxDelay), place(d/maxDelay%byte(numPlaces))
		a, b := r.next(), r.next()
		switch o.kind {
		case opAdd:
			o.slot, o.fresh = slotOf(a), a&4 != 0
			o.spec = decodeSpec(r)
		case opUpdate, opStopLS, opRemove:
			o.slot = slotOf(a)
		case opCleanup:
			o.mask = a & (1<<numSlots - 1)
		case opRestart:
			o.slot, o.ctr = slotOf(a), int(b%2)
		case opTarget:
			o.slot, o.ctr, o.probe = slotOf(a), int(a>>2&1), kind(a>>3%3)
			o.mode, o.hang = mode(b%byte(numModes)), int(b/byte(numModes)%byte(len(hangs)))
		}
		s.ops = append(s.ops, o)
	}
	return s
}

// slotOf is the slot an op's a byte names in its low two bits.
func slotOf(a byte) int { return int(a & 3 % numSlots) }

// decodeSpec reads a pod: [containers, flags0, startup0, readiness0,
// liveness0, flags1, ...1]. The first container is a regular one; the
// second, if any, may be a sidecar. flags: bit 0 sidecar, bits 1-3 which
// probes. A probe byte: period 1-4 s (bits 0-1), successThreshold 1-3
// (readiness only; the API requires 1 for the others), failureThreshold
// 1-3, initialDelaySeconds 0-2.
func decodeSpec(r *reader) podSpec {
	n := 1 + int(r.next()%2)
	var spec podSpec
	for c := 0; c < 2; c++ {
		flags := r.next()
		ctr := ctrSpec{sidecar: c > 0 && flags&1 != 0}
		for k := range numKinds {
			p := r.next()
			if flags>>(1+k)&1 == 0 {
				continue
			}
			pp := probeParams{period: 1 + int32(p&3), success: 1, failure: 1 + int32(p>>4&3%3), delay: int32(p >> 6 % 3)}
			if k == readinessKind {
				pp.success = 1 + int32(p>>2&3%3)
			}
			ctr.probes[k] = pp
		}
		if c < n {
			spec.ctrs = append(spec.ctrs, ctr)
		}
	}
	return spec
}

// encode is decode's inverse, for seeds written as ops.
func encode(s sequence) []byte {
	var out []byte
	for _, o := range s.ops {
		var a, b byte
		switch o.kind {
		case opAdd:
			a = byte(o.slot)
			if o.fresh {
				a |= 4
			}
		case opUpdate, opStopLS, opRemove:
			a = byte(o.slot)
		case opCleanup:
			a = o.mask
		case opRestart:
			a, b = byte(o.slot), byte(o.ctr)
		case opTarget:
			a = byte(o.slot) | byte(o.ctr)<<2 | byte(o.probe)<<3
			b = byte(o.mode) + byte(numModes)*byte(o.hang)
		}
		out = append(out, canonical[o.kind], byte(o.delay)+maxDelay*byte(o.place), a, b)
		if o.kind == opAdd {
			out = append(out, encodeSpec(o.spec)...)
		}
	}
	return out
}

func encodeSpec(spec podSpec) []byte {
	out := []byte{byte(max(len(spec.ctrs), 1) - 1)}
	for c := 0; c < 2; c++ {
		var ctr ctrSpec
		if c < len(spec.ctrs) {
			ctr = spec.ctrs[c]
		}
		var flags byte
		if ctr.sidecar {
			flags = 1
		}
		probes := make([]byte, numKinds)
		for k := range numKinds {
			if !ctr.has(k) {
				continue
			}
			p := ctr.probes[k]
			flags |= 1 << (1 + k)
			probes[k] = byte(p.period-1) | byte(p.success-1)<<2 | byte(p.failure-1)<<4 | byte(p.delay)<<6
		}
		out = append(out, flags)
		out = append(out, probes...)
	}
	return out
}

func (s sequence) String() string {
	var b strings.Builder
	for i, o := range s.ops {
		fmt.Fprintf(&b, "  %9.5fs %s%s\n", s.at(i).Seconds(), o, placeNames[o.place])
	}
	fmt.Fprintf(&b, "  %8.3fs end", s.end().Seconds())
	return b.String()
}

func (o op) String() string {
	name := opNames[o.kind]
	switch o.kind {
	case opAdd:
		fresh := ""
		if o.fresh {
			fresh = " fresh"
		}
		return fmt.Sprintf("%s slot %d%s %s", name, o.slot, fresh, o.spec)
	case opCleanup:
		return fmt.Sprintf("%s desired slots %03b", name, o.mask)
	case opRestart:
		return fmt.Sprintf("%s slot %d container %d", name, o.slot, o.ctr)
	case opTarget:
		return fmt.Sprintf("%s slot %d container %d %s: %s after %v", name, o.slot, o.ctr, o.probe, modeNames[o.mode], hangs[o.hang])
	default:
		return fmt.Sprintf("%s slot %d", name, o.slot)
	}
}

func (s podSpec) String() string {
	var parts []string
	for i, c := range s.ctrs {
		desc := ctrName(i, c)
		for k := range numKinds {
			if p := c.probes[k]; c.has(k) {
				desc += fmt.Sprintf(" %s(p%d s%d f%d d%d)", k, p.period, p.success, p.failure, p.delay)
			}
		}
		parts = append(parts, desc)
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// ctrName names container i of a pod: c0, c1 or, for a sidecar, s1.
func ctrName(i int, c ctrSpec) string {
	if c.sidecar {
		return fmt.Sprintf("s%d", i)
	}
	return fmt.Sprintf("c%d", i)
}
