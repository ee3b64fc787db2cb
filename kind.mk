# kind.mk — probewheel in kind clusters, offline (docs/kind.md).
# Included by the Makefile.
#
#   make kind-image                     probewheel/node:<fork version> (patched kubelet), built
#                                       here offline
#   make kind-image KUBELET_FLAVOR=stock    probewheel/node:<version>-stock
#   make kind-up                        1 control plane + KIND_WORKERS (2) workers, patched
#   make kind-up KIND_MIXED=1           one stock and one patched worker (labelled
#                                       probewheel.io/kubelet=stock|probewheel)
#   make kind-down                      delete it; fails if anything is left behind
#   hack/kind-swap-kubelet.sh <node> [probewheel|stock|<binary>]
#                                       a kubelet into a running node, restarted, Ready
#   make kind-e2e                       the three below
#   make kind-e2e-suite                 e2e/ on a fresh cluster (patched worker)
#   make kind-e2e-upstream              upstream's 46 probe specs, stock then patched cluster,
#                                       compared (hack/e2e-upstream.sh)
#   make kind-e2e-conformance           the 10 [Conformance] probe specs, patched
#   make kind-e2e-density               the density A/B on a mixed cluster, committed under
#                                       e2e/results/kind-density-<time>/ (hack/e2e-density.sh)
#   make kind-e2e-chaos                 faults under many probes on the worker of a fresh
#                                       1-worker cluster (e2e/chaos_test.go), results under
#                                       e2e/results/kind-chaos-<time>/ (issue 13)
#   make kind-e2e-chaos-short           the same, short (1 min churn of at most 100 pods, 1 min
#                                       settles), results under _output/kind-chaos-short-<time>/
#   make kind-e2e-storm                 exec-probe storms on kind's containerd, stock and patched
#                                       kubelets swapped in place over the same pods (ABBA),
#                                       results under e2e/results/kind-storm-<time>/
#                                       (hack/e2e-storm.sh, issue 56)
#   make kind-image-from-base           kind's own node image (KIND_BASE, default the pinned
#                                       kind release's image of the minor, PW_KIND_NODE_IMAGES
#                                       in hack/kind-lib.sh; pull it first) with our kubelet:
#                                       probewheel/node:<fork version>-kindest, a tag of its own
#                                       (kind create cluster --image it, or hack/kind-up.sh --from-base)
#   make kind-try-from-base             the same offline, our stock image standing in for
#                                       kind's, a one-node cluster on it, a record under
#                                       e2e/results/kind-from-base-<date>.txt
#   make kind-ci                        what make ci runs: where hack/kind-preflight.sh says
#                                       Docker can run kind, the image and make kind-e2e-suite
#
# Each target builds what it needs first (incremental: seconds when nothing
# changed). The cluster's kubeconfig: $(hack/kind-up.sh --print-kubeconfig).

KIND_WORKERS ?= 2
KIND_MIXED   ?= 0
KIND_E2E_RUN ?= .
export KIND_WORKERS KIND_MIXED

.PHONY: kind-tools kind-image kind-images kind-up kind-down kind-e2e kind-e2e-suite \
        kind-e2e-upstream kind-e2e-conformance kind-e2e-density kind-e2e-storm kind-e2e-chaos kind-e2e-chaos-short \
        kind-preflight kind-ci kind-image-from-base kind-try-from-base

kind-tools:
	hack/kind-build-tools.sh kind

kind-image: kind-tools
	hack/kind-build-image.sh

# The images kind-up needs: the flavor's, or both for a mixed cluster.
kind-images: kind-tools
	@if [ "$(KIND_MIXED)" = 1 ]; then \
	  hack/kind-build-image.sh && hack/kind-build-image.sh --stock; \
	else \
	  hack/kind-build-image.sh; \
	fi

kind-image-from-base:
	hack/kind-from-base.sh

kind-try-from-base: kind-tools
	hack/kind-from-base.sh --try

kind-up: kind-images
	hack/kind-up.sh

kind-down:
	hack/kind-down.sh

# e2e/ against a worker of a fresh cluster (KIND_E2E_NODE, default the first
# worker: patched, or stock with KUBELET_FLAVOR=stock); torn down whatever happens.
# A Prometheus server on this host scrapes the cluster (TestPrometheus), and the
# stock kubelet is built for scripts/kubelet-swap.sh's rollback (TestKubeletSwap).
kind-e2e-suite: kind-images
	@rc=0; \
	if hack/build-kubelet.sh --stock && prom=$$(hack/install-prometheus.sh) && \
	  hack/kind-up.sh && hack/kind-load-images.sh; then \
	  KUBECONFIG=$$(hack/kind-up.sh --print-kubeconfig) \
	  PW_NODE_NAME=$${KIND_E2E_NODE:-$${KIND_CLUSTER_NAME:-probewheel}-worker} \
	  PW_KUBELET_RESTART_CMD=$(CURDIR)/hack/kind-restart-kubelet.sh \
	  PW_KUBELET_PID_CMD=$(CURDIR)/hack/kind-kubelet-pid.sh \
	  PW_PROMETHEUS_DIR=$$prom PW_STOCK_KUBELET=$$(bash -c 'source hack/lib.sh && echo "$$PW_BIN/kubelet-stock"') \
	  $(GO) test -tags e2e $(E2E_FLAGS) -run '$(KIND_E2E_RUN)' ./e2e/ || rc=$$?; \
	else rc=1; fi; \
	hack/kind-down.sh || rc=1; \
	exit $$rc

