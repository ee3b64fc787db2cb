#!/usr/bin/env bash
# Brings up a single-node Kubernetes cluster on this host for the e2e tests
# (docs/clusters.md): etcd, kube-apiserver, kube-controller-manager, kube-scheduler
# (stock $KUBE_VERSION), containerd + runc + the CNI bridge plugin (Debian
# packages), and the kubelet under test — patched (_output/bin/kubelet) by
# default, stock (_output/bin/kubelet-stock) with --stock or KUBELET_FLAVOR=stock.
#
#   hack/local-up-cluster.sh [--stock] [--no-build]
#   export KUBECONFIG=_output/local-cluster/admin.kubeconfig
#   hack/local-down-cluster.sh
#
# PW_KUBELET_FEATURE_GATES=Name=bool,... sets the kubelet's featureGates, e.g.
# ProbeTimerWheel=false for upstream's prober loop in the patched kubelet.
#
# Needs root, cgroup v1 or v2, and: apt-get install containerd runc
# containernetworking-plugins etcd-server. Builds (unless --no-build, each step
# is a no-op when up to date): hack/build-kubelet.sh, hack/build-cluster-binaries.sh,
# hack/build-e2e-images.sh. All state is under _output/local-cluster/ (wiped
# at every start); every daemon is started with setsid and its PID recorded
# in pids/; hack/local-down-cluster.sh stops them by PID and removes every
# mount, netns, bridge and cgroup the cluster made. No image is pulled: the
# pause and probe-target images are built locally and imported with ctr.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local-cluster-lib.sh"

build=1
flavor_args=()
for a in "$@"; do
  case ${a} in
    --no-build) build=0 ;;
    --stock) flavor_args=(--stock) ;;
    *) pw::die "usage: ${0##*/} [--stock] [--no-build]" ;;
  esac
done
flavor=$(pw::flavor "${flavor_args[@]}")
if [[ ${flavor} == stock ]]; then
  kubelet_bin=${PW_BIN}/kubelet-stock
else
  kubelet_bin=${PW_BIN}/kubelet
fi
bin=${PW_BIN}
start=${SECONDS}
on_exit() {
  local rc=$?
  ((rc == 0)) || echo "!!! cluster start failed (exit ${rc}); logs in ${PW_CLUSTER_DIR}/logs; run hack/local-down-cluster.sh" >&2
}
trap on_exit EXIT


[[ $(id -u) == 0 ]] || pw::die "must run as root (containerd, the kubelet and CNI need it)"
for tool in containerd containerd-shim-runc-v2 runc ctr etcd openssl ip; do
  command -v "${tool}" >/dev/null || pw::die "${tool} not found; apt-get install containerd runc etcd-server containernetworking-plugins openssl iproute2"
done
[[ -x ${PW_CNI_BIN_DIR}/bridge && -x ${PW_CNI_BIN_DIR}/host-local && -x ${PW_CNI_BIN_DIR}/loopback ]] ||
  pw::die "CNI plugins not found in ${PW_CNI_BIN_DIR}; apt-get install containernetworking-plugins"

# Refuse to start over a cluster that is (partly) running or left mounts behind.
for d in "${PW_CLUSTER_DAEMONS[@]}"; do
  if pid=$(pw::cluster_pid "${d}"); then
    pw::die "${d} is already running (pid ${pid}); run hack/local-down-cluster.sh first"
  fi
done
if [[ -n $(pw::cluster_mounts) || -n $(pw::cluster_shims) ]]; then
  pw::die "mounts or shims left under ${PW_CLUSTER_DIR}; run hack/local-down-cluster.sh first"
fi

if ((build)); then
  KUBELET_FLAVOR=${flavor} "${PW_ROOT}/hack/build-kubelet.sh"
  "${PW_ROOT}/hack/build-cluster-binaries.sh"
  "${PW_ROOT}/hack/build-e2e-images.sh"
