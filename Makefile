# probewheel — build, test and benchmark entry points.
#
# The Kubernetes version is pinned in exactly one place: the k8s.io/kubernetes
# requirement in go.mod. Everything below (and every hack/ script, through
# hack/lib.sh) reads it from there. hack/set-kube-version.sh moves it.

SHELL := /usr/bin/env bash
KUBE_VERSION ?= $(shell hack/kube-version.sh)
export KUBE_VERSION

GO       ?= go
# The main line's Go when its release needs a newer one than the host's (hack/lib.sh's
# PW_MAIN_TOOLCHAIN says why): go.mod's toolchain line, which set-kube-version.sh writes.
MAIN_TOOLCHAIN := $(shell sed -n 's/^toolchain \(go[0-9][0-9.]*\)$$/\1/p' go.mod)
ifneq ($(MAIN_TOOLCHAIN),)
export GOTOOLCHAIN := $(MAIN_TOOLCHAIN)
endif
PKG      := ./pkg/kubelet/prober/...
# A count, not a duration: Go 1.26's fuzz coordinator can report its own
# -fuzztime deadline as a failure (go.dev/issue/75804, fixed in Go 1.27).
FUZZTIME ?= 40000x

.PHONY: all test vet unit fuzz verify-patches verify-patches-test verify-series patches results-index patch-set bench bench-full \
        bench-smoke kubelet minors upstream-test ci clean

all: test

## test: vet, patch-set check (and its own test), package tests with -race (FuzzWheel's seeds
## among them), bench smoke, the docs' commands, links and records, the hollow-node driver's
## own tests (scale.mk) and the reliability runs' short forms (reliability.mk)
test: vet verify-patches verify-patches-test verify-versions verify-rules verify-swap unit bench-smoke verify-docs scale-test reliability-short

