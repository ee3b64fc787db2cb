package parity

// Written seeds of FuzzDifferential: each aims at one part of the Manager's
// behaviour, and the ones named after a divergence make the analysis find it
// (TestAnalysisFindsDivergences).

// probe returns one probe's params.
func probe(period, success, failure, delay int32) probeParams {
	return probeParams{period, success, failure, delay}
}

// ctr builds a container spec; probes are startup, readiness, liveness (a
// zero probeParams: none).
func ctr(sidecar bool, startup, readiness, liveness probeParams) ctrSpec {
	return ctrSpec{sidecar: sidecar, probes: [numKinds]probeParams{startup, readiness, liveness}}
}

var none probeParams

// addPod adds a new pod with ctrs, or with none the slot's pod again.
func addPod(delay, slot int, fresh bool, ctrs ...ctrSpec) op {
	spec := podSpec{ctrs}
	if len(ctrs) == 0 {
		spec = decodeSpec(&reader{b: encodeSpec(spec)}) // what a duplicate's unused bytes decode to
	}
	return op{kind: opAdd, delay: delay, slot: slot, fresh: fresh, spec: spec}
}

func onSlot(k opKind, delay, slot int) op { return op{kind: k, delay: delay, slot: slot} }

func cleanup(delay int, mask uint8) op { return op{kind: opCleanup, delay: delay, mask: mask} }

func restart(delay, slot, c int) op { return op{kind: opRestart, delay: delay, slot: slot, ctr: c} }

func target(delay, slot, c int, k kind, m mode, hang int) op {
	return op{kind: opTarget, delay: delay, slot: slot, ctr: c, probe: k, mode: m, hang: hang}
}

type seed struct {
	name string
	seq  sequence
}

func seq(ops ...op) sequence { return sequence{ops} }

