#!/usr/bin/env bash
# Creates a kind cluster on probewheel's node images (`make kind-up`):
#
#   hack/kind-up.sh                 1 control plane + KIND_WORKERS (2) workers, patched kubelet everywhere
#   hack/kind-up.sh --stock         the same on the stock image (KUBELET_FLAVOR=stock)
#   hack/kind-up.sh --mixed         workers alternate stock, patched, stock, ... (KIND_MIXED=1):
#                                   the A/B under one control plane, in the same window
#   hack/kind-up.sh --from-base     every node on kind's own node image with the patched kubelet
#                                   (make kind-image-from-base: probewheel/node:<fork version>-kindest;
#                                   KIND_FROM_BASE=1); not with --stock or --mixed
#   export KUBECONFIG=$(hack/kind-up.sh --print-kubeconfig)   # _output/kind/clusters/<name>/kubeconfig
#
# Every node is labelled probewheel.io/kubelet=probewheel|stock after the
# kubelet it runs; the control plane runs the patched one unless --stock.
# The images must exist (make kind-image, and KUBELET_FLAVOR=stock for
# --stock/--mixed; make kind-image-from-base for --from-base); the pinned kind
# binary too (hack/kind-build-tools.sh kind).
#
# Kubelet configuration per node (how the ProbeTimerWheel gate is set per
# node; applied with kubeadm's --patches at init/join):
#   KIND_KUBELET_FEATURE_GATES="A=true,B=false"   every node's kubelet
#   KIND_STOCK_FEATURE_GATES="Gate=false"         --mixed only: the "stock" workers run the
#                                                 *patched* binary with these gates instead of
#                                                 the stock binary (one binary, gate flipped)
#   KIND_KUBELET_CONFIG_HOOK=<executable>         run as `<hook> <node> <probewheel|stock>`;
#                                                 what it prints (KubeletConfiguration fields,
#                                                 YAML) is merged into that node's config
# At run time, hack/kind-swap-kubelet.sh <node> --feature-gates=... flips gates
# on one node (a kubelet flag) and restarts it.
#
# Host side, all removed by hack/kind-down.sh: a Docker network of our own
# (pw-kind-<name>, bridge pwk-<name>), an iptables rule that drops
# anything the nodes would forward off that bridge (traffic stays on this
# machine; KIND_EGRESS_GUARD=0 to skip), and routes from the host to each
# node's pod CIDR via the node (the e2e tests talk to pod IPs, as on the local
# cluster). CoreDNS answers cluster names only (its forward to the host's
# resolver is removed). Where `docker run --privileged` fails, kind runs
# behind hack/kind/docker (see there).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/kind-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/kind-lib.sh"

mixed=${KIND_MIXED:-0}
from_base=${KIND_FROM_BASE:-0}
flavor_args=()
for a in "$@"; do
  case ${a} in
    --stock) flavor_args=(--stock) ;;
    --mixed) mixed=1 ;;
    --from-base) from_base=1 ;;
    --print-kubeconfig) pw::kind_kubeconfig; exit 0 ;;
    *) pw::die "usage: ${0##*/} [--stock | --mixed | --from-base] [--print-kubeconfig]" ;;
  esac
done
flavor=$(pw::flavor "${flavor_args[@]}")
[[ ${mixed} == 0 || ${mixed} == 1 ]] || pw::die "KIND_MIXED=${mixed}: want 0 or 1"
[[ ${from_base} == 0 || ${from_base} == 1 ]] || pw::die "KIND_FROM_BASE=${from_base}: want 0 or 1"
if ((from_base)); then
  [[ ${flavor} == probewheel && ${mixed} == 0 ]] || pw::die "--from-base excludes --stock and --mixed"
fi
workers=${KIND_WORKERS:-2}
[[ ${workers} =~ ^[0-9]+$ ]] || pw::die "KIND_WORKERS=${workers}: want a number"
if ((mixed)); then
  [[ ${flavor} == probewheel ]] || pw::die "--mixed and --stock exclude each other"
  ((workers >= 2)) || pw::die "--mixed needs KIND_WORKERS >= 2 (one stock, one patched)"
fi
D=${PW_KIND_CLUSTER_DIR}
start=${SECONDS}
pw::kind_traps

# arm <worker index, 1-based>: which kubelet a node runs (control plane: 0).
arm() {
  if ((mixed && $1 > 0 && $1 % 2 == 1)); then echo stock; elif [[ ${flavor} == stock ]]; then echo stock; else echo probewheel; fi
}
# image_for <arm>: the stock arm runs the stock image, unless KIND_STOCK_FEATURE_GATES
# asks for the patched binary with gates flipped; the patched arm runs ours, or with
# --from-base kind's image with our kubelet.
image_for() {
  if [[ $1 == stock && -z ${KIND_STOCK_FEATURE_GATES:-} ]]; then
    pw::kind_image_tag stock
  elif ((from_base)); then
    pw::kind_image_tag kindest
  else
    pw::kind_image_tag probewheel
  fi
}