kind-e2e-upstream: kind-tools
	hack/kind-build-image.sh && hack/kind-build-image.sh --stock
	E2E_CLUSTER=kind hack/e2e-upstream.sh

kind-e2e-conformance: kind-image
	E2E_CLUSTER=kind hack/e2e-upstream.sh --conformance

kind-e2e-density: kind-tools
	hack/kind-build-image.sh && hack/kind-build-image.sh --stock
	E2E_CLUSTER=kind hack/e2e-density.sh

# The stock kubelet comes from its image's build (_output/bin/kubelet-stock).
kind-e2e-storm: kind-tools
	hack/kind-build-image.sh && hack/kind-build-image.sh --stock
	hack/e2e-storm.sh

# TestChaos (e2e/chaos_test.go) on the one worker of a fresh cluster
# (KIND_WORKERS=1, maxPods from hack/kind/chaos-kubelet-config.sh): kill -9 of
# the kubelet, containerd restarted, the node container restarted, 10 minutes
# of pod churn; chaos.json, summary.md and run.txt (command, commit, patch set, machine)
# into KIND_CHAOS_OUT (default e2e/results/kind-chaos-<UTC time>/); the test's log
# (test.log) and the kubelet's goroutine dumps before and after the churn
# (goroutines-*.txt.gz) into _output/kind-chaos-logs/<that directory's name>/, and kind's
# logs too when it fails, into _output/kind-logs/<that name>/ (not for git: the command
# makes them again). Torn down whatever happens.
kind-e2e-chaos: kind-image
	@set -o pipefail; \
	out=$${KIND_CHAOS_OUT:-$(CURDIR)/e2e/results/kind-chaos-$$(date -u +%Y%m%d-%H%M%S)}; \
	logs=$(CURDIR)/_output/kind-chaos-logs/$$(basename "$$out"); \
	mkdir -p "$$out" "$$logs"; rc=0; \
	{ echo "command: \`make kind-e2e-chaos\`"; \
	  bash -c 'source hack/lib.sh && echo "code: $$(pw::run_stamp patches), $$(pw::machine)"'; \
	  echo "logs: _output/kind-chaos-logs/$$(basename "$$out")/ (test.log, goroutines-*.txt.gz)"; } >"$$out/run.txt"; \
	export KIND_WORKERS=1 KIND_MIXED=0 KIND_KUBELET_CONFIG_HOOK=$(CURDIR)/hack/kind/chaos-kubelet-config.sh; \
	trap 'hack/kind-down.sh; exit 1' INT TERM; \
	if hack/kind-up.sh 2>&1 | tee "$$out/cluster.log" && hack/kind-load-images.sh; then \
	  KUBECONFIG=$$(hack/kind-up.sh --print-kubeconfig) \
	  PW_NODE_NAME=$${KIND_CLUSTER_NAME:-probewheel}-worker \
	  PW_KUBELET_PID_CMD=$(CURDIR)/hack/kind-kubelet-pid.sh \
	  PW_E2E_CHAOS_OUT=$$out PW_E2E_CHAOS_DUMPS=$$logs \
	  $(GO) test -tags e2e -count=1 -v -timeout 90m -run '^TestChaos$$' ./e2e/ 2>&1 | tee "$$logs/test.log" || rc=1; \
	else rc=1; fi; \
	if [ $$rc != 0 ]; then hack/kind-down.sh --export-logs "$(CURDIR)/_output/kind-logs/$$(basename "$$out")" || rc=1; \
	else hack/kind-down.sh || rc=1; fi; \
	echo "results: $$out"; \
	exit $$rc

# TestChaos's short form: every fault, then 1 minute of churn (at most
# 100 pods) and 1-minute settles; every knob can still be set.
kind-e2e-chaos-short:
	PW_E2E_CHAOS_CHURN=$${PW_E2E_CHAOS_CHURN:-1m} PW_E2E_CHAOS_CHURN_PODS=$${PW_E2E_CHAOS_CHURN_PODS:-100} \
	PW_E2E_CHAOS_SETTLE=$${PW_E2E_CHAOS_SETTLE:-1m} \
	KIND_CHAOS_OUT=$${KIND_CHAOS_OUT:-$(CURDIR)/_output/kind-chaos-short-$$(date -u +%Y%m%d-%H%M%S)} \
	$(MAKE) kind-e2e-chaos

kind-e2e: kind-e2e-suite kind-e2e-upstream kind-e2e-density

kind-preflight:
	hack/kind-preflight.sh

kind-ci:
	@if hack/kind-preflight.sh; then \
	  $(MAKE) kind-image && $(MAKE) kind-e2e-suite; \
	else \
	  echo "!!! SKIPPED the kind node image and make kind-e2e-suite: this machine cannot run kind (reason above)"; \
	fi