var seeds = []seed{
	{"duplicate AddPod and status syncs", seq(
		addPod(0, 0, false, ctr(false, none, probe(1, 2, 2, 0), probe(2, 1, 3, 0))),
		addPod(1, 1, false, ctr(false, probe(1, 1, 3, 0), probe(3, 1, 1, 0), probe(1, 1, 1, 1)), ctr(true, none, probe(2, 1, 1, 0), probe(2, 1, 2, 0))),
		onSlot(opUpdate, 1, 0),
		addPod(0, 0, false),
		onSlot(opUpdate, 2, 1),
		target(1, 0, 0, readinessKind, modeFail, 0),
		onSlot(opUpdate, 3, 0),
		target(0, 0, 0, readinessKind, modeOK, 0),
		onSlot(opUpdate, 0, 0),
		addPod(1, 1, false),
		onSlot(opUpdate, 2, 1),
		restart(1, 1, 0),
		onSlot(opUpdate, 0, 1),
		onSlot(opUpdate, 4, 1),
		addPod(1, 1, false),
		onSlot(opRemove, 2, 0),
		cleanup(3, 0b010),
		onSlot(opUpdate, 2, 1),
	)},
	{"restart decisions: liveness failures and new container IDs", seq(
		addPod(0, 0, false, ctr(false, none, none, probe(1, 1, 3, 0)), ctr(false, none, probe(2, 2, 1, 1), probe(2, 1, 1, 0))),
		target(2, 0, 0, livenessKind, modeFail, 0),
		target(5, 0, 1, livenessKind, modeTimeout, 0),
		restart(2, 0, 0),
		target(1, 0, 0, livenessKind, modeOK, 0),
		onSlot(opUpdate, 1, 0),
		restart(2, 0, 1),
		onSlot(opUpdate, 0, 0),
		target(3, 0, 1, livenessKind, modeOK, 0),
		restart(1, 0, 1),
		onSlot(opUpdate, 2, 0),
	)},
	{"startup probes gate the others", seq(
		addPod(0, 0, false, ctr(false, probe(1, 1, 3, 0), probe(1, 3, 1, 0), probe(2, 1, 1, 0))),
		target(0, 0, 0, startupKind, modeFail, 0),
		onSlot(opUpdate, 1, 0),
		target(1, 0, 0, startupKind, modeOK, 0),
		onSlot(opUpdate, 0, 0),
		onSlot(opUpdate, 2, 0),
		onSlot(opUpdate, 1, 0),
		target(3, 0, 0, startupKind, modeFail, 0),
		restart(1, 0, 0),
		onSlot(opUpdate, 3, 0),
		target(0, 0, 0, startupKind, modeOK, 0),
		onSlot(opUpdate, 3, 0),
	)},
	{"panicking and erroring handlers", seq(
		addPod(0, 0, false, ctr(false, none, probe(1, 1, 1, 0), probe(1, 1, 2, 0))),
		target(1, 0, 0, readinessKind, modePanic, 0),
		target(0, 0, 0, livenessKind, modeError, 0),
		onSlot(opUpdate, 2, 0),
		target(1, 0, 0, readinessKind, modeError, 1),
		target(0, 0, 0, livenessKind, modePanic, 2),
		onSlot(opUpdate, 4, 0),
		target(2, 0, 0, readinessKind, modeOK, 0),
		target(0, 0, 0, livenessKind, modeFail, 0),
		onSlot(opUpdate, 3, 0),
	)},
	{"sidecars", seq(
		addPod(0, 0, false, ctr(false, none, probe(2, 1, 1, 0), none), ctr(true, probe(1, 1, 2, 0), probe(1, 2, 1, 0), probe(1, 1, 1, 0))),
		onSlot(opUpdate, 2, 0),
		target(0, 0, 1, readinessKind, modeFail, 0),
		onSlot(opUpdate, 2, 0),
		onSlot(opStopLS, 1, 0),
		target(0, 0, 1, readinessKind, modeOK, 0),
		onSlot(opUpdate, 2, 0),
		restart(1, 0, 1),
		onSlot(opUpdate, 1, 0),
		onSlot(opRemove, 2, 0),
	)},
	{"churn: fresh pods and CleanupPods", seq(
		addPod(0, 0, false, ctr(false, none, probe(1, 1, 1, 0), probe(1, 1, 1, 0))),
		addPod(0, 1, false, ctr(false, none, probe(2, 1, 1, 0), none)),
		addPod(1, 2, false, ctr(false, none, none, probe(3, 1, 1, 0))),
		cleanup(2, 0b011),
		addPod(1, 2, true, ctr(false, none, probe(1, 1, 1, 0), probe(1, 1, 1, 0))),
		onSlot(opUpdate, 0, 2),
		addPod(1, 0, true, ctr(false, none, probe(1, 1, 1, 0), none)),
		cleanup(1, 0b101),
		onSlot(opUpdate, 1, 0),
		addPod(1, 1, true, ctr(false, none, probe(4, 1, 1, 0), probe(4, 1, 1, 0))),
		cleanup(5, 0b000),
	)},
	{"hung handlers overrun their period", seq(
		addPod(0, 0, false, ctr(false, none, probe(1, 1, 1, 0), probe(2, 1, 2, 0))),
		target(0, 0, 0, livenessKind, modeOK, 3),
		target(0, 0, 0, readinessKind, modeTimeout, 4),
		onSlot(opUpdate, 3, 0),
		target(5, 0, 0, readinessKind, modeOK, 2),
		target(4, 0, 0, livenessKind, modeTimeout, 4),
		onSlot(opUpdate, 5, 0),
	)},
	{"an overrun, then quick runs back on the grid", seq(
		addPod(0, 0, false, ctr(false, none, none, probe(2, 1, 3, 0))),
		target(1, 0, 0, livenessKind, modeOK, 3),
		target(2, 0, 0, livenessKind, modeOK, 0),
		onSlot(opUpdate, 5, 0),
	)},
	{"a trigger during a run runs again when it ends", seq(
		addPod(0, 0, false, ctr(false, none, probe(3, 1, 1, 0), none)),
		target(1, 0, 0, readinessKind, modeFail, 1),
		onSlot(opUpdate, 5, 0), // during the run at 6 s, the second to fail
		onSlot(opUpdate, 5, 0),
	)},
	{divergenceSeedAddPod, seq(
		addPod(0, 0, false, ctr(false, none, probe(1, 1, 1, 0), probe(1, 1, 1, 0)), ctr(false, none, none, probe(1, 1, 1, 0))),
		onSlot(opUpdate, 2, 0),
		onSlot(opStopLS, 1, 0),
		addPod(2, 0, false),
		onSlot(opUpdate, 3, 0),
	)},
	{divergenceSeedStop, seq(
		addPod(0, 0, false, ctr(false, none, none, probe(1, 1, 1, 0))),
		target(1, 0, 0, livenessKind, modeOK, 4),
		onSlot(opRemove, 2, 0),
		addPod(5, 0, false),
	)},
	{divergenceSeedTrigger, seq(
		addPod(0, 0, false, ctr(false, none, probe(1, 1, 1, 0), none)),
		target(1, 0, 0, readinessKind, modeFail, 3),
		onSlot(opUpdate, 1, 0),
		onSlot(opUpdate, 5, 0),
	)},
	{"many hung probes", manyHungSeed()},
	// The due window: a pod added off a tick, so that its due times fall
	// between two of probewheel's ticks, and ops in the shadow of its
	// AddPod, between a due time and the tick its run starts on.
	{"a trigger in a due window", seq(
		// successThreshold 3: the runs at 0 and 2 s count two successes, the
		// trigger's run right after the second the third.
		placed(addPod(0, 0, false, ctr(false, none, probe(2, 3, 1, 0), none)), offTickPlace),
		placed(onSlot(opUpdate, 2, 0), shadow),
		placed(onSlot(opUpdate, 2, 0), shadow),
	)},
	{"a stop in a due window", seq(
		placed(addPod(0, 0, false, ctr(false, none, none, probe(2, 1, 1, 0))), offTickPlace),
		target(1, 0, 0, livenessKind, modeFail, 0),
		placed(onSlot(opStopLS, 1, 0), shadow),
	)},
	{"a trigger at a first run that takes a second", seq(
		addPod(0, 0, false, ctr(false, none, probe(3, 1, 1, 0), none)),
		target(0, 0, 0, readinessKind, modeFail, 1),
		placed(onSlot(opUpdate, 3, 0), shadow),
	)},
	{"a trigger and a stop at the instant of the first runs", seq(
		addPod(0, 0, false, ctr(false, none, probe(3, 1, 1, 0), probe(1, 1, 1, 0))),
		placed(onSlot(opUpdate, 0, 0), withAdd),
		placed(addPod(2, 1, false, ctr(false, none, probe(1, 1, 1, 0), probe(2, 1, 1, 0))), offTickPlace),
		placed(onSlot(opStopLS, 0, 1), withAdd),
		placed(onSlot(opUpdate, 1, 1), shadow),
	)},
}

// placed is o landing at place p.
func placed(o op, p place) op {
	o.place = p
	return o
}

// manyHungSeed hangs the four probes of each of nine pods (a fresh pod in
// slot 0 each time; the earlier ones keep probing): from the ninth on, 36
// runs are in flight at once, each on an executor of its own.
func manyHungSeed() sequence {
	var ops []op
	for range 9 {
		ops = append(ops, addPod(0, 0, true, ctr(false, none, probe(1, 1, 1, 0), probe(1, 1, 1, 0)), ctr(false, none, probe(1, 1, 1, 0), probe(1, 1, 1, 0))))
		for c := range 2 {
			for _, k := range []kind{readinessKind, livenessKind} {
				ops = append(ops, target(0, 0, c, k, modeOK, 4))
			}
		}
	}
	ops[len(ops)-1].delay = 3
	return seq(ops...)
}

const (
	divergenceSeedAddPod  = "AddPod after StopLivenessAndStartup"
	divergenceSeedStop    = "RemovePod during a hung run"
	divergenceSeedTrigger = "UpdatePodStatus during an overrun"
)

func seedNamed(name string) sequence {
	for _, s := range seeds {
		if s.name == name {
			return s.seq
		}
	}
	panic("no seed " + name)
}