# ------------------------------------------------------------------ checks
pw::kind_step "preflight"
pw::kind_docker_ok
pw::kind_check_version
[[ -x ${PW_BIN}/kubectl ]] || pw::kind_fail "${PW_BIN}/kubectl missing; run make kind-image"
[[ $(id -u) == 0 ]] || pw::kind_fail "must run as root (host routes to the pod CIDRs, the egress rule)"
declare -A node_arm=() node_image=()
names=("${PW_KIND_CLUSTER}-control-plane")
for ((i = 1; i <= workers; i++)); do
  n=${PW_KIND_CLUSTER}-worker
  ((i > 1)) && n+=${i}
  names+=("${n}")
done
for ((i = 0; i <= workers; i++)); do
  node_arm[${names[i]}]=$(arm "${i}")
  node_image[${names[i]}]=$(image_for "${node_arm[${names[i]}]}")
done

pw::kind_step "node images"
for img in $(printf '%s\n' "${node_image[@]}" | sort -u); do
  case ${img} in
    "$(pw::kind_image_tag stock)") how="make kind-image KUBELET_FLAVOR=stock" ;;
    "$(pw::kind_image_tag kindest)") how="make kind-image-from-base" ;;
    *) how="make kind-image" ;;
  esac
  pw::kind_image_id "${img}" >/dev/null || pw::kind_fail "image ${img} missing: run ${how}"
done

pw::kind_step "existing cluster"
if [[ -n $(pw::kind_nodes) ]]; then
  pw::kind_fail "cluster ${PW_KIND_CLUSTER} already exists (nodes: $(pw::kind_nodes | tr '\n' ' ')); run make kind-down first"
fi
if docker network inspect "${PW_KIND_NETWORK}" >/dev/null 2>&1; then
  pw::kind_fail "Docker network ${PW_KIND_NETWORK} already exists; run make kind-down first"
fi
# The host routes to the pods must not collide with another cluster's.
if [[ -n $(ip -4 route show root "${PW_KIND_POD_SUBNET}") ]]; then
  pw::kind_fail "the host already routes into the pod subnet ${PW_KIND_POD_SUBNET} (another kind cluster?): $(ip -4 route show root "${PW_KIND_POD_SUBNET}" | head -1); set KIND_POD_SUBNET for this one"
fi

rm -rf "${D}"
mkdir -p "${D}/patches" "${D}/logs"
echo "${mixed} ${flavor}" >"${D}/mode"
pw::kind_step "docker --privileged"
pw::kind_use_wrapper "${node_image[${names[0]}]}"

# -------------------------------------------------------------- the network
# Past this point a failure tears down what was made (kind-down knows how).
record_volumes() { # the nodes' anonymous volumes (/var), which kind-down checks are gone
  local n
  for n in $(pw::kind_nodes); do
    docker inspect -f '{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}}{{"\n"}}{{end}}{{end}}' "${n}" 2>/dev/null
  done | sed '/^$/d' >"${D}/volumes"
}
failed_teardown() {
  local rc=$?
  if ((rc != 0)) && [[ ${KIND_KEEP_FAILED:-0} != 1 ]]; then
    record_volumes
    echo "!!! kind-up failed in step '${PW_KIND_STEP}'; logs in ${D}/logs; tearing down (KIND_KEEP_FAILED=1 keeps it)" >&2
    "${PW_ROOT}/hack/kind-down.sh" >&2 || true
  fi
  pw::kind_on_exit
}
trap failed_teardown EXIT

pw::kind_step "docker network ${PW_KIND_NETWORK}"
bridge=pwk-${PW_KIND_CLUSTER:0:11}
mtu=$(docker network inspect bridge --format '{{index .Options "com.docker.network.driver.mtu"}}' 2>/dev/null || true)
net_args=(--driver bridge --label "${PW_KIND_LABEL}=${PW_KIND_CLUSTER}" -o "com.docker.network.bridge.name=${bridge}")
[[ -n ${mtu} ]] && net_args+=(-o "com.docker.network.driver.mtu=${mtu}")
[[ -n ${KIND_SUBNET:-} ]] && net_args+=(--subnet "${KIND_SUBNET}")
docker network create "${net_args[@]}" "${PW_KIND_NETWORK}" >/dev/null
echo "${PW_KIND_NETWORK} ${bridge}" >"${D}/network"
subnet=$(docker network inspect "${PW_KIND_NETWORK}" --format '{{range .IPAM.Config}}{{.Subnet}} {{end}}')
pw::log "network ${PW_KIND_NETWORK}: ${subnet}on bridge ${bridge}"
export KIND_EXPERIMENTAL_DOCKER_NETWORK=${PW_KIND_NETWORK}

