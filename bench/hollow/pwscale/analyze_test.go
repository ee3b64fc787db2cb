package main

import (
	"context"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

const sec = int64(time.Second)

func TestLateness(t *testing.T) {
	// Key 0 every second exactly; key 1 late by 20 ms once and one run lost.
	var evs []event
	for i := range int64(10) {
		evs = append(evs, event{t: i * sec, k: 0})
	}
	for _, at := range []int64{0, sec, 2*sec + 20e6, 3 * sec, 5 * sec} {
		evs = append(evs, event{t: at, k: 1})
	}
	evs = append(evs, event{t: 0, k: 2}) // not asked for
	l := lateness(evs, map[int]bool{0: true, 1: true, 3: true}, 0, 9*sec, sec)
	if l.Keys != 2 || l.Expected != 3 {
		t.Errorf("keys %d of %d, want 2 of 3", l.Keys, l.Expected)
	}
	// Key 1 misses the run at 4 s (3 → 5) and, in the open gap from 5 s to the
	// window's end at 9 s, those at 6, 7 and 8; key 3, never probed, the eight
	// due at 1 to 8 s.
	if l.Intervals != 9+4 || l.Missed != 1+3+8 {
		t.Errorf("intervals %d missed %d, want 13 and 12", l.Intervals, l.Missed)
	}
	if l.MaxAbsMs != 1000 || math.Abs(l.P50AbsMs) > 1e-9 {
		t.Errorf("max %v p50 %v, want 1000 and 0", l.MaxAbsMs, l.P50AbsMs)
	}
}

func TestRestartStats(t *testing.T) {
	keys := map[int]bool{}
	var evs []event
	t0 := int64(100 * sec)
	// 100 keys, first probes spread evenly over one period starting 1 s after
	// t0, then every period: peak/mean 1 in both windows.
	for k := range 100 {
		keys[k] = true
		for r := range int64(3) {
			evs = append(evs, event{t: t0 + sec + int64(k)*sec/100 + r*sec, k: int32(k)})
		}
	}
	evs = append(evs, event{t: t0 + sec, k: 500}) // a startup probe
	r := restartStats(evs, keys, map[int]bool{500: true}, t0, sec, 4*sec)
	if r.Unprobed != 0 || r.StartupProbes != 1 {
		t.Errorf("unprobed %d startup %d, want 0 and 1", r.Unprobed, r.StartupProbes)
	}
	if math.Abs(r.BurstFirst-1) > 0.11 || math.Abs(r.BurstSteady-1) > 0.11 {
		t.Errorf("bursts %.2f %.2f, want ~1", r.BurstFirst, r.BurstSteady)
	}
	if r.FirstP50S < 1.4 || r.FirstP50S > 1.6 || r.FirstMaxS < 1.98 {
		t.Errorf("first p50 %.2f max %.2f", r.FirstP50S, r.FirstMaxS)
	}
	if len(r.Timeline) != 40 || r.Timeline[10] != 10 { // readiness and liveness only
		t.Errorf("timeline %v", r.Timeline)
	}
	// All at one instant: peak/mean = buckets per period.
	evs = evs[:0]
	for k := range 100 {
		evs = append(evs, event{t: t0 + sec, k: int32(k)})
	}
	if r := restartStats(evs, keys, nil, t0, sec, 0); r.BurstFirst != 10 || r.BurstSteady != 0 {
		t.Errorf("bunched: bursts %.2f %.2f, want 10 and 0 (no full period after)", r.BurstFirst, r.BurstSteady)
	}
}

func TestPlanLoopbackOnly(t *testing.T) {
	p, err := newPlan("x", 2, 120, 1, "mixed", 50, 20)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.pods {
		pod, err := p.podSpec(&p.pods[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.pods[i].ip.As4()[0] != 127 {
			t.Fatalf("pod IP %s", p.pods[i].ip)
		}
		if i == 0 {
			pod.Spec.Containers[0].ReadinessProbe.HTTPGet.Host = "10.0.0.1"
			if assertLoopbackTargets(pod) == nil {
				t.Error("a probe host outside loopback passed the check")
			}
		}
	}
	if got := p.pods[119].ip; got != netip.MustParseAddr("127.20.0.3") {
		t.Errorf("pod 119 of node 0: %s", got)
	}
	flips := 0
	for _, pp := range p.pods {
		if pp.flip {
			flips++
		}
	}
	if flips != 12 {
		t.Errorf("%d flipped pods, want 12", flips)
	}
}

func TestFakeRuntimeRefusesNonLoopbackPodIP(t *testing.T) {
	f := newFakeRuntime(newRecorder(3), 0)
	ctx := context.Background()
	cfg := &runtimeapi.PodSandboxConfig{Metadata: &runtimeapi.PodSandboxMetadata{Name: "p"}}
	for _, ip := range []string{"", "192.168.192.168", "::1"} {
		cfg.Annotations = map[string]string{podIPAnnotation: ip}
		if _, err := f.RunPodSandbox(ctx, &runtimeapi.RunPodSandboxRequest{Config: cfg}); err == nil {
			t.Errorf("pod IP %q accepted", ip)
		}
	}
	cfg.Annotations = map[string]string{podIPAnnotation: "127.20.0.1"}
	sb, err := f.RunPodSandbox(ctx, &runtimeapi.RunPodSandboxRequest{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.PodSandboxStatus(ctx, &runtimeapi.PodSandboxStatusRequest{PodSandboxId: sb.PodSandboxId})
	if err != nil || st.Status.Network.Ip != "127.20.0.1" {
		t.Fatalf("status %v, %v", st, err)
	}
	c, err := f.CreateContainer(ctx, &runtimeapi.CreateContainerRequest{PodSandboxId: sb.PodSandboxId,
		Config: &runtimeapi.ContainerConfig{Metadata: &runtimeapi.ContainerMetadata{Name: "c"}, Image: &runtimeapi.ImageSpec{Image: "i"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.StartContainer(ctx, &runtimeapi.StartContainerRequest{ContainerId: c.ContainerId}); err != nil {
		t.Fatal(err)
	}
	f.rec.setFail(1, true)
	for k, want := range map[string]int32{"0": 0, "1": 1, "x": 127} {
		r, err := f.ExecSync(ctx, &runtimeapi.ExecSyncRequest{ContainerId: c.ContainerId, Cmd: []string{execProbeCmd, k}})
		if err != nil || r.ExitCode != want {
			t.Errorf("exec %s: %v %v, want exit %d", k, r, err, want)
		}
	}
	if n := len(f.rec.since(0)); n != 2 {
		t.Errorf("%d probes recorded, want 2", n)
	}
}

func TestProcAddrAndMetrics(t *testing.T) {
	if got := procAddr("0100007F:1F90"); got != netip.MustParseAddrPort("127.0.0.1:8080") {
		t.Errorf("procAddr = %v", got)
	}
	if got := procAddr("0000000000000000FFFF00000100007F:0050"); got != netip.MustParseAddrPort("127.0.0.1:80") {
		t.Errorf("procAddr v4-mapped = %v", got)
	}
	text := []byte("# HELP x\ngo_goroutines 42\ngo_goroutines_other 1\nprober_probe_total{a=\"1\"} 3\nprober_probe_total{a=\"2\"} 4\n" +
		"h_bucket{le=\"0.01\"} 5\nh_bucket{le=\"+Inf\"} 10\nh_sum 1\nh_count 10\n")
	if v, ok := metricSum(text, "go_goroutines"); !ok || v != 42 {
		t.Errorf("go_goroutines = %v %v", v, ok)
	}
	if v, _ := metricSum(text, "prober_probe_total"); v != 7 {
		t.Errorf("prober_probe_total = %v", v)
	}
	if v := metricSumWith(text, "prober_probe_total", `a="2"`); v != 4 {
		t.Errorf("prober_probe_total{a=2} = %v", v)
	}
	h := parseHistogram(text, "h")
	if s := h.since(histogram{buckets: map[float64]float64{}}); s.Count != 10 || s.MeanMs != 100 || s.P99Ms != -1 {
		t.Errorf("histogram %+v", s)
	}
}

// answersAt turns "offfo" (o: ok, f: fail) into answers one second apart from 1 s.
func answersAt(pattern string) []answer {
	var a []answer
	for i, r := range pattern {
		a = append(a, answer{t: int64(i+1) * sec, ok: r == 'o'})
	}
	return a
}

func TestDueFlips(t *testing.T) {
	for _, c := range []struct {
		answers string // o: ok, f: fail
		ready   bool
		want    []flip
	}{
		{"oooo", true, nil},
		{"offoffo", true, nil}, // never 3 in a row
		{"offfo", true, []flip{{4 * sec, false}, {5 * sec, true}}},
		{"offffff", true, []flip{{4 * sec, false}}}, // still failing
		{"ffffofffo", true, []flip{{3 * sec, false}, {5 * sec, true}, {8 * sec, false}, {9 * sec, true}}},
		{"fffffffff", true, []flip{{3 * sec, false}}}, // failures while NotReady count for nothing
		{"ffoo", false, []flip{{3 * sec, true}}},      // from NotReady: Ready at the first success
	} {
		got := dueFlips(answersAt(c.answers), c.ready, 3)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s from ready=%v: %v, want %v", c.answers, c.ready, got, c.want)
		}
	}
}

func TestMatchFlips(t *testing.T) {
	nr := func(s float64) flip { return flip{int64(s * 1e9), false} }
	rd := func(s float64) flip { return flip{int64(s * 1e9), true} }
	due := []flip{nr(3), rd(6)}
	for _, c := range []struct {
		name  string
		due   []flip
		shown []flip
		want  flipMatch
	}{
		{"both shown", due, []flip{nr(3.2), rd(6.1)}, flipMatch{Due: 2, Paired: 2}},
		{"none due, none shown", nil, nil, flipMatch{}},
		{"none shown: the status manager never wrote them", due, nil, flipMatch{Due: 2, Lost: 2}},
		{"NotReady shown late, after Ready was due, still in order", due, []flip{nr(6.5), rd(6.6)}, flipMatch{Due: 2, Paired: 2}},
		{"a flip nobody asked for", nil, []flip{nr(10), rd(11)}, flipMatch{Extra: 2}},
		// A probe timed out at the kubelet before the real failures: the early
		// pair is extra, the due pair is seen.
		{"spurious pair first", due, []flip{nr(1), rd(2), nr(3.5), rd(6.5)}, flipMatch{Due: 2, Paired: 2, Extra: 2}},
		// The real flip never shown, a spurious pair before it (a probe timed
		// out at the kubelet): equal lengths, yet 2 lost and 2 extra.
		{"lost flip masked by a spurious pair", due, []flip{nr(1), rd(2)}, flipMatch{Due: 2, Lost: 2, Extra: 2}},
		// Shown before the answer that calls for it: not this flip (the
		// Ready after it pairs with the one due).
		{"too early", due, []flip{nr(2.9), rd(6.1)}, flipMatch{Due: 2, Paired: 1, Lost: 1, Extra: 1}},
		// Two cycles due, the first never shown: counting lengths alone (2
		// shown of 4 due) cannot tell which; in order, the shown pair is the
		// second cycle's.
		{"first cycle lost", []flip{nr(3), rd(6), nr(13), rd(16)}, []flip{nr(13.1), rd(16.1)},
			flipMatch{Due: 4, Paired: 2, Lost: 2}},
		// The first cycle shown only after the second was due: not the first's.
		{"first cycle shown too late", []flip{nr(3), rd(6), nr(13), rd(16)}, []flip{nr(14), rd(17)},
			flipMatch{Due: 4, Paired: 2, Lost: 2}},
		{"two cycles, an extra pair between", []flip{nr(3), rd(6), nr(13), rd(16)},
			[]flip{nr(3.1), rd(6.1), nr(9), rd(10), nr(13.1), rd(16.1)}, flipMatch{Due: 4, Paired: 4, Extra: 2}},
		// Within one cycle there is no time limit: late delivery is not loss.
		{"one cycle, shown late", due, []flip{nr(20), rd(21)}, flipMatch{Due: 2, Paired: 2}},
		{"NotReady shown, Ready never", due, []flip{nr(3.1)}, flipMatch{Due: 2, Paired: 1, Lost: 1}},
	} {
		if got := matchFlips(c.due, c.shown); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestBenchTransitions runs the window's count on a plan, the targets'
// answers and the API's transitions as the recorder and the tracker hold them.
func TestBenchTransitions(t *testing.T) {
	p, err := newPlan("x", 1, 40, 1, "mixed", 50, 20) // pods 10 and 30 flip
	if err != nil {
		t.Fatal(err)
	}
	from := time.Unix(1000, 0)
	at := func(s float64) time.Time { return from.Add(time.Duration(s * 1e9)) }
	b := &bench{p: p, rec: newRecorder(p.keys()), tr: newTracker(p)}
	for _, pt := range b.tr.pods {
		pt.firstReady, pt.ready = at(-10), true
	}
	var evs []event
	answer := func(pod int, pattern string) { // one answer a second from +1 s
		for i, r := range pattern {
			evs = append(evs, event{t: at(float64(i + 1)).UnixNano(), k: int32(p.pods[pod].key(kReadiness)), fail: r == 'f'})
		}
	}
	show := func(pod int, s float64, ready bool) {
		pt := b.tr.pods[p.pods[pod].name]
		pt.transitions = append(pt.transitions, transition{at(s), ready})
	}
	for i := range p.pods {
		evs = append(evs, event{t: at(0.5).UnixNano(), k: int32(p.pods[i].key(kLiveness))})
		if i != 10 && i != 30 {
			answer(i, "oooooooooo")
		}
	}
	answer(10, "oofffffooo") // NotReady due at +5 s, Ready at +8 s
	show(10, 5.2, false)
	show(10, 8.1, true)
	answer(30, "oofffffooo") // the same, never shown: 2 lost
	show(0, 4, false)        // not due: 2 extra
	show(0, 5, true)
	show(2, -5, false) // before the window: pod 2 was NotReady at its start and is left out
	show(3, 70, false) // after it: not counted
	b.rec.chunks = [][]event{evs}
	got := b.transitions(from, at(60))
	ex := got.Examples
	got.Examples = nil
	want := Transitions{Flipped: 2, Exercised: 2, Expected: 4, Seen: 2, Lost: 2, Extra: 2, Skipped: 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	if len(ex) != 2 || ex[0] != "x-0-0000: due [], shown [NotReady@+4.000s Ready@+5.000s]" {
		t.Errorf("examples %q", ex)
	}
}

// TestFakeRuntimeLists: the kubelet's lists (all, by pod UID, by ID, by
// state) through the pod-UID index, before and after removals.
func TestFakeRuntimeLists(t *testing.T) {
	f := newFakeRuntime(newRecorder(3), 0)
	ctx := context.Background()
	sandbox := map[string]string{}
	container := map[string]string{}
	for i, uid := range []string{"u1", "u2", "u3"} {
		lbl := map[string]string{podUIDLabel: uid}
		sb, err := f.RunPodSandbox(ctx, &runtimeapi.RunPodSandboxRequest{Config: &runtimeapi.PodSandboxConfig{
			Metadata: &runtimeapi.PodSandboxMetadata{Name: uid}, Labels: lbl,
			Annotations: map[string]string{podIPAnnotation: fmt.Sprintf("127.20.0.%d", i+1)}}})
		if err != nil {
			t.Fatal(err)
		}
		c, err := f.CreateContainer(ctx, &runtimeapi.CreateContainerRequest{PodSandboxId: sb.PodSandboxId,
			Config: &runtimeapi.ContainerConfig{Metadata: &runtimeapi.ContainerMetadata{Name: "c"}, Labels: lbl,
				Image: &runtimeapi.ImageSpec{Image: "i"}}})
		if err != nil {
			t.Fatal(err)
		}
		sandbox[uid], container[uid] = sb.PodSandboxId, c.ContainerId
	}
	if _, err := f.StartContainer(ctx, &runtimeapi.StartContainerRequest{ContainerId: container["u2"]}); err != nil {
		t.Fatal(err)
	}
	sbs := func(flt *runtimeapi.PodSandboxFilter) int {
		r, err := f.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{Filter: flt})
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Items)
	}
	cs := func(flt *runtimeapi.ContainerFilter) []string {
		r, err := f.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: flt})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range r.Containers {
			ids = append(ids, c.Id)
		}
		return ids
	}
	byUID := func(uid string) map[string]string { return map[string]string{podUIDLabel: uid} }
	running := &runtimeapi.ContainerStateValue{State: runtimeapi.ContainerState_CONTAINER_RUNNING}
	if n := sbs(nil); n != 3 {
		t.Errorf("all sandboxes: %d", n)
	}
	if n := sbs(&runtimeapi.PodSandboxFilter{LabelSelector: byUID("u2")}); n != 1 {
		t.Errorf("sandboxes of u2: %d", n)
	}
	if n := sbs(&runtimeapi.PodSandboxFilter{LabelSelector: byUID("nope")}); n != 0 {
		t.Errorf("sandboxes of an unknown pod: %d", n)
	}
	if n := sbs(&runtimeapi.PodSandboxFilter{Id: sandbox["u3"], LabelSelector: byUID("u1")}); n != 0 {
		t.Errorf("sandbox u3 with u1's label: %d", n)
	}
	if got := cs(&runtimeapi.ContainerFilter{LabelSelector: byUID("u2"), State: running}); !slices.Equal(got, []string{container["u2"]}) {
		t.Errorf("running containers of u2: %v", got)
	}
	if got := cs(&runtimeapi.ContainerFilter{State: running}); len(got) != 1 {
		t.Errorf("running containers: %v", got)
	}
	if got := cs(&runtimeapi.ContainerFilter{LabelSelector: byUID("u1"), State: running}); len(got) != 0 {
		t.Errorf("running containers of u1: %v", got)
	}
	if got := cs(&runtimeapi.ContainerFilter{PodSandboxId: sandbox["u1"]}); !slices.Equal(got, []string{container["u1"]}) {
		t.Errorf("containers of sandbox u1: %v", got)
	}
	if _, err := f.RemoveContainer(ctx, &runtimeapi.RemoveContainerRequest{ContainerId: container["u2"]}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: sandbox["u2"]}); err != nil {
		t.Fatal(err)
	}
	if got := cs(&runtimeapi.ContainerFilter{LabelSelector: byUID("u2")}); len(got) != 0 {
		t.Errorf("containers of u2 after removal: %v", got)
	}
	if n := sbs(&runtimeapi.PodSandboxFilter{LabelSelector: byUID("u2")}); n != 0 || len(f.sandboxes.ofPod) != 2 || len(f.containers.ofPod) != 2 {
		t.Errorf("after removal: %d sandboxes of u2, index %d/%d pods", n, len(f.sandboxes.ofPod), len(f.containers.ofPod))
	}
	if n := len(cs(nil)); n != 2 {
		t.Errorf("all containers after removal: %d", n)
	}
}
