#!/usr/bin/env bash
# The scale benchmark's control plane (docs/scale.md): etcd (Debian's
# etcd-server) and kube-apiserver (stock $KUBE_VERSION, hack/build-cluster-binaries.sh),
# nothing else — no scheduler (the pods name their node), no controller-manager
# (pwscale makes the namespace's default service account), no kubelet, no
# container runtime: the hollow kubelets pwscale starts are the nodes.
#
#   bench/hollow/control-plane.sh up     -> ${PW_SCALE_DIR}/cluster/admin.kubeconfig
#   bench/hollow/control-plane.sh down
#
# Loopback only: etcd on 127.0.0.1:${PW_SCALE_ETCD_PORT:-22379}, the apiserver
# on 127.0.0.1:${PW_SCALE_APISERVER_PORT:-16443} (ports apart from
# hack/local-up-cluster.sh's, so both can run). Authentication by a static
# token (system:masters), the serving certificate is the apiserver's own
# self-signed one; the kubeconfig skips its verification (127.0.0.1 only).
# Daemons are started and stopped by PID with hack/local-cluster-lib.sh's
# helpers; state and logs live in ${PW_SCALE_DIR}/cluster (wiped at `up`).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../hack/local-cluster-lib.sh"

PW_SCALE_DIR=${PW_SCALE_DIR:-${PW_OUTPUT}/scale}
PW_CLUSTER_DIR=${PW_SCALE_DIR}/cluster # where pw::cluster_start keeps logs/ and pids/
etcd_port=${PW_SCALE_ETCD_PORT:-22379}
etcd_peer_port=${PW_SCALE_ETCD_PEER_PORT:-22380}
api_port=${PW_SCALE_APISERVER_PORT:-16443}
D=${PW_CLUSTER_DIR}
daemons=(etcd kube-apiserver)

down() {
  local i
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
    pw::cluster_stop "${daemons[i]}" 30
  done
}

up() {
  local d pid host_ip token
  for d in "${daemons[@]}"; do
    if pid=$(pw::cluster_pid "${d}"); then
      pw::die "${d} is already running (pid ${pid}); run $0 down first"
    fi
  done
  command -v etcd >/dev/null || pw::die "etcd not found; apt-get install etcd-server"
  [[ -x ${PW_BIN}/kube-apiserver ]] || pw::die "${PW_BIN}/kube-apiserver missing; run hack/build-cluster-binaries.sh kube-apiserver"
  # Only recorded as the advertised address (the apiserver's own Endpoints
  # are off); nothing is ever sent to it.
  host_ip=$(pw::cluster_host_ip)
  [[ -n ${host_ip} ]] || pw::die "cannot determine the host IP"
  rm -rf "${D}"
  mkdir -p "${D}"/{pki,etcd,logs,pids}
  openssl genrsa -out "${D}/pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "${D}/pki/sa.key" -pubout -out "${D}/pki/sa.pub" 2>/dev/null
  token=$(openssl rand -hex 24)
  echo "${token},pwscale-admin,pwscale-admin,system:masters" >"${D}/tokens.csv"
  chmod 600 "${D}/tokens.csv" "${D}/pki/sa.key"
  cat >"${D}/admin.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: pwscale
  cluster:
    server: https://127.0.0.1:${api_port}
    insecure-skip-tls-verify: true
users:
- name: pwscale-admin
  user:
    token: ${token}
contexts:
- name: pwscale
  context:
    cluster: pwscale
    user: pwscale-admin
current-context: pwscale
EOF
  chmod 600 "${D}/admin.kubeconfig"

  local etcd_flags=()
  [[ $(etcd --help 2>&1 || true) == *--unsafe-no-fsync* ]] && etcd_flags+=(--unsafe-no-fsync) # throw-away data
  pw::cluster_start etcd "$(command -v etcd)" --name pwscale --data-dir "${D}/etcd" \
    --listen-client-urls "http://127.0.0.1:${etcd_port}" --advertise-client-urls "http://127.0.0.1:${etcd_port}" \
    --listen-peer-urls "http://127.0.0.1:${etcd_peer_port}" --initial-advertise-peer-urls "http://127.0.0.1:${etcd_peer_port}" \
    --initial-cluster "pwscale=http://127.0.0.1:${etcd_peer_port}" \
    --quota-backend-bytes=$((8 << 30)) "${etcd_flags[@]}"
  pw::cluster_wait 30 "etcd" etcd_healthy

  pw::cluster_start kube-apiserver "${PW_BIN}/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:${etcd_port}" \
    --bind-address=127.0.0.1 --secure-port="${api_port}" --advertise-address="${host_ip}" \
    --cert-dir="${D}/pki/apiserver" \
    --token-auth-file="${D}/tokens.csv" --anonymous-auth=false \
    --authorization-mode=RBAC \
    --service-account-issuer="https://kubernetes.default.svc.cluster.local" \
    --service-account-key-file="${D}/pki/sa.pub" --service-account-signing-key-file="${D}/pki/sa.key" \
    --service-cluster-ip-range=10.0.0.0/24 --endpoint-reconciler-type=none \
    --profiling=false
  pw::cluster_wait 90 "kube-apiserver /readyz" apiserver_ready
  echo "control plane up: ${D}/admin.kubeconfig (apiserver https://127.0.0.1:${api_port})"
}

etcd_healthy() { curl -fsS "http://127.0.0.1:${etcd_port}/health" | grep '"health":"true"' >/dev/null; }
apiserver_ready() {
  [[ $(curl -fsS -k -H "Authorization: Bearer $(cut -d, -f1 "${D}/tokens.csv")" \
    "https://127.0.0.1:${api_port}/readyz") == ok ]]
}

case ${1:-} in
  up) up ;;
  down) down ;;
  *) pw::die "usage: $0 up|down" ;;
esac