if [[ ${KIND_EGRESS_GUARD:-1} == 1 ]]; then
  pw::kind_step "egress guard (iptables DOCKER-USER)"
  if command -v iptables >/dev/null && iptables -n -L DOCKER-USER >/dev/null 2>&1; then
    iptables -I DOCKER-USER -i "${bridge}" ! -o "${bridge}" -j DROP
    echo "-i ${bridge} ! -o ${bridge} -j DROP" >"${D}/egress-rule"
  else
    pw::log "no iptables DOCKER-USER chain (Docker without iptables?): no egress guard"
  fi
fi

# ----------------------------------------------------------- kind's config
pw::kind_step "kind config"
gates_yaml() { # gates_yaml "A=true,B=false": a featureGates block
  local g k v
  [[ -n $1 ]] || return 0
  echo "featureGates:"
  IFS=, read -ra g <<<"$1"
  for kv in "${g[@]}"; do
    k=${kv%%=*} v=${kv#*=}
    [[ -n ${k} && ${kv} == *=* && ${v} =~ ^(true|false)$ ]] || pw::kind_fail "feature gate '${kv}': want Name=true|false"
    echo "  ${k}: ${v}"
  done
}
cfg=${D}/kind.yaml
{
  cat <<EOF
# written by hack/kind-up.sh
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
name: ${PW_KIND_CLUSTER}
networking:
  apiServerAddress: 127.0.0.1
  podSubnet: ${PW_KIND_POD_SUBNET}
  serviceSubnet: ${PW_KIND_SERVICE_SUBNET}
kubeadmConfigPatches:
- |
  kind: KubeletConfiguration
  # This host may be cgroup v1, which kubelets since v1.35 refuse by default.
  failCgroupV1: false
nodes:
EOF
  for ((i = 0; i <= workers; i++)); do
    n=${names[i]}
    a=${node_arm[${n}]}
    role=worker kind_doc=JoinConfiguration
    ((i == 0)) && role=control-plane kind_doc=InitConfiguration
    echo "- role: ${role}"
    echo "  image: ${node_image[${n}]}"
    echo "  labels:"
    echo "    ${PW_KIND_NODE_LABEL}: ${a}"
    # This node's kubelet patch: the gates for all, the stock arm's gates, the hook's output.
    patch=$(
      gates=${KIND_KUBELET_FEATURE_GATES:-}
      if [[ ${a} == stock && -n ${KIND_STOCK_FEATURE_GATES:-} ]]; then
        gates+=${gates:+,}${KIND_STOCK_FEATURE_GATES}
      fi
      gates_yaml "${gates}"
      if [[ -n ${KIND_KUBELET_CONFIG_HOOK:-} ]]; then
        "${KIND_KUBELET_CONFIG_HOOK}" "${n}" "${a}" || pw::kind_fail "KIND_KUBELET_CONFIG_HOOK ${KIND_KUBELET_CONFIG_HOOK} ${n} ${a} failed"
      fi
    )
    if [[ -n ${patch} ]]; then
      mkdir -p "${D}/patches/${n}"
      printf 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n%s\n' "${patch}" \
        >"${D}/patches/${n}/kubeletconfiguration+merge.yaml"
      cat <<EOF
  extraMounts:
  - hostPath: ${D}/patches/${n}
    containerPath: /kind/probewheel-patches
    readOnly: true
  kubeadmConfigPatches:
  - |
    kind: ${kind_doc}
    patches:
      directory: /kind/probewheel-patches
EOF
    fi
  done
} >"${cfg}"

# ---------------------------------------------------------------- create
pw::kind_step "kind create cluster (${#names[@]} node(s))"
t0=${SECONDS}
if ! pw::kind create cluster --name "${PW_KIND_CLUSTER}" --config "${cfg}" --kubeconfig "$(pw::kind_kubeconfig)" \
  --retain >"${D}/logs/kind-create.log" 2>&1; then
  cat "${D}/logs/kind-create.log" >&2
  pw::kind export logs "${D}/logs/kind-export" --name "${PW_KIND_CLUSTER}" >/dev/null 2>&1 || true
  for n in $(pw::kind_nodes); do
    docker logs "${n}" >"${D}/logs/${n}.docker.log" 2>&1 || true
    if [[ $(docker inspect -f '{{.State.Running}}' "${n}" 2>/dev/null) != true ]]; then
      echo "!!! node ${n} is not running; the end of its log:" >&2
      tail -n 15 "${D}/logs/${n}.docker.log" >&2
    fi
  done
  pw::kind_fail "kind create cluster failed (above; node logs in ${D}/logs)"
fi
create_s=$((SECONDS - t0))
pw::log "kind create cluster: ${create_s}s"
record_volumes

pw::kind_step "nodes Ready"
for n in "${names[@]}"; do
  pw::wait 180 "node ${n} Ready" pw::kind_node_ready "${n}"
done

pw::kind_step "CoreDNS: cluster names only"
# kubeadm's Corefile forwards every other name to the node's resolver (Docker's,
# and from there the host's): drop that block, so nothing resolves off this machine.
corefile=$(pw::kind_kubectl -n kube-system get configmap coredns -o jsonpath='{.data.Corefile}')
newfile=$(awk '/^[[:space:]]*forward[[:space:]]/ { skip = /\{[[:space:]]*$/; next } skip && /^[[:space:]]*\}/ { skip = 0; next } !skip' <<<"${corefile}")
[[ ${newfile} != *forward* ]] || pw::kind_fail "could not remove forward from the Corefile"
pw::kind_kubectl -n kube-system create configmap coredns --from-literal=Corefile="${newfile}" --dry-run=client -o yaml |
  pw::kind_kubectl -n kube-system apply -f - >/dev/null 2>&1
pw::kind_kubectl -n kube-system rollout restart deployment coredns >/dev/null
pw::kind_kubectl -n kube-system rollout status deployment coredns --timeout=180s >/dev/null ||
  pw::kind_fail "CoreDNS did not become available"

pw::kind_step "host routes to the pod CIDRs"
: >"${D}/routes"
for n in "${names[@]}"; do
  cidr=$(pw::kind_kubectl get node "${n}" -o jsonpath='{.spec.podCIDR}')
  ip=$(docker inspect -f "{{(index .NetworkSettings.Networks \"${PW_KIND_NETWORK}\").IPAddress}}" "${n}")
  [[ -n ${cidr} && -n ${ip} ]] || pw::kind_fail "node ${n}: podCIDR '${cidr}', IP '${ip}'"
  ip route replace "${cidr}" via "${ip}" dev "${bridge}"
  echo "${cidr} via ${ip} dev ${bridge}" >>"${D}/routes"
done

pw::kind_step "kubelet versions and labels"
summary=()
for n in "${names[@]}"; do
  want=$(pw::fork_version)
  [[ ${node_image[${n}]} == "$(pw::kind_image_tag stock)" ]] && want=${KUBE_VERSION}
  got=$(pw::kind_node_kubelet_version "${n}")
  [[ ${got} == "${want}" ]] || pw::kind_fail "node ${n} reports kubelet ${got}, want ${want}"
  label=$(pw::kind_kubectl get node "${n}" -o jsonpath="{.metadata.labels.${PW_KIND_NODE_LABEL//./\\.}}")
  [[ ${label} == "${node_arm[${n}]}" ]] || pw::kind_fail "node ${n} is labelled ${PW_KIND_NODE_LABEL}=${label}, want ${node_arm[${n}]}"
  patched=""
  [[ -f ${D}/patches/${n}/kubeletconfiguration+merge.yaml ]] && patched=", kubelet config patched"
  summary+=("${n}: kubelet ${got}, ${PW_KIND_NODE_LABEL}=${label}${patched}")
done

pw::kind_step "prober_scheduler_* on the patched kubelets only (/metrics/probes via the API server)"
# The scheduler's histograms are exported from the start, samples or not.
scheduler_metrics() { pw::kind_kubectl get --raw "/api/v1/nodes/$1/proxy/metrics/probes" | grep -c '^prober_scheduler_'; }
for n in "${names[@]}"; do
  if [[ ${node_image[${n}]} == "$(image_for probewheel)" ]]; then
    pw::wait 60 "prober_scheduler_ metrics on ${n}" scheduler_metrics "${n}"
  else
    count=$(scheduler_metrics "${n}" || true)
    ((count == 0)) || pw::kind_fail "the stock kubelet of ${n} exports ${count} prober_scheduler_ samples"
  fi
done

echo "kind cluster ${PW_KIND_CLUSTER} up in $((SECONDS - start))s (kind create ${create_s}s):"
printf '  %s\n' "${summary[@]}"
echo "export KUBECONFIG=$(pw::kind_kubeconfig)"
PW_KIND_STEP=""
trap pw::kind_on_exit EXIT
