# shellcheck shell=bash
# shellcheck disable=SC2034 # the PW_CLUSTER_* settings are used by the sourcing scripts
# Helpers for the single-node e2e cluster (hack/local-up-cluster.sh,
# hack/local-down-cluster.sh, hack/build-e2e-images.sh). Source it; do not run it.
#
# Kept out of hack/lib.sh on purpose: pw::prepare_tree hashes hack/lib.sh into
# the build trees' stamp, so every edit there re-prepares the trees and
# relinks the kubelets. Nothing here affects how a tree or a binary is built.
#
# Everything the cluster writes lives under ${PW_CLUSTER_DIR}
# (_output/local-cluster/ by default):
#   pki/          CA, serving and client certificates, service-account keys (openssl)
#   *.kubeconfig  one per component; admin.kubeconfig is what kubectl and the e2e tests use
#   etcd/ containerd/ kubelet/ cni/ pod-logs/   daemon state
#   logs/<daemon>.log, pids/<daemon>.pid        every daemon runs under setsid and
#                                               is stopped by the PID recorded here
#   before/       which host paths existed before the cluster started, so the
#                 teardown removes only what the cluster created

# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PW_CLUSTER_DIR=${PW_CLUSTER_DIR:-${PW_OUTPUT}/local-cluster}
PW_NODE_NAME=${PW_NODE_NAME:-probewheel-node}
# What v1.36's kubeadm pins (cmd/kubeadm/app/constants: PauseVersion); the
# kubelet itself no longer chooses the sandbox image, containerd's
# sandbox_image does, and we set it to this.
PW_PAUSE_IMAGE=${PW_PAUSE_IMAGE:-registry.k8s.io/pause:3.10.2}
PW_PROBETARGET_IMAGE=${PW_PROBETARGET_IMAGE:-localhost/probewheel/probetarget:e2e}
PW_ETCD_PORT=${PW_ETCD_PORT:-12379}
PW_ETCD_PEER_PORT=${PW_ETCD_PEER_PORT:-12380}
PW_APISERVER_PORT=${PW_APISERVER_PORT:-6443}
PW_SERVICE_CIDR=${PW_SERVICE_CIDR:-10.0.0.0/24}
PW_SERVICE_IP=${PW_SERVICE_IP:-10.0.0.1}
PW_POD_CIDR=${PW_POD_CIDR:-10.244.0.0/24}
PW_CNI_NETWORK=pw-bridge
PW_CNI_BRIDGE=pwbr0
PW_CONTAINERD_SOCK=${PW_CLUSTER_DIR}/containerd/containerd.sock
PW_CNI_BIN_DIR=${PW_CNI_BIN_DIR:-/usr/lib/cni}
# Daemons in start order; the teardown stops them in reverse.
PW_CLUSTER_DAEMONS=(etcd containerd kube-apiserver kube-controller-manager kube-scheduler kubelet)
# Host paths the runtime stack may create outside PW_CLUSTER_DIR; removed by
# the teardown when they did not exist before the cluster started and are empty.
# Shared runtime directories: removed only when empty.
PW_CLUSTER_HOST_DIRS=(/run/containerd/s /run/containerd/fifo /run/containerd/runc/k8s.io /run/containerd/runc
  /run/containerd /run/netns /var/lib/cni/results /var/lib/cni)
# Paths only a kubelet writes (the device-plugin socket and checkpoint are
# hard-coded to /var/lib/kubelet/device-plugins, container log symlinks to
# /var/log/containers): removed with their content when the cluster created them.
PW_CLUSTER_KUBELET_DIRS=(/var/lib/kubelet /var/log/containers /var/log/pods)

# pw::cluster_host_ip: the address the node registers with (the default route's source).
pw::cluster_host_ip() {
  ip -4 route get 1.1.1.1 2>/dev/null | sed -n '1s/.* src \([0-9.]*\).*/\1/p'
}

# pw::cluster_pid <daemon>: the recorded PID if that process is still alive
# and still the daemon we started (its /proc/PID/cmdline contains the
# recorded binary); fails otherwise.
pw::cluster_pid() {
  local f=${PW_CLUSTER_DIR}/pids/$1.pid pid bin cmdline
  [[ -f ${f} ]] || return 1
  read -r pid bin <"${f}" || return 1
  [[ -n ${pid} && -r /proc/${pid}/cmdline ]] || return 1
  cmdline=$(tr '\0' ' ' <"/proc/${pid}/cmdline" 2>/dev/null) || return 1
  [[ ${cmdline} == *"${bin}"* ]] || return 1
  echo "${pid}"
}

