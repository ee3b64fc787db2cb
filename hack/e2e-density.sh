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
# E2E_DENSITY_OUT, then scripts/plot.sh (scripts/density.py) renders
# summary.md (medians over the rounds) and density.png there. Long (each
# kubelet: pods start, 15 s settle, the window, teardown; about 5 min each at
# the defaults; 20 min for the default 2 rounds), so not part of CI.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local-cluster-lib.sh"

flavors=${E2E_DENSITY_FLAVORS:-stock patched}
rounds=${E2E_DENSITY_ROUNDS:-2}
[[ ${rounds} =~ ^[1-9][0-9]*$ ]] || pw::die "E2E_DENSITY_ROUNDS=${rounds}: want a positive integer"
out=${E2E_DENSITY_OUT:-${PW_ROOT}/e2e/results/density-$(date -u +%Y%m%d-%H%M%S)}
[[ $(id -u) == 0 ]] || pw::die "must run as root (the local cluster needs it)"
"${PW_ROOT}/hack/install-e2e-deps.sh"
mkdir -p "${out}"
{
  echo "command: hack/e2e-density.sh (E2E_DENSITY_FLAVORS='${flavors}' E2E_DENSITY_ROUNDS=${rounds})"
  echo "pods=${PW_E2E_DENSITY_PODS:-100} period=${PW_E2E_DENSITY_PERIOD:-1s} window=${PW_E2E_DENSITY_WINDOW:-2m}"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r), $(go version)"
} >"${out}/run.txt"

rc=0
for ((round = 1; round <= rounds; round++)); do
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
