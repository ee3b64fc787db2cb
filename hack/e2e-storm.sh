#!/usr/bin/env bash
# The exec-probe storm on kind's containerd (`make kind-e2e-storm`, issue 56):
# e2e/storm_test.go (TestExecStorm) on the one worker of a fresh kind cluster,
# the stock and the patched kubelet swapped in place over the same pods
# (hack/kind-swap-kubelet.sh), one arm at a time.
#
#   hack/e2e-storm.sh
#   PW_E2E_STORM_PODS=20,40,80 PW_E2E_STORM_HUNG=0.1 PW_E2E_STORM_ARMS=stock,probewheel,probewheel,stock \
#     PW_E2E_STORM_WINDOW=90s STORM_OUT=e2e/results/kind-storm-<UTC time> hack/e2e-storm.sh
#
# Writes <pods>-<n>-<arm>.json per window and run.txt (command, code,
# machine) into STORM_OUT, the test's log to _output/kind-storm-logs/<its
# name>/test.log (not for git: the command makes it again); then
# scripts/plot.sh renders summary.md and storm.png. Long (each window: the
# swap, a 20 s settle, the window; each density: its pods' start), so not
# part of CI.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/kind-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/kind-lib.sh"

export PW_E2E_STORM_PODS=${PW_E2E_STORM_PODS:-20,40,80}
export PW_E2E_STORM_ARMS=${PW_E2E_STORM_ARMS:-stock,probewheel,probewheel,stock}
export PW_E2E_STORM_HUNG=${PW_E2E_STORM_HUNG:-0}
export PW_E2E_STORM_WINDOW=${PW_E2E_STORM_WINDOW:-90s}
# What the figures depend on: the kubelets, the test and its target, this script.
measured=(patches e2e hack bench/report)
pw::require_committed "${measured[@]}"
out=${STORM_OUT:-${PW_ROOT}/e2e/results/kind-storm-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "${out}"
out=$(cd "${out}" && pwd)
logs=${PW_OUTPUT}/kind-storm-logs/$(basename "${out}")
mkdir -p "${logs}"
{
  echo "command: \`PW_E2E_STORM_PODS=${PW_E2E_STORM_PODS} PW_E2E_STORM_ARMS=${PW_E2E_STORM_ARMS} PW_E2E_STORM_HUNG=${PW_E2E_STORM_HUNG} PW_E2E_STORM_WINDOW=${PW_E2E_STORM_WINDOW}${PW_E2E_STORM_SETTLE:+ PW_E2E_STORM_SETTLE=${PW_E2E_STORM_SETTLE}}${PW_E2E_STORM_KUBELETS:+ PW_E2E_STORM_KUBELETS=${PW_E2E_STORM_KUBELETS}} hack/e2e-storm.sh\`"
  echo "code: $(pw::run_stamp "${measured[@]}"), $(pw::machine)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "logs: _output/kind-storm-logs/$(basename "${out}")/test.log"
} >"${out}/run.txt"

# Every density's pods on the one worker, beyond the default maxPods if asked.
most=$(tr ',' '\n' <<<"${PW_E2E_STORM_PODS}" | sort -n | tail -n 1)
export KIND_WORKERS=1 KIND_MIXED=0
export KIND_CHAOS_MAX_PODS=$((most + 20))
export KIND_KUBELET_CONFIG_HOOK=${PW_ROOT}/hack/kind/chaos-kubelet-config.sh
rc=0
trap '"${PW_ROOT}/hack/kind-down.sh"; exit 1' INT TERM
if "${PW_ROOT}/hack/kind-up.sh" | tee -a "${out}/run.txt" && "${PW_ROOT}/hack/kind-load-images.sh"; then
  node=${KIND_CLUSTER_NAME:-probewheel}-worker
  (cd "${PW_ROOT}" && KUBECONFIG=$("${PW_ROOT}/hack/kind-up.sh" --print-kubeconfig) PW_NODE_NAME=${node} \
    PW_KUBELET_PID_CMD=${PW_ROOT}/hack/kind-kubelet-pid.sh \
    PW_E2E_STORM_SWAP_CMD="${PW_ROOT}/hack/kind-swap-kubelet.sh --no-build" PW_E2E_STORM_OUT=${out} \
    go test -tags e2e -count=1 -v -timeout 180m -run '^TestExecStorm$' ./e2e/) 2>&1 | tee "${logs}/test.log" || rc=1
else
  rc=1
fi
"${PW_ROOT}/hack/kind-down.sh" || rc=1
"${PW_ROOT}/scripts/plot.sh" "${out}" || rc=1
echo "results: ${out}"
exit "${rc}"
