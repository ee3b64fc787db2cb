#!/usr/bin/env bash
# The exec-probe storm on kind's containerd (`make kind-e2e-storm`, issue 56):
# e2e/storm_test.go (TestExecStorm) on the one worker of a fresh kind cluster,
# the stock and the patched kubelet swapped in place over the same pods
# (hack/kind-swap-kubelet.sh), one arm at a time.
#
#   hack/e2e-storm.sh
#   PW_E2E_STORM_PODS=20,40,80 PW_E2E_STORM_HUNG=0.1 PW_E2E_STORM_ARMS=stock,probewheel,probewheel,stock \
#     PW_E2E_STORM_WINDOW=90s STORM_OUT=e2e/results/kind-storm-<UTC time> hack/e2e-storm.sh
#   PW_E2E_STORM_SETTLE=0 (from the storm's onset), PW_E2E_STORM_STALL=30s+6s (containerd
#     stopped in each window; the window must run a minute past it): e2e/storm_test.go
#
# Writes calibration.txt (the idle runtime's execs a second at 1 to 16 in
# flight; PW_E2E_STORM_CALIBRATE=0 skips it), <pods>-<n>-<arm>.json per
# window and run.txt (command, code, machine) into STORM_OUT, the test's log
# to _output/kind-storm-logs/<its name>/test.log (not for git: the command
# makes it again); then
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
  echo "command: \`PW_E2E_STORM_PODS=${PW_E2E_STORM_PODS} PW_E2E_STORM_ARMS=${PW_E2E_STORM_ARMS} PW_E2E_STORM_HUNG=${PW_E2E_STORM_HUNG} PW_E2E_STORM_WINDOW=${PW_E2E_STORM_WINDOW}${PW_E2E_STORM_CALIBRATE:+ PW_E2E_STORM_CALIBRATE=${PW_E2E_STORM_CALIBRATE}}${PW_E2E_STORM_SETTLE:+ PW_E2E_STORM_SETTLE=${PW_E2E_STORM_SETTLE}}${PW_E2E_STORM_KUBELETS:+ PW_E2E_STORM_KUBELETS=${PW_E2E_STORM_KUBELETS}}${PW_E2E_STORM_STALL:+ PW_E2E_STORM_STALL=${PW_E2E_STORM_STALL}} hack/e2e-storm.sh\`"
  echo "code: $(pw::run_stamp "${measured[@]}"), $(pw::machine)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "logs: _output/kind-storm-logs/$(basename "${out}")/test.log"
} >"${out}/run.txt"

# Every density's pods on the one worker, beyond the default maxPods if asked.
most=$(tr ',' '\n' <<<"${PW_E2E_STORM_PODS}" | sort -n | tail -n 1)
export KIND_WORKERS=1 KIND_MIXED=0
export KIND_CHAOS_MAX_PODS=$((most + 20))
export KIND_KUBELET_CONFIG_HOOK=${PW_ROOT}/hack/kind/chaos-kubelet-config.sh
# calibrate <node>: the runtime's capacity on the idle node, before the storm
# and on the same cluster (hack/kind-exec-calibrate.sh: ExecSync of the probes'
# command at 1 to 16 in flight), so that a run says where its densities stand.
calibrate() {
  local node=$1 cid
  local pod="apiVersion: v1
kind: Pod
metadata: {name: storm-calibrate, namespace: default}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - {name: target, image: ${PW_PROBETARGET_IMAGE:-localhost/probewheel/probetarget:e2e}, imagePullPolicy: Never, args: [serve]}"
  # A new cluster's default service account may not exist yet.
  local i
  for i in $(seq 30); do
    pw::kind_kubectl apply -f - >/dev/null <<<"${pod}" && break
    ((i < 30)) || return 1
    sleep 2
  done
  # Called in an || list, where errexit does not hold: each step says.
  pw::kind_kubectl wait --for=condition=Ready pod/storm-calibrate --timeout=300s >/dev/null || return 1
  cid=$(docker exec "${node}" crictl ps -q --name target --label io.kubernetes.pod.name=storm-calibrate) || return 1
  [[ -n ${cid} ]] || return 1
  echo "command: hack/kind-exec-calibrate.sh ${node} <storm-calibrate's container>, on the idle node before the storm"
  "${PW_ROOT}/hack/kind-exec-calibrate.sh" "${node}" "${cid}" || return 1
  pw::kind_kubectl delete pod storm-calibrate --wait >/dev/null
}

rc=0
trap '"${PW_ROOT}/hack/kind-down.sh"; exit 1' INT TERM
if "${PW_ROOT}/hack/kind-up.sh" | tee -a "${out}/run.txt" && "${PW_ROOT}/hack/kind-load-images.sh"; then
  node=${PW_KIND_CLUSTER}-worker
  if [[ ${PW_E2E_STORM_CALIBRATE:-1} == 1 ]]; then
    calibrate "${node}" >"${out}/calibration.txt" || rc=1
  fi
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
