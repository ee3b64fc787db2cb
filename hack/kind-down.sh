#!/usr/bin/env bash
# Deletes the kind cluster hack/kind-up.sh made (`make kind-down`) and checks
# that nothing is left: no node container, no Docker network, none of the
# nodes' volumes, no host route or iptables rule of ours. Exits 1 (listing
# them) if anything is. Safe to run twice, or after a failed kind-up.
#
#   hack/kind-down.sh [--export-logs DIR]     KIND_CLUSTER_NAME (probewheel)
#
# --export-logs first saves `kind export logs` (journals, kubelet and
# containerd logs, pod logs of every node) into DIR.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/kind-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/kind-lib.sh"

export_logs=""
case ${1:-} in
  "") ;;
  --export-logs) export_logs=${2:?--export-logs needs a directory} ;;
  *) pw::die "usage: ${0##*/} [--export-logs DIR]" ;;
esac
D=${PW_KIND_CLUSTER_DIR}
start=${SECONDS}
pw::kind_traps
pw::kind_step "docker engine"
pw::kind_docker_ok

bridge=""
[[ -f ${D}/network ]] && read -r _ bridge <"${D}/network"

pw::kind_step "kind delete cluster"
cluster_containers() { docker ps -aq --filter "label=io.x-k8s.kind.cluster=${PW_KIND_CLUSTER}"; }
if [[ -n $(cluster_containers) ]]; then
  if [[ -n ${export_logs} && -x ${PW_KIND_BIN}/kind ]]; then
    pw::kind_step "kind export logs ${export_logs}"
    # kind runs `docker exec --privileged` in the nodes.
    pw::kind_use_wrapper "$(docker inspect -f '{{.Config.Image}}' "$(cluster_containers | head -1)")"
    pw::kind export logs "${export_logs}" --name "${PW_KIND_CLUSTER}" >/dev/null 2>&1 || pw::log "kind export logs failed"
    pw::kind_step "kind delete cluster"
  fi
  if [[ -x ${PW_KIND_BIN}/kind ]]; then
    pw::kind delete cluster --name "${PW_KIND_CLUSTER}" --kubeconfig "$(pw::kind_kubeconfig)" >/dev/null 2>&1 ||
      pw::log "kind delete cluster failed; removing the containers directly"
  fi
  # What kind did not remove (or without a kind binary): the containers and their volumes.
  for c in $(cluster_containers); do docker rm -f -v "${c}" >/dev/null 2>&1 || true; done
fi
# Privileged-check containers a killed kind-up left behind.
for c in $(docker ps -aq --filter "label=${PW_KIND_LABEL}=preflight"); do docker rm -f -v "${c}" >/dev/null 2>&1 || true; done

pw::kind_step "host routes and the egress rule"
if [[ -f ${D}/routes ]]; then
  while read -r cidr _; do
    if [[ -n ${cidr} ]]; then ip route del "${cidr}" 2>/dev/null || true; fi
  done <"${D}/routes"
fi
if [[ -f ${D}/egress-rule ]]; then
  read -ra rule <"${D}/egress-rule"
  while iptables -C DOCKER-USER "${rule[@]}" 2>/dev/null; do iptables -D DOCKER-USER "${rule[@]}"; done
fi

pw::kind_step "docker network ${PW_KIND_NETWORK}"
if docker network inspect "${PW_KIND_NETWORK}" >/dev/null 2>&1; then
  docker network rm "${PW_KIND_NETWORK}" >/dev/null
fi

pw::kind_step "leftovers"
left=()
for c in $(cluster_containers); do left+=("container ${c} ($(docker inspect -f '{{.Name}}' "${c}" 2>/dev/null))"); done
docker network inspect "${PW_KIND_NETWORK}" >/dev/null 2>&1 && left+=("network ${PW_KIND_NETWORK}")
for n in $(docker network ls -q --filter "label=${PW_KIND_LABEL}=${PW_KIND_CLUSTER}"); do left+=("network ${n}"); done
if [[ -f ${D}/volumes ]]; then
  while read -r v; do
    [[ -n ${v} ]] && docker volume inspect "${v}" >/dev/null 2>&1 && left+=("volume ${v}")
  done <"${D}/volumes"
fi
if [[ -f ${D}/routes ]]; then
  while read -r cidr _; do
    [[ -n ${cidr} && -n $(ip route show "${cidr}" 2>/dev/null) ]] && left+=("route ${cidr}")
  done <"${D}/routes"
fi
[[ -n ${bridge} ]] && ip link show "${bridge}" >/dev/null 2>&1 && left+=("bridge ${bridge}")
if [[ -f ${D}/egress-rule ]]; then
  read -ra rule <"${D}/egress-rule"
  iptables -C DOCKER-USER "${rule[@]}" 2>/dev/null && left+=("iptables DOCKER-USER ${rule[*]}")
fi
if ((${#left[@]} > 0)); then
  printf '!!! left behind: %s\n' "${left[@]}" >&2
  exit 1
fi
# Keep the logs and the config of the last cluster; the rest is stale.
if [[ -d ${D} ]]; then
  find "${D}" -mindepth 1 -maxdepth 1 ! -name logs ! -name kind.yaml -exec rm -rf {} +
fi
PW_KIND_STEP=""
echo "kind cluster ${PW_KIND_CLUSTER} down, nothing left behind ($((SECONDS - start))s)"
