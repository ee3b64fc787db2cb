#!/usr/bin/env bash
# Runs upstream's own probe e2e specs (k8s.io/kubernetes $KUBE_VERSION,
# test/e2e/common/node/container_probe.go) against the local cluster, once per
# kubelet, each on a fresh cluster, and compares them:
#
#   hack/e2e-upstream.sh                 both describes ("Probing container",
#                                        "Probing restartable init container",
#                                        46 specs) on the stock, then the patched kubelet
#   hack/e2e-upstream.sh --conformance   the 10 [Conformance] "Probing container"
#                                        specs on the patched kubelet only (CI)
#   E2E_UPSTREAM_FLAVORS="patched" E2E_UPSTREAM_FOCUS='...' hack/e2e-upstream.sh
#   E2E_CLUSTER=kind hack/e2e-upstream.sh
#                                        the same on a fresh kind cluster per kubelet
#                                        (hack/kind-up.sh [--stock], every node on that
#                                        kubelet; make kind-e2e-upstream)
#
# Builds what is missing first (e2e.test, ginkgo, agnhost: hack/build-cluster-binaries.sh;
# their images: hack/build-e2e-images.sh --upstream). Each run writes
# ginkgo's JSON and JUnit reports and the cluster's logs into
# ${E2E_UPSTREAM_OUT:-_output/e2e-upstream/<UTC time>}/<flavor>/, and
# hack/tools/e2esummary writes summary.md there. Exit status: 1 when a spec that
# passed on the stock kubelet did not pass on the patched one or, with a single
# kubelet, when any spec failed; 0 otherwise.
#
# Parallelism: ginkgo --procs=${E2E_UPSTREAM_PROCS:-8}. The specs mostly wait
# (several watch a container for minutes by design), so more processes than
# cores is right; timing-sensitive specs still see a loaded 2-core node.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local-cluster-lib.sh"

# The sidecar describe's text carries its labels before the title:
# "[sig-node] [NodeConformance] [FeatureGate:SidecarContainers] Probing restartable init container ...".
all_focus='\[sig-node\] (\[[^]]+\] )*Probing (container|restartable init container) '
conformance_focus='\[sig-node\] Probing container .*\[Conformance\]'
focus=${E2E_UPSTREAM_FOCUS:-${all_focus}}
flavors=${E2E_UPSTREAM_FLAVORS:-stock patched}
case ${1:-} in
  "") ;;
  --conformance)
    focus=${E2E_UPSTREAM_FOCUS:-${conformance_focus}}
    flavors=${E2E_UPSTREAM_FLAVORS:-patched}
    ;;
  *) pw::die "usage: ${0##*/} [--conformance]" ;;
esac
procs=${E2E_UPSTREAM_PROCS:-8}
cluster=${E2E_CLUSTER:-local}
out=${E2E_UPSTREAM_OUT:-${PW_OUTPUT}/e2e-upstream/$(date -u +%Y%m%d-%H%M%S)}
[[ $(id -u) == 0 ]] || pw::die "must run as root (the local cluster needs it)"
# The cluster each flavor runs on: cluster_up <flavor>, cluster_down, kubeconfig, cluster_logs <dir>.
case ${cluster} in
  local)
    cluster_up() { if [[ $1 == stock ]]; then "${PW_ROOT}/hack/local-up-cluster.sh" --stock; else "${PW_ROOT}/hack/local-up-cluster.sh"; fi; }
    cluster_down() { "${PW_ROOT}/hack/local-down-cluster.sh"; }
    kubeconfig=${PW_CLUSTER_DIR}/admin.kubeconfig
    cluster_logs() { cp -r "${PW_CLUSTER_DIR}/logs" "$1" 2>/dev/null || true; }
    ;;
  kind)
    cluster_up() {
      if [[ $1 == stock ]]; then "${PW_ROOT}/hack/kind-up.sh" --stock; else "${PW_ROOT}/hack/kind-up.sh"; fi &&
        "${PW_ROOT}/hack/kind-load-images.sh"
    }
    cluster_logs() { kind_logs=$1; } # exported by kind-down, before the nodes go
    cluster_down() { "${PW_ROOT}/hack/kind-down.sh" --export-logs "${kind_logs}"; }
    kubeconfig=$("${PW_ROOT}/hack/kind-up.sh" --print-kubeconfig)
    ;;
  *) pw::die "E2E_CLUSTER=${cluster}: want local or kind" ;;
esac

"${PW_ROOT}/hack/install-e2e-deps.sh"
"${PW_ROOT}/hack/build-cluster-binaries.sh" e2e.test ginkgo agnhost
"${PW_ROOT}/hack/build-e2e-images.sh" --upstream
(cd "${PW_ROOT}" && go build -o "${PW_BIN}/e2e/" ./hack/tools/e2esummary)

mkdir -p "${out}"
reports=()
for flavor in ${flavors}; do
  dir=${out}/${flavor}
  mkdir -p "${dir}"
  pw::log "upstream e2e on the ${flavor} kubelet (${cluster} cluster): focus '${focus}', ${procs} processes, reports in ${dir}"
  rc=0
  if cluster_up "${flavor}"; then
    start=${SECONDS}
    "${PW_BIN}/ginkgo" run --procs="${procs}" --focus="${focus}" --no-color \
      --timeout=90m --output-dir="${dir}" --json-report=report.json --junit-report=junit.xml \
      "${PW_BIN}/e2e.test" -- \
      --kubeconfig="${kubeconfig}" --provider=skeleton \
      --report-dir="${dir}" --e2e-output-dir="${dir}" \
      >"${dir}/ginkgo.log" 2>&1 || rc=$?
    pw::log "${flavor}: ginkgo exit ${rc} after $((SECONDS - start))s (log ${dir}/ginkgo.log)"
    tail -n 30 "${dir}/ginkgo.log" >&2
  else
    rc=1
  fi
  cluster_logs "${dir}/cluster-logs"
  cluster_down || pw::die "teardown after the ${flavor} run left something behind"
  [[ -s ${dir}/report.json ]] || pw::die "${flavor}: no ginkgo report (cluster or e2e.test failed to start; see ${dir})"
  reports+=("${flavor}=${dir}/report.json")
done

summary_rc=0
"${PW_BIN}/e2e/e2esummary" -o "${out}/summary.md" "${reports[@]}" || summary_rc=$?
cat "${out}/summary.md"
echo "results: ${out}"
if ((${#reports[@]} == 1)); then
  # No reference kubelet: every spec must pass.
  grep -q '^- [a-z]*: [0-9]* passed, 0 failed, 0 other' "${out}/summary.md" || exit 1
fi
exit "${summary_rc}"