vet:
	@out=$$("$$($(GO) env GOROOT)/bin/gofmt" -l pkg bench e2e); \
	if [ -n "$$out" ]; then echo "gofmt -l: not formatted (upstream's verify-gofmt would reject the patch):"; echo "$$out"; exit 1; fi
	@if git grep -nE '\|[[:space:]]*grep[[:space:]]+-[a-zA-Z]*q' -- '*.sh' '*.mk' Makefile .ci/run; then \
	echo "a pipe into grep -q (above): grep exits at the first match, the writer may die of SIGPIPE and pipefail fails the test; use grep ... >/dev/null"; exit 1; fi
	$(GO) vet ./pkg/... ./bench/... ./hack/tools/upstreamreleases/
	$(GO) vet -tags e2e ./e2e/...
	hack/oracle.sh --check
	@for p in bench/ablation/*.patch; do patch --dry-run -s -p1 <"$$p" >/dev/null || \
	{ echo "$$p no longer applies to pkg/ (scripts/ablation.sh and hack/build-hollow-node.sh apply it at build time): regenerate it"; exit 1; }; done

# The package's tests, the timing cases side by side with upstream's package and the
# benchmark harness's own tests; then the package again with the ProbeTimerWheel gate off by
# default (upstream's per-probe loop); then the oracle with the exec limit binding, which skips
# itself under -race (bench/parity's skipUnderRace says why).
GATE_OFF := -ldflags=-X=$(shell awk '$$1 == "module" {print $$2; exit}' go.mod)/pkg/features.probeTimerWheelDefault=false
unit:
	$(GO) test -race -count=1 $(PKG) ./bench/parity/ ./bench/ ./bench/measure/ ./bench/target/ ./bench/resultsindex/ ./bench/report/ ./e2e/probetarget/ ./hack/tools/upstreamreleases/
	$(GO) test -race -count=1 $(GATE_OFF) $(PKG)
	$(GO) test -count=1 -run '^TestOracleLimit(Catches)?$$' ./bench/parity/

## fuzz: FuzzWheel on FUZZTIME new inputs. Not in make test: -fuzz instruments every package the
## test binary links, the kubelet's dependencies included, a 5-minute compile on a cold cache
## for 13 s of fuzzing; the seeds run with the package tests. The wheel is single-threaded:
## -race would only slow the fuzzer down.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzWheel$$' -fuzztime $(FUZZTIME) ./pkg/kubelet/prober/

## patches: regenerate the main line's series (patches/v1.<minor>/) from pkg/, then each older
## supported minor's from it (series/minors/)
patches:
	hack/update-patches.sh
	hack/update-minors.sh

verify-patches:
	hack/verify-patches.sh
	hack/update-minors.sh --check

## upstream-releases: which k8s.io/kubernetes releases the module proxy serves beyond the
## pinned ones (each supported minor's newer patch releases, the next minor's pre-releases),
## and what changed in the files the series depend on; --record keeps the day's answer
## (UPSTREAM_RELEASES_FLAGS=--record). Not a gate: a release upstream ships must not fail CI
.PHONY: upstream-releases
upstream-releases:
	hack/upstream-releases.sh $(UPSTREAM_RELEASES_FLAGS)

## verify-versions: one fork version, one build: series/versions gives each patch set of a
## release its own <release>-probewheel.<N> (make patches writes it), and the release records,
## CHANGELOG's headings and the pages agree with it (hack/versions.sh --check, with its table
## test, which also tests how make patches numbers a new patch set)
.PHONY: verify-versions
verify-versions:
	hack/versions_test.sh
	hack/versions.sh --check

# Shows that verify-patches fails when pkg/ changes without regenerating (in a scratch copy).
verify-patches-test:
	hack/verify-patches_test.sh

## verify-rules: the Prometheus rules operators load (scripts/prometheus/rules.yaml), checked and
## tested by Prometheus's promtool (hack/install-prometheus.sh fetches it from Debian's package):
## every alert fires on the series that show its condition and not on the others (rules_test.yaml)
.PHONY: verify-rules
verify-rules:
	@p=$$(hack/install-prometheus.sh) && "$$p/promtool" check rules scripts/prometheus/rules.yaml && \
	  "$$p/promtool" test rules scripts/prometheus/rules_test.yaml

## verify-swap: scripts/kubelet-swap.sh's edits of the kubelet's files, the layouts it finds
## (kubeadm DEB and RPM, a unit's own drop-in, kind) and whole swaps, carries and an undo on
## scratch nodes of each (the kind e2e suite swaps a real node: TestKubeletSwap)
.PHONY: verify-swap
verify-swap:
	scripts/kubelet-swap_test.sh

## verify-series: every commit of patches/ applied alone on pristine upstream builds and passes the
## tests of the packages it touches, with the gate off too once the gate exists (~40 s a commit, warm)
verify-series:
	hack/verify-series.sh

## verify-figures: every figure README.md and docs/ quote beside a results link occurs in the
## linked file, and that run measured the current patch set (bench/resultsindex/figures.go says
## what counts as a figure); part of verify-docs
.PHONY: verify-figures
verify-figures:
	PROBEWHEEL_CHECK_FIGURES=1 $(GO) test -count=1 -run '^TestPagesQuoteTheirResults$$' ./bench/resultsindex/

## results-index: regenerate docs/results.md, the index of every level's results (make test
## fails when it is not current)
results-index:
	$(GO) test -count=1 -run '^TestIndexIsCurrent$$' ./bench/resultsindex/ -update

## patch-set: print the main line's patch set, the series sum that results and release records name
patch-set:
	@bash -c 'source hack/lib.sh && pw::series_sum "$${PW_KUBE_MINOR}"'

## verify-docs: every make target, script and relative link README.md, docs/*.md, e2e/README.md and
## CHANGELOG.md show exists;
## runs the cheap ones (make -n, --help); the README's table of releases and CI's time, and
## docs/clusters.md's CI step times, match their records (e2e/results/releases,
## e2e/results/ci-*.md; hack/ci-record_test.sh tests that check); the pages' figures are in the runs they
## cite (verify-figures); the scheduler's constants, where README.md and docs/ state them between
## const markers, are the code's (TestDocumentedConstants, built as unit builds the package, so
## that in make test it reuses unit's compiled packages); the README's own-tree commands give a
## kubelet named v<release>-probewheel.<n> for each supported release (verify-own-tree); under a
## minute warm
.PHONY: verify-docs verify-own-tree
verify-docs: verify-figures verify-own-tree
	hack/verify-docs.sh
	$(GO) test -race -count=1 -run '^TestDocumentedConstants$$' ./pkg/kubelet/prober/
	hack/releases-table.sh --check
	hack/ci-record_test.sh
	hack/ci-record.sh --check

verify-own-tree:
	hack/own-tree-check.sh

## releases-table: regenerate README.md's table of supported releases from e2e/results/releases
## (hack/minors-test.sh --record writes those records)
.PHONY: releases-table
releases-table:
	hack/releases-table.sh --update

## bench: the default side-by-side comparison (~105 min on 2 cores), prints a benchstat table
bench:
	scripts/bench.sh default

bench-full:
	scripts/bench.sh full

bench-smoke:
	scripts/bench.sh smoke

## capacity: the capacity sweep (scripts/bench.sh capacity, ~19 min on 2 cores): each arm's highest
## exec and HTTP probe rate with a period-error p99 <= 5 ms and no missed run, and its plot
.PHONY: capacity
capacity:
	scripts/bench.sh capacity

## bench-profile: where a run's CPU goes and what holds up late runs, in the workloads design.md's
## targets miss (scripts/bench.sh profile, ~20 min on 2 cores): shares.md and late.txt
.PHONY: bench-profile
bench-profile:
	scripts/bench.sh profile

## kubelet: _output/bin/kubelet from pristine upstream + patches/
kubelet:
	hack/build-kubelet.sh

## minors: each older supported minor (series/minors/): its kubelet builds from pristine + its series and
## prints its fork version; the prober package's tests pass in its tree with -race, gate on and off
## (MINORS_FLAGS: hack/minors-test.sh's options, e.g. --no-race --no-kubelet as make ci runs it)
minors:
	hack/minors-test.sh $(MINORS_FLAGS)

## upstream-test: upstream's suites in the patched tree, with the ProbeTimerWheel gate on and off
upstream-test:
	hack/upstream-test.sh
	hack/upstream-test.sh --gate-off

## ci: what .ci/run runs: the tests, the patched kubelet, upstream's suites in the patched tree
## with the gate on and off, then the e2e suite on kind where hack/kind-preflight.sh says Docker
## can run it (make kind-ci), else on the local cluster where hack/e2e-preflight.sh says it can
## run (root, cgroups, netns), else none, saying why. Each commit of the series on its own
## (make verify-series) and every supported release's kubelet, prober tests with -race and
## upstream's suites run in the release records (hack/minors-test.sh --record; the main line's
## with --series), which make test holds to the current series (hack/releases-table.sh --check)
ci: test kubelet
	_output/bin/kubelet --version
	$(MAKE) upstream-test
	@if hack/kind-preflight.sh; then \
	  $(MAKE) kind-ci; \
	elif hack/e2e-preflight.sh; then \
	  echo "kind cannot run here (reason above): the e2e suite on the local cluster"; \
	  echo "make e2e"; $(MAKE) e2e; \
	else \
	  echo "!!! SKIPPED every cluster test: this machine can run neither kind nor the local cluster (reasons above)"; \
	fi

clean:
	rm -rf _output

# make e2e: a local single-node cluster with the kubelet under test (e2e/README.md).
include e2e.mk
include kind.mk
include scale.mk
include reliability.mk
