#!/usr/bin/env bash
# KIND_KUBELET_CONFIG_HOOK for `make kind-e2e-chaos` (e2e/chaos_test.go):
# room on the one worker for the baseline's 80 pods, the node's own and the
# churn's (at most PW_E2E_CHAOS_CHURN_LIVE at once, 50) beyond the default
# maxPods of 110 (hack/e2e-storm.sh sets KIND_CHAOS_MAX_PODS to its densest
# run's pods and 20). Run as <hook> <node> <probewheel|stock>; prints
# KubeletConfiguration fields (hack/kind-up.sh merges them in).
set -euo pipefail
echo "maxPods: ${KIND_CHAOS_MAX_PODS:-160}"
