#!/usr/bin/env bash
# The kubelet hacker's inner loop on kind: copies a kubelet into a running
# node, restarts it there and waits until the node reports the new version
# and is Ready. Running pods keep running (kind's kubelet.service has
# KillMode=process: the containers belong to containerd's shims).
#
#   hack/kind-swap-kubelet.sh <node> [probewheel|stock|<path>] [--feature-gates=A=false,...] [--env=NAME=value ...] [--no-build]
#
#   probewheel (default)  _output/bin/kubelet, rebuilt first if patches/ changed (make kubelet)
#   stock                 _output/bin/kubelet-stock (make kubelet KUBELET_FLAVOR=stock)
#   <path>                any kubelet binary (built for linux/amd64, glibc: the node is Debian bookworm)
#   --feature-gates=...   also sets the kubelet's --feature-gates flag in the
#                         node's /etc/default/kubelet (KUBELET_EXTRA_ARGS; it
#                         overrides the KubeletConfiguration's featureGates);
#                         --feature-gates= removes it. Without a binary
#                         argument only the gates change (same binary, restarted).
#   --env=NAME=value      sets NAME in the kubelet's environment (a line of the
#                         node's /etc/default/kubelet), e.g. GODEBUG=madvdontneed=1;
#                         --env=NAME= removes it. Repeatable.
#
# The node's probewheel.io/kubelet label follows the binary (probewheel when its
# version names the fork). Prints how long the node took to be Ready again.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/kind-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/kind-lib.sh"

usage() { pw::die "usage: ${0##*/} <node> [probewheel|stock|<kubelet binary>] [--feature-gates=A=true,...] [--env=NAME=value ...] [--no-build]"; }
node="" which="" gates="" set_gates=0 build=1 envs=()
for a in "$@"; do
  case ${a} in
    --feature-gates=*) gates=${a#--feature-gates=} set_gates=1 ;;
    --no-build) build=0 ;;
    --env=*) envs+=("${a#--env=}") ;;
    -*) usage ;;
    *)
      if [[ -z ${node} ]]; then node=${a}; elif [[ -z ${which} ]]; then which=${a}; else usage; fi
      ;;
  esac
done
[[ -n ${node} ]] || usage
# Only gates or variables given: keep the binary the node runs.
[[ -z ${which} && (${set_gates} == 1 || ${#envs[@]} -gt 0) ]] && which=keep
which=${which:-probewheel}
pw::kind_traps

pw::kind_step "node ${node}"
pw::kind_docker_ok
pw::kind_check_version
pw::kind_nodes | grep -xF "${node}" >/dev/null ||
  pw::kind_fail "no node ${node} in kind cluster ${PW_KIND_CLUSTER} (nodes: $(pw::kind_nodes | tr '\n' ' '))"
[[ $(docker inspect -f '{{.State.Running}}' "${node}") == true ]] || pw::kind_fail "node container ${node} is not running"
before=$(pw::kind_node_kubelet_version "${node}")

pw::kind_step "kubelet binary (${which})"
case ${which} in
  keep) binary="" ;;
  probewheel | stock)
    binary=${PW_BIN}/kubelet
    [[ ${which} == stock ]] && binary+=-stock
    if ((build)); then
      KUBELET_FLAVOR=${which} nice -n 10 "${PW_ROOT}/hack/build-kubelet.sh" >&2
    fi
    ;;
  *) binary=$(realpath "${which}") ;;
esac
if [[ -n ${binary} ]]; then
  [[ -x ${binary} ]] || pw::kind_fail "${binary} is not an executable file"
  version=$("${binary}" --version 2>/dev/null) || pw::kind_fail "${binary} --version failed (not a kubelet for this machine?)"
  [[ ${version} =~ ^Kubernetes\ (v[0-9][^ ]*)$ ]] || pw::kind_fail "${binary} --version printed '${version}'"
  want=${BASH_REMATCH[1]}
else
  want=${before}
fi

if [[ -n ${binary} ]]; then
  pw::kind_step "copy into ${node}"
  docker cp "${binary}" "${node}:/usr/bin/kubelet.new" >/dev/null
  docker exec "${node}" sh -c 'chown root:root /usr/bin/kubelet.new && chmod 0755 /usr/bin/kubelet.new && mv -f /usr/bin/kubelet.new /usr/bin/kubelet'
fi
if ((set_gates)); then
  pw::kind_step "feature gates '${gates}'"
  pw::kind_set_feature_gates "${node}" "${gates}" >&2
fi

for kv in "${envs[@]}"; do
  pw::kind_step "environment ${kv}"
  pw::kind_set_env "${node}" "${kv}"
done
pw::kind_step "restart the kubelet in ${node}"
t0=${EPOCHREALTIME}
docker exec "${node}" systemctl restart kubelet
pw::kind_step "wait for ${node}: kubelet ${want} and Ready"
# Ready as the restarted kubelet reports it: a heartbeat after the restart
# (the version alone does not tell when the binary stays the same, and the
# condition is the old kubelet's until the new one posts its own).
node_swapped() {
  local beat
  beat=$(pw::kind_kubectl get node "${node}" -o jsonpath='{.status.conditions[?(@.type=="Ready")].lastHeartbeatTime}')
  [[ -n ${beat} ]] && (($(date -d "${beat}" +%s) >= ${t0%.*})) &&
    [[ $(pw::kind_node_kubelet_version "${node}") == "${want}" ]] && pw::kind_node_ready "${node}" &&
    docker exec "${node}" curl -sf http://127.0.0.1:10248/healthz >/dev/null
}
pw::wait 120 "node ${node} to report kubelet ${want} and be Ready" node_swapped
took=$(awk -v a="${t0}" -v b="${EPOCHREALTIME}" 'BEGIN { printf "%.1f", b - a }')

arm=stock
[[ ${want} == *probewheel* ]] && arm=probewheel
pw::kind_kubectl label node "${node}" --overwrite "${PW_KIND_NODE_LABEL}=${arm}" >/dev/null
PW_KIND_STEP=""
echo "${node}: kubelet ${before} -> ${want}${gates:+ (--feature-gates=${gates})}, Ready ${took}s after the restart (${PW_KIND_NODE_LABEL}=${arm})"