fi
for b in "${kubelet_bin}" "${bin}/kube-apiserver" "${bin}/kube-controller-manager" "${bin}/kube-scheduler" \
  "${bin}/kubectl" "${bin}/e2e/cricleanup" "${PW_OUTPUT}/images/pause.tar" "${PW_OUTPUT}/images/probetarget.tar"; do
  [[ -e ${b} ]] || pw::die "${b} missing (run without --no-build)"
done

host_ip=$(pw::cluster_host_ip)
[[ -n ${host_ip} ]] || pw::die "cannot determine the host IP (no default route?)"

D=${PW_CLUSTER_DIR}
rm -rf "${D}"
mkdir -p "${D}"/{pki,etcd,containerd/root,containerd/state,containerd/opt,kubelet,cni/net.d,cni/ipam,pod-logs,logs,pids,before}
echo "${flavor}" >"${D}/flavor"
echo "${kubelet_bin}" >"${D}/kubelet-binary"
# What existed before, so the teardown removes only what we created.
for p in "${PW_CLUSTER_HOST_DIRS[@]}" "${PW_CLUSTER_KUBELET_DIRS[@]}"; do
  [[ -e ${p} ]] && echo "${p}"
done >"${D}/before/host-dirs"
ls -d /run/netns/* 2>/dev/null >"${D}/before/netns" || true

# ---------------------------------------------------------------- certificates
pki=${D}/pki
pw::log "generating certificates in ${pki}"
openssl_q() { openssl "$@" 2>/dev/null; }
openssl_q req -x509 -newkey rsa:2048 -nodes -sha256 -days 30 -subj "/CN=probewheel-e2e-ca" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
  -keyout "${pki}/ca.key" -out "${pki}/ca.crt"
# cert <name> <subject> <extendedKeyUsage> [subjectAltName]
cert() {
  local name=$1 subj=$2 eku=$3 san=${4:-}
  openssl_q req -new -newkey rsa:2048 -nodes -sha256 -subj "${subj}" \
    -keyout "${pki}/${name}.key" -out "${pki}/${name}.csr"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=${eku}"
    [[ -z ${san} ]] || echo "subjectAltName=${san}"
  } >"${pki}/${name}.ext"
  openssl_q x509 -req -sha256 -days 30 -in "${pki}/${name}.csr" -CA "${pki}/ca.crt" -CAkey "${pki}/ca.key" \
    -CAcreateserial -extfile "${pki}/${name}.ext" -out "${pki}/${name}.crt"
  rm -f "${pki}/${name}.csr" "${pki}/${name}.ext"
}
cert apiserver "/CN=kube-apiserver" serverAuth \
  "DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:$(hostname),IP:127.0.0.1,IP:${host_ip},IP:${PW_SERVICE_IP}"
cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
cert admin "/O=system:masters/CN=probewheel-e2e-admin" clientAuth
cert controller-manager "/CN=system:kube-controller-manager" clientAuth
cert scheduler "/CN=system:kube-scheduler" clientAuth
cert kubelet-client "/O=system:nodes/CN=system:node:${PW_NODE_NAME}" clientAuth
cert kubelet-serving "/CN=${PW_NODE_NAME}" serverAuth "DNS:${PW_NODE_NAME},DNS:localhost,IP:${host_ip},IP:127.0.0.1"
openssl_q genrsa -out "${pki}/sa.key" 2048
openssl_q rsa -in "${pki}/sa.key" -pubout -out "${pki}/sa.pub"
chmod 600 "${pki}"/*.key

kubeconfig() { # kubeconfig <file> <client cert/key basename>
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    certificate-authority: ${pki}/ca.crt
    server: https://127.0.0.1:${PW_APISERVER_PORT}
users:
- name: $2
  user:
    client-certificate: ${pki}/$2.crt
    client-key: ${pki}/$2.key
contexts:
- name: local
  context:
    cluster: local
    user: $2
current-context: local
EOF
}
kubeconfig "${D}/admin.kubeconfig" admin
kubeconfig "${D}/controller-manager.kubeconfig" controller-manager
kubeconfig "${D}/scheduler.kubeconfig" scheduler
kubeconfig "${D}/kubelet.kubeconfig" kubelet-client
kubectl=("${bin}/kubectl" --kubeconfig "${D}/admin.kubeconfig")

# ------------------------------------------------------------------------ etcd
etcd_flags=()
etcd_help=$(etcd --help 2>&1 || true)
[[ ${etcd_help} == *--unsafe-no-fsync* ]] && etcd_flags+=(--unsafe-no-fsync) # throw-away data
pw::cluster_start etcd "$(command -v etcd)" --name probewheel-e2e --data-dir "${D}/etcd" \
  --listen-client-urls "http://127.0.0.1:${PW_ETCD_PORT}" --advertise-client-urls "http://127.0.0.1:${PW_ETCD_PORT}" \
  --listen-peer-urls "http://127.0.0.1:${PW_ETCD_PEER_PORT}" --initial-advertise-peer-urls "http://127.0.0.1:${PW_ETCD_PEER_PORT}" \
  --initial-cluster "probewheel-e2e=http://127.0.0.1:${PW_ETCD_PEER_PORT}" "${etcd_flags[@]}"

# ------------------------------------------------------------------ containerd
cat >"${D}/cni/net.d/10-${PW_CNI_NETWORK}.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "${PW_CNI_NETWORK}",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "${PW_CNI_BRIDGE}",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "${D}/cni/ipam",
        "ranges": [[{"subnet": "${PW_POD_CIDR}"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    }
  ]
}
EOF
cat >"${D}/containerd/config.toml" <<EOF
version = 2
root = "${D}/containerd/root"
state = "${D}/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = "${PW_CONTAINERD_SOCK}"

[plugins."io.containerd.internal.v1.opt"]
  path = "${D}/containerd/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PW_PAUSE_IMAGE}"
  # Without it every sandbox fails with "runc create failed: ... can't get
  # final child's PID from pipe" on this kind of host.
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "${D}/containerd/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${PW_CNI_BIN_DIR}"
    conf_dir = "${D}/cni/net.d"
    max_conf_num = 1
EOF
pw::cluster_start containerd "$(command -v containerd)" --config "${D}/containerd/config.toml"
ctr=(ctr --address "${PW_CONTAINERD_SOCK}" -n k8s.io)
pw::wait 30 "containerd" "${ctr[@]}" version
# extra/: upstream's e2e images (hack/build-e2e-images.sh --upstream), when built.
for tarball in "${PW_OUTPUT}"/images/{pause,probetarget}.tar "${PW_OUTPUT}"/images/extra/*.tar; do
  [[ -e ${tarball} ]] || continue
  "${ctr[@]}" images import "${tarball}" >/dev/null
done
images=$("${ctr[@]}" images ls -q)
for img in "${PW_PAUSE_IMAGE}" "${PW_PROBETARGET_IMAGE}"; do
  grep -qxF "${img}" <<<"${images}" || pw::die "import of ${img} failed"
done

# ----------------------------------------------------------------- apiserver
pw::cluster_start kube-apiserver "${bin}/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:${PW_ETCD_PORT}" \
  --secure-port="${PW_APISERVER_PORT}" --advertise-address="${host_ip}" \
  --cert-dir="${D}/pki/apiserver-generated" \
  --tls-cert-file="${pki}/apiserver.crt" --tls-private-key-file="${pki}/apiserver.key" \
  --client-ca-file="${pki}/ca.crt" \
  --kubelet-client-certificate="${pki}/apiserver-kubelet-client.crt" \
  --kubelet-client-key="${pki}/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority="${pki}/ca.crt" \
  --kubelet-preferred-address-types=InternalIP \
  --service-account-issuer="https://kubernetes.default.svc.cluster.local" \
  --service-account-key-file="${pki}/sa.pub" --service-account-signing-key-file="${pki}/sa.key" \
  --service-cluster-ip-range="${PW_SERVICE_CIDR}" \
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
  --allow-privileged=true --profiling=false
pw::wait 60 "kube-apiserver /readyz" "${kubectl[@]}" get --raw /readyz

# ------------------------------------------------- controller-manager, scheduler
pw::cluster_start kube-controller-manager "${bin}/kube-controller-manager" \
  --kubeconfig="${D}/controller-manager.kubeconfig" \
  --authentication-kubeconfig="${D}/controller-manager.kubeconfig" \
  --authorization-kubeconfig="${D}/controller-manager.kubeconfig" \
  --use-service-account-credentials=true \
  --service-account-private-key-file="${pki}/sa.key" --root-ca-file="${pki}/ca.crt" \
  --cluster-signing-cert-file="${pki}/ca.crt" --cluster-signing-key-file="${pki}/ca.key" \
  --leader-elect=false --bind-address=127.0.0.1 --profiling=false
pw::cluster_start kube-scheduler "${bin}/kube-scheduler" \
  --kubeconfig="${D}/scheduler.kubeconfig" \
  --authentication-kubeconfig="${D}/scheduler.kubeconfig" \
  --authorization-kubeconfig="${D}/scheduler.kubeconfig" \
  --leader-elect=false --bind-address=127.0.0.1 --profiling=false

# ---------------------------------------------------------------------- kubelet
cat >"${D}/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: unix://${PW_CONTAINERD_SOCK}
# This host is cgroup v1 (hybrid) without systemd.
failCgroupV1: false
cgroupDriver: cgroupfs
failSwapOn: false
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: ${pki}/ca.crt
authorization:
  mode: Webhook
tlsCertFile: ${pki}/kubelet-serving.crt
tlsPrivateKeyFile: ${pki}/kubelet-serving.key
readOnlyPort: 0
clusterDomain: cluster.local
podLogsDir: ${D}/pod-logs
# A dev machine's disk must not evict or garbage-collect the imported images
# (imagePullPolicy: Never cannot get them back).
evictionHard:
  memory.available: 50Mi
  nodefs.available: 1%
  nodefs.inodesFree: 1%
  imagefs.available: 1%
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
EOF
# PW_KUBELET_FEATURE_GATES="ProbeTimerWheel=false,Other=true": the KubeletConfiguration's
# featureGates (hack/local-restart-kubelet.sh --feature-gates changes them on a restart).
if [[ -n ${PW_KUBELET_FEATURE_GATES:-} ]]; then
  echo "featureGates:" >>"${D}/kubelet.yaml"
  IFS=, read -ra gates <<<"${PW_KUBELET_FEATURE_GATES}"
  for g in "${gates[@]}"; do
    [[ ${g} =~ ^([A-Za-z0-9]+)=(true|false)$ ]] || pw::die "PW_KUBELET_FEATURE_GATES: '${g}' is not Name=true|false"
    echo "  ${BASH_REMATCH[1]}: ${BASH_REMATCH[2]}" >>"${D}/kubelet.yaml"
  done
fi
kubelet_argv=("${kubelet_bin}"
  --config="${D}/kubelet.yaml" --kubeconfig="${D}/kubelet.kubeconfig"
  --root-dir="${D}/kubelet" --cert-dir="${D}/kubelet/pki"
  --hostname-override="${PW_NODE_NAME}" --node-ip="${host_ip}" --v="${PW_KUBELET_V:-2}")
# hack/local-restart-kubelet.sh starts the same command line again.
printf '%s\n' "${kubelet_argv[@]}" >"${D}/kubelet.argv"
pw::cluster_start kubelet "${kubelet_argv[@]}"

pw::wait 120 "node ${PW_NODE_NAME} Ready" \
  "${kubectl[@]}" wait --for=condition=Ready "node/${PW_NODE_NAME}" --timeout=1s
pw::wait 60 "default service account" "${kubectl[@]}" -n default get serviceaccount default

server=$("${kubectl[@]}" version -o json | sed -n '/serverVersion/,/}/s/.*"gitVersion": "\(.*\)".*/\1/p')
node=$("${kubectl[@]}" get node "${PW_NODE_NAME}" -o jsonpath='{.status.nodeInfo.kubeletVersion} {.status.nodeInfo.containerRuntimeVersion}')
echo "cluster up in $((SECONDS - start))s: apiserver ${server}, node ${PW_NODE_NAME} (kubelet ${node}, ${flavor})"
echo "export KUBECONFIG=${D}/admin.kubeconfig"