# pw::cluster_start <daemon> <binary> [args...]: starts it in its own session
# (setsid, no controlling terminal, stdin /dev/null), logs to logs/<daemon>.log,
# records "PID binary" in pids/<daemon>.pid.
pw::cluster_start() {
  local name=$1 bin=$2 pid
  shift 2
  mkdir -p "${PW_CLUSTER_DIR}/logs" "${PW_CLUSTER_DIR}/pids"
  pw::log "starting ${name}"
  # setsid execs in place (the background child is not a group leader), so $! is the daemon.
  setsid "${bin}" "$@" </dev/null >>"${PW_CLUSTER_DIR}/logs/${name}.log" 2>&1 &
  pid=$!
  echo "${pid} ${bin}" >"${PW_CLUSTER_DIR}/pids/${name}.pid"
  sleep 0.2
  pw::cluster_pid "${name}" >/dev/null || {
    tail -20 "${PW_CLUSTER_DIR}/logs/${name}.log" >&2 || true
    pw::die "${name} exited right after starting (log: ${PW_CLUSTER_DIR}/logs/${name}.log)"
  }
}

# pw::cluster_stop <daemon> [grace seconds]: SIGTERM by recorded PID, SIGKILL
# after the grace period. A stale pid file (process gone or reused) is just removed.
pw::cluster_stop() {
  local name=$1 grace=${2:-15} pid i t0=${EPOCHREALTIME}
  if pid=$(pw::cluster_pid "${name}"); then
    pw::log "stopping ${name} (pid ${pid})"
    kill -TERM "${pid}" 2>/dev/null || true
    for ((i = 0; i < grace * 10; i++)); do
      [[ -d /proc/${pid} ]] || break
      sleep 0.1
    done
    if [[ -d /proc/${pid} ]]; then
      pw::log "${name} (pid ${pid}) did not exit in ${grace}s, SIGKILL"
      kill -KILL "${pid}" 2>/dev/null || true
      sleep 0.5
    fi
    pw::log "${name} stopped in $(awk -v a="${t0}" -v b="${EPOCHREALTIME}" 'BEGIN { printf "%.1f", b - a }')s"
  fi
  rm -f "${PW_CLUSTER_DIR}/pids/${name}.pid"
}

# pw::cluster_mounts: mount points under PW_CLUSTER_DIR, deepest first.
pw::cluster_mounts() {
  awk -v d="${PW_CLUSTER_DIR}/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

# pw::cluster_shims: PIDs of containerd shims serving our containerd (their
# command line names our socket); they outlive containerd by design.
pw::cluster_shims() {
  local p
  for p in /proc/[0-9]*; do
    if tr '\0' ' ' <"${p}/cmdline" 2>/dev/null | grep -- "containerd-shim.*-address ${PW_CONTAINERD_SOCK} " >/dev/null; then
      echo "${p#/proc/}"
    fi
  done
}

# pw::cluster_cgroups: kubepods cgroup directories the kubelet created, deepest first.
pw::cluster_cgroups() {
  local root
  for root in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods /sys/fs/cgroup/*/kubepods.slice /sys/fs/cgroup/kubepods.slice; do
    [[ -d ${root} ]] && find "${root}" -depth -type d
  done
  return 0
}

# pw::cluster_processes: PIDs of live processes whose command line mentions
# PW_CLUSTER_DIR (daemons, shims, container processes started from there).
pw::cluster_processes() {
  local p a ancestors=" "
  # Not ourselves nor whoever called us (make, a bash -c naming the directory).
  a=${BASHPID}
  while [[ -n ${a} && ${a} != 0 ]]; do
    ancestors+="${a} "
    a=$(awk '/^PPid:/ {print $2}' "/proc/${a}/status" 2>/dev/null)
  done
  for p in /proc/[0-9]*; do
    [[ ${ancestors} == *" ${p#/proc/} "* ]] && continue
    if tr '\0' ' ' <"${p}/cmdline" 2>/dev/null | grep -F -- "${PW_CLUSTER_DIR}/" >/dev/null; then
      echo "${p#/proc/}"
    fi
  done
}

# pw::cluster_new_netns: network namespaces under /run/netns created since the
# cluster started (cni-* names, not in before/netns).
pw::cluster_new_netns() {
  local n
  [[ -d /run/netns ]] || return 0
  for n in /run/netns/cni-*; do
    [[ -e ${n} ]] || continue
    grep -qxF "${n}" "${PW_CLUSTER_DIR}/before/netns" 2>/dev/null || echo "${n}"
  done
}
