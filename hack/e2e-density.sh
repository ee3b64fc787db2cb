#!/usr/bin/env bash
# The real-kubelet density A/B (`make e2e-density`): the same pods on a fresh
# local cluster with the stock kubelet, then with the patched one, one after
# the other in one run, measured by e2e/density_test.go (TestDensity).
#
#   hack/e2e-density.sh
#   PW_E2E_DENSITY_PODS=100 PW_E2E_DENSITY_PERIOD=1s PW_E2E_DENSITY_WINDOW=2m E2E_DENSITY_ROUNDS=2 \
#     E2E_DENSITY_FLAVORS="stock patched" E2E_DENSITY_OUT=e2e/results/density-<UTC time> hack/e2e-density.sh
#
# Rounds alternate the order (stock patched, patched stock, ...), so that a
# drift of the shared machine over the run does not always favour the same
# kubelet. Writes <flavor>-<round>.json (and .log, the test's output) into
# E2E_DENSITY_OUT, then scripts/plot.sh (bench/report density, bench/plots/density.py) renders
# summary.md (medians over the rounds) and density.png there. Long (each
# kubelet: pods start, 15 s settle, the window, teardown; about 5 min each at
# the defaults; 20 min for the default 2 rounds), so not part of CI.
#
#   E2E_CLUSTER=kind hack/e2e-density.sh          (make kind-e2e-density)
#
# does the A/B on one mixed kind cluster (hack/kind-up.sh --mixed: a stock and
# a patched worker under one control plane) instead, 50 pods per worker by
# default (startup failureThreshold 60: see e2e/density_test.go): each round runs
# TestDensity once with the same pods pinned to both workers and one
# measurement window for both (PW_E2E_DENSITY_NODES), so both kubelets see
# the same load at the same time. Rounds alternate which worker runs which
# kubelet (hack/kind-swap-kubelet.sh between rounds) and which node's pods
# are created first. Results go to e2e/results/kind-density-<UTC time>/ by
# default, round-<n>.log being each round's test output.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local-cluster-lib.sh"

flavors=${E2E_DENSITY_FLAVORS:-stock patched}
rounds=${E2E_DENSITY_ROUNDS:-2}
[[ ${rounds} =~ ^[1-9][0-9]*$ ]] || pw::die "E2E_DENSITY_ROUNDS=${rounds}: want a positive integer"
cluster=${E2E_CLUSTER:-local}
[[ ${cluster} == local || ${cluster} == kind ]] || pw::die "E2E_CLUSTER=${cluster}: want local or kind"
prefix=""
if [[ ${cluster} == kind ]]; then
  prefix=kind-
  # Per worker: 50 + 50 pods on the one machine is the local run's 100, and
  # three nested nodes on 2 cores start containers slowly (e2e/density_test.go).
  export PW_E2E_DENSITY_PODS=${PW_E2E_DENSITY_PODS:-50}
  export PW_E2E_DENSITY_STARTUP_FAILURES=${PW_E2E_DENSITY_STARTUP_FAILURES:-60}
fi
out=${E2E_DENSITY_OUT:-${PW_ROOT}/e2e/results/${prefix}density-$(date -u +%Y%m%d-%H%M%S)}
[[ $(id -u) == 0 ]] || pw::die "must run as root (the local cluster needs it)"
"${PW_ROOT}/hack/install-e2e-deps.sh"
mkdir -p "${out}"
{
  echo "command: E2E_CLUSTER=${cluster} hack/e2e-density.sh (E2E_DENSITY_FLAVORS='${flavors}' E2E_DENSITY_ROUNDS=${rounds})"
  echo "pods=${PW_E2E_DENSITY_PODS:-100} period=${PW_E2E_DENSITY_PERIOD:-1s} window=${PW_E2E_DENSITY_WINDOW:-2m} startup failureThreshold=${PW_E2E_DENSITY_STARTUP_FAILURES:-3}"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r), $(go version)"
} >"${out}/run.txt"

