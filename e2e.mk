# e2e.mk — `make e2e` targets (docs/clusters.md), included by the Makefile.
#
#   make e2e                         cluster up (patched kubelet), tests, cluster down
#   make e2e KUBELET_FLAVOR=stock    the same against the unpatched kubelet
#   make e2e E2E_RUN=TestReadinessHandlers
#   make e2e-up / make e2e-down      keep a cluster around while iterating:
#   KUBECONFIG=_output/local-cluster/admin.kubeconfig go test -tags e2e -count=1 -v ./e2e/
#   make e2e-upstream                upstream's 46 probe specs (e2e.test) on the stock,
#                                    then the patched kubelet; fails if the patched one
#                                    fails a spec the stock one passes (hack/e2e-upstream.sh)
#   make e2e-conformance             the 10 [Conformance] probe specs on the patched kubelet (CI)
#   make e2e-density                 the real-kubelet density A/B (hack/e2e-density.sh; ~10 min)
#
# Needs root; hack/install-e2e-deps.sh installs the Debian packages (containerd,
# runc, containernetworking-plugins, etcd-server, ...) when they are missing. The cluster is torn down even when the tests fail; the exit
# status is the tests' (or 1 if the teardown left something behind).

E2E_CLUSTER_DIR ?= $(CURDIR)/_output/local-cluster
E2E_RUN         ?= .
E2E_FLAGS       ?= -count=1 -v -timeout 30m

.PHONY: e2e e2e-deps e2e-up e2e-down e2e-upstream e2e-conformance e2e-density

e2e: e2e-deps
	@rc=0; \
	if PW_CLUSTER_DIR=$(E2E_CLUSTER_DIR) hack/local-up-cluster.sh; then \
	  KUBECONFIG=$(E2E_CLUSTER_DIR)/admin.kubeconfig $(GO) test -tags e2e $(E2E_FLAGS) -run '$(E2E_RUN)' ./e2e/ || rc=$$?; \
	else rc=1; fi; \
	PW_CLUSTER_DIR=$(E2E_CLUSTER_DIR) hack/local-down-cluster.sh || rc=1; \
	exit $$rc

e2e-deps:
	hack/install-e2e-deps.sh

e2e-up: e2e-deps
	PW_CLUSTER_DIR=$(E2E_CLUSTER_DIR) hack/local-up-cluster.sh

e2e-down:
	PW_CLUSTER_DIR=$(E2E_CLUSTER_DIR) hack/local-down-cluster.sh

e2e-upstream: e2e-deps
	hack/e2e-upstream.sh

e2e-conformance: e2e-deps
	hack/e2e-upstream.sh --conformance

e2e-density: e2e-deps
	hack/e2e-density.sh
