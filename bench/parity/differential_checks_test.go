package parity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"

	"github.com/probewheel/probewheel/bench"
)

// TestSequenceEncoding: encode is decode's inverse, so the written seeds
// mean what they say.
func TestSequenceEncoding(t *testing.T) {
	for _, s := range seeds {
		t.Run(s.name, func(t *testing.T) {
			got := decode(encode(s.seq))
			if want := s.seq.String(); got.String() != want {
				t.Errorf("decode(encode(seq)):\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// TestAllowedDivergencesAreDocumented: every difference the comparison
// accepts or rules out quotes doc.go, and doc.go lists no difference the
// comparison does not know of.
func TestAllowedDivergencesAreDocumented(t *testing.T) {
	doc := docGoText(t)
	known := 0
	for _, d := range allowedDivergences {
		if !strings.Contains(doc, d.doc) {
			t.Errorf("doc.go no longer says %q (divergence %s)", d.doc, d.id)
		}
	}
	for _, d := range notReachable {
		if !strings.Contains(doc, d.doc) {
			t.Errorf("doc.go no longer says %q", d.doc)
		}
	}
	// Each "  - " bullet of the section, and the AddPod paragraph after it.
	section := doc[strings.Index(doc, "# Differences from upstream, on purpose"):]
	for _, bullet := range regexp.MustCompile(`- ([^-][^.]*)`).FindAllStringSubmatch(section, -1) {
		// A bullet and a divergence's quote are the same difference when
		// they start alike: the quote is a bullet's first sentence or less.
		same := func(quote string) bool {
			n := min(40, len(quote), len(bullet[1]))
			return bullet[1][:n] == quote[:n]
		}
		covered := slices.ContainsFunc(allowedDivergences, func(d *divergence) bool { return same(d.doc) }) ||
			slices.ContainsFunc(notReachable, func(d struct{ doc, why string }) bool { return same(d.doc) })
		if !covered {
			t.Errorf("doc.go lists a difference the differential comparison does not know: %q", bullet[1])
		}
		known++
	}
	if known == 0 {
		t.Fatal("found no bullets in doc.go's differences section")
	}
}

// docGoText is pkg/kubelet/prober/doc.go's comment as one line of prose.
func docGoText(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "pkg", "kubelet", "prober", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		lines = append(lines, strings.TrimPrefix(strings.TrimSpace(l), "//"))
	}
	return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
}

// TestAnalysisFindsDivergences: where upstream may decide at random or
// differs on purpose, the analysis of upstream's run says so, by name.
func TestAnalysisFindsDivergences(t *testing.T) {
	tests := []struct {
		seed string
		want *divergence
	}{
		{divergenceSeedStop, stopFirst},
		{divergenceSeedTrigger, triggerFirst},
	}
	for _, tc := range tests {
		t.Run(tc.seed, func(t *testing.T) {
			p := resolve(seedNamed(tc.seed))
			an := analyse(p, playAll(t, upstreamOnly(t), p)[0])
			if an.byReason[tc.want] == 0 {
				t.Errorf("analysis found %v, want a %s point", an.byReason, tc.want.id)
			}
		})
	}
}

func upstreamOnly(t *testing.T) []bench.Impl { return referenceFirst(t, bench.Impls)[:1] }

// TestDifferentialCatches: the comparison is not blind. Managers that differ
// from upstream in small ways it has no excuse for, and a documented
// difference it is told not to accept, are reported as unexplained.
func TestDifferentialCatches(t *testing.T) {
	tests := []struct {
		name    string
		seed    string
		wrap    func(bench.Manager) bench.Manager
		allowed []*divergence
		// liveness, if set, wraps the liveness results manager instead.
		liveness func(results.Manager) results.Manager
	}{
		{"StopLivenessAndStartup stops readiness too", "sidecars",
			func(m bench.Manager) bench.Manager { return stopsReadinessToo{m} }, allowedDivergences, nil},
		{"RemovePod forgets sidecars", "sidecars",
			func(m bench.Manager) bench.Manager { return forgetsSidecars{m} }, allowedDivergences, nil},
		{"CleanupPods stops nothing while some pods are desired", "churn: fresh pods and CleanupPods",
			func(m bench.Manager) bench.Manager { return ignoresCleanup{m} }, allowedDivergences, nil},
		{"liveness period one second longer", "restart decisions: liveness failures and new container IDs",
			func(m bench.Manager) bench.Manager { return slowerLiveness{m} }, allowedDivergences, nil},
		{"liveness failureThreshold one higher", "restart decisions: liveness failures and new container IDs",
			func(m bench.Manager) bench.Manager { return lateRestart{m} }, allowedDivergences, nil},
		// Runs as upstream's, no restart decision: only the result updates
		// show it.
		{"liveness Failure reported as Success", "restart decisions: liveness failures and new container IDs",
			nil, allowedDivergences, func(l results.Manager) results.Manager { return neverFails{l} }},
		// Runs and updates as upstream's: only UpdatePodStatus shows it.
		{"UpdatePodStatus calls every started container ready", "startup probes gate the others",
			func(m bench.Manager) bench.Manager { return readyTooSoon{m} }, allowedDivergences, nil},
	}
	probewheel, ok := bench.ImplNamed("probewheel")
	if !ok {
		t.Fatal("no probewheel in bench.Impls")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			impl := probewheel
			switch {
			case tc.wrap != nil:
				impl = bench.Mutant(probewheel, nil, tc.wrap)
			case tc.liveness != nil:
				impl = bench.Mutant(probewheel, func(kind string, m results.Manager) results.Manager {
					if kind == "liveness" {
						return tc.liveness(m)
					}
					return m
				}, nil)
			}
			p := resolve(seedNamed(tc.seed))
			c := compare(p, playAll(t, append(upstreamOnly(t), impl), p), tc.allowed)
			if len(c.unexplained()) == 0 {
				t.Errorf("the comparison reports nothing unexplained (%d mismatches: %v)", len(c.mismatches), c.mismatches)
			}
		})
	}
}

type stopsReadinessToo struct{ bench.Manager }

func (m stopsReadinessToo) StopLivenessAndStartup(pod *v1.Pod) { m.RemovePod(pod) }

type forgetsSidecars struct{ bench.Manager }

func (m forgetsSidecars) RemovePod(pod *v1.Pod) {
	pod = pod.DeepCopy()
	pod.Spec.InitContainers = nil
	m.Manager.RemovePod(pod)
}

// ignoresCleanup still stops everything when no pod is desired, so that
// the bubble can end.
type ignoresCleanup struct{ bench.Manager }

func (m ignoresCleanup) CleanupPods(desired map[types.UID]sets.Empty) {
	if len(desired) == 0 {
		m.Manager.CleanupPods(desired)
	}
}

type slowerLiveness struct{ bench.Manager }

func (m slowerLiveness) AddPod(ctx context.Context, pod *v1.Pod) {
	pod = pod.DeepCopy()
	for i := range pod.Spec.Containers {
		if p := pod.Spec.Containers[i].LivenessProbe; p != nil {
			p.PeriodSeconds++
		}
	}
	m.Manager.AddPod(ctx, pod)
}

type lateRestart struct{ bench.Manager }

func (m lateRestart) AddPod(ctx context.Context, pod *v1.Pod) {
	pod = pod.DeepCopy()
	for i := range pod.Spec.Containers {
		if p := pod.Spec.Containers[i].LivenessProbe; p != nil {
			p.FailureThreshold++
		}
	}
	m.Manager.AddPod(ctx, pod)
}

type neverFails struct{ results.Manager }

func (m neverFails) Set(id kubecontainer.ContainerID, result results.Result, pod *v1.Pod) {
	if result == results.Failure {
		result = results.Success
	}
	m.Manager.Set(id, result, pod)
}

type readyTooSoon struct{ bench.Manager }

func (m readyTooSoon) UpdatePodStatus(ctx context.Context, pod *v1.Pod, status *v1.PodStatus) {
	m.Manager.UpdatePodStatus(ctx, pod, status)
	for i := range status.ContainerStatuses {
		if cs := &status.ContainerStatuses[i]; cs.Started != nil && *cs.Started {
			cs.Ready = true
		}
	}
}

// sweepSummary is what TestDifferentialSweep writes.
type sweepSummary struct {
	Impls       []string       `json:"impls"`
	Sequences   int            `json:"sequences"`
	Ops         map[string]int `json:"ops"`
	Probes      int            `json:"probes"`
	Compared    compared       `json:"compared"`
	TaintPoints map[string]int `json:"taint_points"`
	PodsTainted int            `json:"pods_tainted"`
	Pods        int            `json:"pods"`
	Explained   map[string]int `json:"divergences_explained"`
	Unexplained int            `json:"divergences_unexplained"`
	// Per arm: the differences from upstream's first play, explained and
	// not; upstream-again's are upstream's own (its random select).
	ByImpl map[string]*armCount `json:"by_impl"`
	// probewheel against the oracle, exactly.
	Oracle     oracleCount `json:"probewheel_against_the_oracle"`
	Seconds    float64     `json:"seconds"`
	SimSeconds float64     `json:"simulated_seconds_per_impl"`
}

type oracleCount struct {
	Runs     int `json:"probe_runs"`
	Updates  int `json:"result_updates"`
	Statuses int `json:"update_pod_status_results"`
	Differ   int `json:"sequences_that_differ"`
}

// add counts one sequence's comparison of probewheel with the oracle.
func (o *oracleCount) add(c *comparison) {
	o.Runs += c.runs
	o.Updates += c.updates
	o.Statuses += c.statuses
	if len(c.mismatches) > 0 {
		o.Differ++
	}
}

type armCount struct {
	Explained   int `json:"explained"`
	Unexplained int `json:"unexplained"`
}

type compared struct {
	Updates          int `json:"result_updates"`
	LivenessFailures int `json:"liveness_failure_updates"`
	Runs             int `json:"probe_runs"`
	Statuses         int `json:"update_pod_status_calls"`
}

// TestDifferentialSweep plays PROBEWHEEL_DIFF_SWEEP pseudo-random sequences
// (seeded, so a run is reproducible) and writes what it compared to
// PROBEWHEEL_DIFF_OUT/differential.{json,md}. make fuzz-diff runs it.
func TestDifferentialSweep(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PROBEWHEEL_DIFF_SWEEP"))
	if n <= 0 {
		t.Skip("set PROBEWHEEL_DIFF_SWEEP=<sequences> (make fuzz-diff)")
	}
	start := time.Now()
	var mu sync.Mutex
	sum := sweepSummary{Ops: map[string]int{}, TaintPoints: map[string]int{}, Explained: map[string]int{}, ByImpl: map[string]*armCount{}}
	impls := againstUpstream(bench.Impls)
	for _, impl := range referenceFirst(t, impls) {
		sum.Impls = append(sum.Impls, impl.Name)
		sum.ByImpl[impl.Name] = &armCount{}
	}
	t.Run("seq", func(t *testing.T) {
		for i := range n {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				data := randomInput(rand.New(rand.NewPCG(uint64(i), 0x5eed)))
				seq := decode(data)
				p := resolve(seq)
				obs := playAll(t, impls, p)
				c := compare(p, obs, allowedDivergences)
				an := analyse(p, obs[0])
				for _, m := range c.unexplained() {
					t.Errorf("%v", m)
				}
				oc := againstOracle(t, p)
				for _, m := range oc.mismatches {
					t.Errorf("against the oracle, exactly: %v", m)
				}
				if t.Failed() {
					t.Logf("input %x\nsequence:\n%v", data, seq)
				}
				mu.Lock()
				defer mu.Unlock()
				sum.Oracle.add(oc)
				sum.Sequences++
				sum.SimSeconds += (seq.end() + startAfter).Seconds()
				for _, o := range seq.ops {
					sum.Ops[opNames[o.kind]]++
				}
				for _, pod := range p.pods {
					sum.Probes += len(pod.keys())
				}
				sum.Pods += len(p.pods)
				sum.PodsTainted += len(an.taints)
				for d, k := range an.byReason {
					sum.TaintPoints[d.id] += k
				}
				sum.Compared.Updates += c.updates
				sum.Compared.LivenessFailures += c.livenessFailures
				sum.Compared.Runs += c.runs
				sum.Compared.Statuses += c.statuses
				for _, m := range c.mismatches {
					arm := sum.ByImpl[m.impl]
					if arm == nil { // the analysis's premise
						arm = &armCount{}
						sum.ByImpl[m.impl] = arm
					}
					if m.why == nil {
						sum.Unexplained++
						arm.Unexplained++
					} else {
						sum.Explained[m.why.id]++
						arm.Explained++
					}
				}
			})
		}
	})
	sum.Seconds = time.Since(start).Seconds()
	sum.SimSeconds /= float64(max(sum.Sequences, 1))
	js, _ := json.MarshalIndent(sum, "", "  ")
	t.Logf("differential sweep:\n%s", js)
	if dir := os.Getenv("PROBEWHEEL_DIFF_OUT"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "differential.json"), append(js, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "differential.md"), sweepMarkdown(sum), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sweepMarkdown(s sweepSummary) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Differential sweep (bench/parity, TestDifferentialSweep)\n\n")
	fmt.Fprintf(&b, "%d pseudo-random API sequences, each played against %s in synctest bubbles (%.0f s of fake time each on average); wall time %.0f s.\n\n",
		s.Sequences, strings.Join(s.Impls, ", "), s.SimSeconds, s.Seconds)
	fmt.Fprintf(&b, "| compared with upstream | count |\n|---|---|\n")
	fmt.Fprintf(&b, "| result updates (per probe, with time and container ID) | %d |\n| of which liveness Failure (restart decisions) | %d |\n| probe runs (start time, container ID) | %d |\n| UpdatePodStatus results | %d |\n| pods / probes | %d / %d |\n\n",
		s.Compared.Updates, s.Compared.LivenessFailures, s.Compared.Runs, s.Compared.Statuses, s.Pods, s.Probes)
	fmt.Fprintf(&b, "| ops | count |\n|---|---|\n")
	for _, name := range opNames {
		fmt.Fprintf(&b, "| %s | %d |\n", name, s.Ops[name])
	}
	fmt.Fprintf(&b, "\nPods with a point where upstream may differ on purpose: %d of %d (compared up to that point).\n\n", s.PodsTainted, s.Pods)
	fmt.Fprintf(&b, "| documented difference (doc.go) | points found | differences seen |\n|---|---|---|\n")
	for _, d := range allowedDivergences {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", d.doc, s.TaintPoints[d.id], s.Explained[d.id])
	}
	fmt.Fprintf(&b, "\nThe other documented differences, and why no sequence meets them:\n\n| documented difference (doc.go) | why not reachable here |\n|---|---|\n")
	for _, d := range notReachable {
		fmt.Fprintf(&b, "| %s | %s |\n", d.doc, d.why)
	}
	fmt.Fprintf(&b, "\n| arm against upstream | differences explained | unexplained |\n|---|---|---|\n")
	for _, name := range s.Impls[1:] {
		if a := s.ByImpl[name]; a != nil {
			fmt.Fprintf(&b, "| %s | %d | %d |\n", name, a.Explained, a.Unexplained)
		}
	}
	fmt.Fprintf(&b, "\n%s is upstream's package played a second time: its differences are upstream's own, where its select picks at random.\n", upstreamAgain)
	fmt.Fprintf(&b, "\n**Unexplained differences: %d**\n", s.Unexplained)
	fmt.Fprintf(&b, "\nprobewheel, against its contract, the oracle (bench/oracle: upstream's package with every run on the next tick), exactly, at every instant: %d probe runs, %d result updates and %d UpdatePodStatus results compared.\n\n**Sequences that differ from the oracle: %d**\n",
		s.Oracle.Runs, s.Oracle.Updates, s.Oracle.Statuses, s.Oracle.Differ)
	return b.Bytes()
}