rc=0
if [[ ${cluster} == kind ]]; then
  # One mixed cluster for every round.
  [[ ${flavors} == "stock patched" ]] || pw::die "E2E_CLUSTER=kind compares stock and patched only (E2E_DENSITY_FLAVORS='${flavors}')"
  KIND_WORKERS=2 "${PW_ROOT}/hack/kind-up.sh" --mixed | tee -a "${out}/run.txt"
  "${PW_ROOT}/hack/kind-load-images.sh" "${PW_OUTPUT}/images/probetarget.tar"
  kubeconfig=$("${PW_ROOT}/hack/kind-up.sh" --print-kubeconfig)
  kubectl=("${PW_BIN}/kubectl" --kubeconfig "${kubeconfig}")
  workers=$("${kubectl[@]}" get nodes -l '!node-role.kubernetes.io/control-plane' -o name | sed 's#^node/##' | sort)
  for ((round = 1; round <= rounds; round++)); do
    if ((round > 1)); then
      # Each kubelet moves to the other worker.
      for w in ${workers}; do
        arm=$("${kubectl[@]}" get node "${w}" -o jsonpath='{.metadata.labels.probewheel\.io/kubelet}')
        if [[ ${arm} == stock ]]; then to=probewheel; else to=stock; fi
        "${PW_ROOT}/hack/kind-swap-kubelet.sh" "${w}" "${to}" --no-build | tee -a "${out}/run.txt" || rc=1
      done
    fi
    stock_node=$("${kubectl[@]}" get nodes -l probewheel.io/kubelet=stock,'!node-role.kubernetes.io/control-plane' -o name | sed 's#^node/##')
    patched_node=$("${kubectl[@]}" get nodes -l probewheel.io/kubelet=probewheel,'!node-role.kubernetes.io/control-plane' -o name | sed 's#^node/##')
    [[ -n ${stock_node} && -n ${patched_node} && ${stock_node} != *$'\n'* && ${patched_node} != *$'\n'* ]] ||
      pw::die "round ${round}: want one stock and one patched worker, have '${stock_node}' and '${patched_node}'"
    targets="${stock_node}=${out}/stock-${round}.json,${patched_node}=${out}/patched-${round}.json"
    if ((round % 2 == 0)); then # the patched node's pods first
      targets="${patched_node}=${out}/patched-${round}.json,${stock_node}=${out}/stock-${round}.json"
    fi
    echo "round ${round}: stock on ${stock_node}, patched on ${patched_node}" | tee -a "${out}/run.txt"
    pw::log "density round ${round}/${rounds}: ${targets}"
    (cd "${PW_ROOT}" && KUBECONFIG=${kubeconfig} PW_E2E_DENSITY_NODES=${targets} PW_NODE_NAME=${patched_node} \
      PW_KUBELET_PID_CMD=${PW_ROOT}/hack/kind-kubelet-pid.sh \
      go test -tags e2e -count=1 -v -timeout 60m -run '^TestDensity$' ./e2e/) >"${out}/round-${round}.log" 2>&1 || rc=1
    tail -n 5 "${out}/round-${round}.log" >&2
    # The test deletes its namespace; wait for its pods to go before the next round.
    for _ in $(seq 300); do
      grep -q '^namespace/e2e-testdensity' <<<"$("${kubectl[@]}" get ns -o name)" || break
      sleep 1
    done
  done
  "${PW_ROOT}/hack/kind-down.sh" || rc=1
fi
for ((round = 1; round <= rounds; round++)); do
  [[ ${cluster} == local ]] || break
  order=${flavors}
  if ((round % 2 == 0)); then # reversed
    order=$(tr ' ' '\n' <<<"${flavors}" | tac | tr '\n' ' ')
  fi
  for flavor in ${order}; do
    up_args=()
    [[ ${flavor} == stock ]] && up_args=(--stock)
    name=${flavor}-${round}
    pw::log "density round ${round}/${rounds} on the ${flavor} kubelet -> ${out}/${name}.json"
    if "${PW_ROOT}/hack/local-up-cluster.sh" "${up_args[@]}"; then
      (cd "${PW_ROOT}" && KUBECONFIG=${PW_CLUSTER_DIR}/admin.kubeconfig PW_E2E_DENSITY_OUT=${out}/${name}.json \
        go test -tags e2e -count=1 -v -timeout 40m -run '^TestDensity$' ./e2e/) >"${out}/${name}.log" 2>&1 || rc=1
      tail -n 5 "${out}/${name}.log" >&2
    else
      rc=1
    fi
    "${PW_ROOT}/hack/local-down-cluster.sh" || rc=1
  done
done
"${PW_ROOT}/scripts/plot.sh" "${out}" || rc=1
echo "results: ${out}"
exit "${rc}"
