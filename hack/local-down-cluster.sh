#!/usr/bin/env bash
# Tears down the cluster hack/local-up-cluster.sh started, and checks that
# nothing is left: no process, mount, network namespace, bridge or cgroup.
#
#   hack/local-down-cluster.sh [--purge]
#
# Order: the kubelet stops first (it would restart what we remove); then every
# pod sandbox is stopped and removed through the CRI (containerd unmounts,
# deletes the netns, calls CNI DEL); then containerd, the control plane and
# etcd stop, each by its recorded PID. Whatever survived that (shims, container
# processes, mounts, netns, the bridge, kubepods cgroups, host directories the
# stack created) is removed explicitly. Logs stay in _output/local-cluster/logs
# unless --purge, which removes the whole directory. Exits 1 if anything is left.
# Safe to run twice, or after a failed start.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local-cluster-lib.sh"

purge=0
case ${1:-} in
  "") ;;
  --purge) purge=1 ;;
  *) pw::die "usage: ${0##*/} [--purge]" ;;
esac
D=${PW_CLUSTER_DIR}
if [[ ! -d ${D} ]]; then
  echo "no cluster at ${D}"
  exit 0
fi
start=${SECONDS}

pw::cluster_stop kubelet 20
if pw::cluster_pid containerd >/dev/null && [[ -x ${PW_BIN}/e2e/cricleanup ]]; then
  "${PW_BIN}/e2e/cricleanup" -endpoint "unix://${PW_CONTAINERD_SOCK}" -timeout 90s ||
    pw::log "cricleanup reported errors; cleaning up the rest by hand"
fi
pw::cluster_stop containerd 20
pw::cluster_stop kube-scheduler
pw::cluster_stop kube-controller-manager
pw::cluster_stop kube-apiserver 30
pw::cluster_stop etcd

# Container processes still in the kubelet's cgroups (only if the CRI cleanup
# failed), then shims still serving our (now stopped) containerd.
mapfile -t cgs < <(pw::cluster_cgroups)
for cg in "${cgs[@]}"; do
  [[ -f ${cg}/cgroup.procs ]] || continue
  while read -r pid; do
    [[ -n ${pid} ]] || continue
    pw::log "killing container process ${pid} left in ${cg}"
    kill -KILL "${pid}" 2>/dev/null || true
  done <"${cg}/cgroup.procs"
done
for pid in $(pw::cluster_shims); do
  pw::log "killing leftover shim ${pid}"
  kill -KILL "${pid}" 2>/dev/null || true
done
sleep 0.3

# Mounts under the cluster directory (overlay rootfs, shm, pod volumes), deepest first.
for m in $(pw::cluster_mounts); do
  umount "${m}" 2>/dev/null || umount -l "${m}" 2>/dev/null || pw::log "cannot unmount ${m}"
done
for n in $(pw::cluster_new_netns); do
  pw::log "removing leftover netns ${n}"
  ip netns delete "${n##*/}" 2>/dev/null || { umount "${n}" 2>/dev/null; rm -f "${n}"; } || true
done
if ip link show "${PW_CNI_BRIDGE}" >/dev/null 2>&1; then
  ip link delete "${PW_CNI_BRIDGE}" || pw::log "cannot delete bridge ${PW_CNI_BRIDGE}"
fi
for cg in $(pw::cluster_cgroups); do
  rmdir "${cg}" 2>/dev/null || pw::log "cannot remove cgroup ${cg}"
done
rm -f /var/lib/cni/results/"${PW_CNI_NETWORK}"-* 2>/dev/null || true
if [[ -f ${D}/before/host-dirs ]]; then
  for p in "${PW_CLUSTER_KUBELET_DIRS[@]}"; do
    if [[ -d ${p} ]] && ! grep -qxF "${p}" "${D}/before/host-dirs"; then
      if awk -v d="${p}/" 'index($5, d) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
        pw::log "${p} has mounts; left in place"
      else
        rm -rf "${p}"
      fi
    fi
  done
  for p in "${PW_CLUSTER_HOST_DIRS[@]}"; do
    if [[ -d ${p} ]] && ! grep -qxF "${p}" "${D}/before/host-dirs"; then
      rmdir "${p}" 2>/dev/null || pw::log "${p} was created by the cluster but is not empty; left in place"
    fi
  done
fi

# Verify.
left=()
for d in "${PW_CLUSTER_DAEMONS[@]}"; do
  pid=$(pw::cluster_pid "${d}") && left+=("process ${d} ${pid}")
done
for pid in $(pw::cluster_processes) $(pw::cluster_shims); do left+=("process ${pid}: $(tr '\0' ' ' <"/proc/${pid}/cmdline" 2>/dev/null | cut -c1-120)"); done
for m in $(pw::cluster_mounts); do left+=("mount ${m}"); done
for n in $(pw::cluster_new_netns); do left+=("netns ${n}"); done
ip link show "${PW_CNI_BRIDGE}" >/dev/null 2>&1 && left+=("bridge ${PW_CNI_BRIDGE}")
for cg in $(pw::cluster_cgroups); do left+=("cgroup ${cg}"); done
if ((${#left[@]} > 0)); then
  printf '!!! left behind: %s\n' "${left[@]}" >&2
  exit 1
fi
if ((purge)); then
  rm -rf "${D}"
  echo "cluster down and ${D} removed ($((SECONDS - start))s)"
else
  # Keep the logs for debugging; the state is useless without the daemons.
  find "${D}" -mindepth 1 -maxdepth 1 ! -name logs ! -name flavor ! -name kubelet-binary -exec rm -rf {} +
  echo "cluster down, nothing left behind ($((SECONDS - start))s); logs in ${D}/logs"
fi
