# shellcheck shell=bash
# shellcheck disable=SC2034 # the PW_KIND_* settings are used by the sourcing scripts
# Helpers for the kind scripts (hack/kind-*.sh, docs/kind.md). Source it; do
# not run it. Kept out of hack/lib.sh for the same reason as
# hack/local-cluster-lib.sh: lib.sh is hashed into the build trees' stamp.
#
# Everything lives under ${PW_KIND_DIR} (_output/kind/):
#   bin/                  kind, crictl, etcd, coredns (Go modules, built here)
#   gomod/<tool>/         the throw-away wrapper modules those are built in
#   rootfs/               debootstrap's Debian tree (only while it is imported)
#   images/*.tar          the images the node image carries (docker-archives)
#   ctx/<stage>/          docker build contexts assembled from hack/kind/
#   docker-wrap/docker    the --privileged workaround (hack/kind/docker), on
#                         PATH only where privileged containers fail
#   clusters/<name>/      kind config, kubeconfig, per-node kubelet patches, logs

# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The kind release the scripts are written against: the ONE place it is set.
# Its node-image layout (images/base/files, /kind/version, /kind/manifests)
# and its docker provider's flags are what hack/kind/ reproduces.
PW_KIND_VERSION=v0.33.0
# That release's published node images, one per supported minor (its release notes; a tag alone
# may point to a build for another kind release, so the digest pins it): the base of
# hack/kind-from-base.sh. The control plane is then the image's patch release, the kubelet ours.
declare -A PW_KIND_NODE_IMAGES=(
  [v1.37]=kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5
  [v1.36]=kindest/node:v1.36.4@sha256:099e049362a1526b2db71494e1947aae99bd16290d7c895f2b7ea312e3cbfaed
  [v1.35]=kindest/node:v1.35.8@sha256:07b2536e30b803ed61d1677a79df6115f798ce64c80f9e22f6ed45afd09323c0
)
PW_KIND_MODULE=sigs.k8s.io/kind
# cri-tools is released per Kubernetes minor (kind v0.33 ships v1.36.0); empty:
# hack/kind-build-tools.sh picks the minor's own or the nearest the proxy has.
PW_CRICTL_VERSION=${PW_CRICTL_VERSION:-}
PW_KIND_DIR=${PW_KIND_DIR:-${PW_OUTPUT}/kind}
PW_KIND_BIN=${PW_KIND_DIR}/bin
PW_KIND_CLUSTER=${KIND_CLUSTER_NAME:-probewheel}
PW_KIND_CLUSTER_DIR=${PW_KIND_DIR}/clusters/${PW_KIND_CLUSTER}
# The Docker network the nodes run on: ours, created by kind-up, removed by kind-down.
PW_KIND_NETWORK=${KIND_NETWORK:-pw-kind-${PW_KIND_CLUSTER}}
# Not the local cluster's 10.244.0.0/24: both can run on one host, and the
# host routes kind-up adds to reach pods must not overlap its bridge.
PW_KIND_POD_SUBNET=${KIND_POD_SUBNET:-10.245.0.0/16}
PW_KIND_SERVICE_SUBNET=${KIND_SERVICE_SUBNET:-10.97.0.0/16}
PW_KIND_REPO=${KIND_IMAGE_REPO:-probewheel/node}
# Labels on everything we create in Docker, so kind-down can check for leftovers.
PW_KIND_LABEL=io.probewheel.kind
# The node label the mixed mode sets: probewheel.io/kubelet=stock|probewheel.
PW_KIND_NODE_LABEL=probewheel.io/kubelet
PW_KIND_CNI_IMAGE=localhost/probewheel/kind-cni:${KUBE_VERSION}

# pw::kind_image_tag <probewheel|stock|kindest>: a node image.
#   probewheel  built here, offline (hack/kind-build-image.sh), the patched kubelet
#   stock       the same image with upstream's kubelet (hack/kind-build-image.sh --stock)
#   kindest     kind's published node image (PW_KIND_NODE_IMAGES) with the patched kubelet
#               (hack/kind-from-base.sh): a different image, so a tag of its own
pw::kind_image_tag() {
  local fork
  [[ $1 == stock ]] || fork=$(pw::fork_version) # dies, saying why, for a series without one
  case $1 in
    probewheel) echo "${PW_KIND_REPO}:${fork}" ;;
    stock) echo "${PW_KIND_REPO}:${KUBE_VERSION}-stock" ;;
    kindest) echo "${PW_KIND_REPO}:${fork}-kindest" ;;
    *) pw::die "unknown node image $1" ;;
  esac
}

# pw::kind_step <name>: names the step that is running, so that a failure
# (pw::kind_fail, or any error, through the EXIT trap pw::kind_traps sets)
# says which one.
PW_KIND_STEP=""
pw::kind_step() {
  PW_KIND_STEP=$1
  pw::log "[${PW_KIND_STEP}]"
}
pw::kind_fail() { pw::die "step '${PW_KIND_STEP:-start}' failed: $*"; }
# pw::wait (lib.sh) fails a kind script with the step it was in.
PW_WAIT_FAIL=pw::kind_fail
# pw::kind_traps: on exit, runs the cleanups registered in PW_KIND_CLEANUP
# (commands, word-split) and, on failure, names the step that failed.
PW_KIND_CLEANUP=()
pw::kind_on_exit() {
  local rc=$? c
  for c in "${PW_KIND_CLEANUP[@]}"; do
    ${c} >/dev/null 2>&1 || true
  done
  if ((rc != 0)) && [[ -n ${PW_KIND_STEP} ]]; then
    echo "!!! ${0##*/}: failed in step '${PW_KIND_STEP}' (exit ${rc})" >&2
  fi
}
pw::kind_traps() { trap pw::kind_on_exit EXIT; }

# pw::kind_kill_tree <pid>: SIGTERM to a process we started and all its
# descendants (found by parent PID), children first.
pw::kind_kill_tree() {
  local pid=$1 child
  for child in $(ps -o pid= --ppid "${pid}" 2>/dev/null); do
    pw::kind_kill_tree "${child}"
  done
  kill -TERM "${pid}" 2>/dev/null || true
}

# pw::kind_docker_ok: the docker CLI is there and its engine answers; dies
# naming what is wrong otherwise.
pw::kind_docker_ok() {
  command -v docker >/dev/null || pw::kind_fail "no docker CLI on PATH (apt-get install docker.io)"
  local err
  if ! err=$(docker version --format '{{.Server.Version}}' 2>&1); then
    pw::kind_fail "no Docker engine answers (${err##*$'\n'}); start dockerd or set DOCKER_HOST"
  fi
}

# pw::kind_hash <file|string>...: sha256 of the files' contents (and of the
# arguments that are not files), 16 hex digits: the tag of a build stage.
pw::kind_hash() {
  local a
  for a in "$@"; do
    if [[ -f ${a} ]]; then
      echo "file ${a##*/}"
      cat "${a}"
    elif [[ -d ${a} ]]; then
      echo "dir ${a##*/}"
      (cd "${a}" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    else
      echo "str ${a}"
    fi
  done | sha256sum | cut -c1-16
}

# pw::kind_image_id <ref>: the image ID, or nothing (status 1) if absent.
pw::kind_image_id() { docker image inspect --format '{{.Id}}' "$1" 2>/dev/null; }

# pw::kind_image_label <ref> <label>: a label of a local image (empty if none).
pw::kind_image_label() {
  docker image inspect --format "{{index .Config.Labels \"$2\"}}" "$1" 2>/dev/null || true
}

# pw::kind_prune_stage <repo> <keep-tag>: removes the other tags of a build
# stage's repository (older inputs); an image still used by another is only untagged.
pw::kind_prune_stage() {
  local repo=$1 keep=$2 ref
  while read -r ref; do
    [[ -n ${ref} && ${ref} != "${repo}:${keep}" ]] || continue
    docker rmi "${ref}" >/dev/null 2>&1 || true
  done < <(docker images --format '{{.Repository}}:{{.Tag}}' "${repo}")
}

# pw::kind_privileged_ok <image>: whether `docker run --privileged` works
# here. Where the engine's capability bounding set lacks a capability
# (CAP_SYS_RESOURCE on these VMs) runc fails with "unable to apply caps".
pw::kind_privileged_ok() {
  local id
  if id=$(docker run -d --rm --privileged --entrypoint /bin/sleep --label "${PW_KIND_LABEL}=preflight" "$1" 30 2>/dev/null); then
    docker rm -f "${id}" >/dev/null 2>&1 || true
    return 0
  fi
  return 1
}

# pw::kind_use_wrapper <image>: puts hack/kind/docker first on PATH when
# privileged containers fail (see there), so that kind's `docker run
# --privileged` and `docker exec --privileged` work; no-op on a normal host.
# KIND_DOCKER_WRAPPER=1 forces it, =0 refuses it. The answer is kept in the
# cluster's directory (kind-up asks; swap, load and down reuse it).
pw::kind_use_wrapper() {
  local want=${KIND_DOCKER_WRAPPER:-auto} cache=${PW_KIND_CLUSTER_DIR}/docker-wrapper
  if [[ ${want} == auto && -f ${cache} ]]; then
    want=$(<"${cache}")
  elif [[ ${want} == auto ]]; then
    if pw::kind_privileged_ok "$1"; then want=0; else want=1; fi
    [[ -d ${PW_KIND_CLUSTER_DIR} ]] && echo "${want}" >"${cache}"
  fi
  if [[ ${want} == 1 ]]; then
    local wrap=${PW_KIND_DIR}/docker-wrap
    mkdir -p "${wrap}"
    ln -sf "${PW_ROOT}/hack/kind/docker" "${wrap}/docker"
    # The wrapper finds the real docker by dropping its own directory from PATH.
    export PATH="${wrap}:${PATH}"
    pw::log "docker run --privileged fails on this host: kind runs behind hack/kind/docker (every capability but SYS_RESOURCE)"
  fi
}

# pw::kind_wait_for_builds: waits while another hack/build-kubelet.sh or
# hack/build-cluster-binaries.sh runs (someone else's `make kubelet`, `make
# e2e`, ...): they write the same _output/bin/<binary>.tmp files, and two
# heavy Go builds at once only slow each other down on a small machine.
pw::kind_wait_for_builds() {
  local pids said=0
  while pids=$(pgrep -f 'hack/build-(cluster-binaries|kubelet)\.sh' | tr '\n' ' ') && [[ -n ${pids// /} ]]; do
    ((said)) || pw::log "waiting for another build to finish (pids ${pids})"
    said=1
    sleep 5
  done
}

# pw::kind <args>: the pinned kind binary.
pw::kind() { "${PW_KIND_BIN}/kind" "$@"; }

# pw::kind_check_version: the kind binary is the pinned release.
pw::kind_check_version() {
  local got
  [[ -x ${PW_KIND_BIN}/kind ]] || pw::kind_fail "${PW_KIND_BIN}/kind missing; run make kind-image (or hack/kind-build-tools.sh kind)"
  got=$("${PW_KIND_BIN}/kind" version 2>&1) || pw::kind_fail "${PW_KIND_BIN}/kind does not run: ${got}"
  [[ ${got} == "kind ${PW_KIND_VERSION} "* ]] ||
    pw::kind_fail "${PW_KIND_BIN}/kind is '${got}', want kind ${PW_KIND_VERSION} (hack/kind-lib.sh pins it; rebuild with hack/kind-build-tools.sh kind)"
}

# pw::kind_nodes: the node containers of the cluster, control plane first.
pw::kind_nodes() { pw::kind get nodes --name "${PW_KIND_CLUSTER}" 2>/dev/null | LC_ALL=C sort; }

# pw::kind_kubeconfig: where kind-up writes the cluster's kubeconfig.
pw::kind_kubeconfig() { echo "${PW_KIND_CLUSTER_DIR}/kubeconfig"; }

# pw::kind_kubectl <args>: kubectl (ours, the control plane's version) on the
# cluster. A cluster kind-up did not make (plain `kind create cluster`) gets
# its kubeconfig from kind on first use.
pw::kind_kubectl() {
  local kc
  kc=$(pw::kind_kubeconfig)
  if [[ ! -s ${kc} ]]; then
    mkdir -p "$(dirname "${kc}")"
    pw::kind get kubeconfig --name "${PW_KIND_CLUSTER}" >"${kc}" 2>/dev/null || rm -f "${kc}"
  fi
  "${PW_BIN}/kubectl" --kubeconfig "${kc}" "$@"
}

# pw::kind_node_kubelet_version <node>: what the node object reports.
pw::kind_node_kubelet_version() {
  pw::kind_kubectl get node "$1" -o jsonpath='{.status.nodeInfo.kubeletVersion}'
}

# pw::kind_node_ready <node>: the node's Ready condition is True.
pw::kind_node_ready() {
  [[ $(pw::kind_kubectl get node "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]]
}

# pw::kind_edit_default_kubelet <node> <script> <arg>: runs the bash script in
# the node on its /etc/default/kubelet (${f}), with arg as $1. kind writes the
# file without a final newline: the script finds it with one, so that a line
# it appends stays a line of its own instead of running on into
# KUBELET_EXTRA_ARGS.
pw::kind_edit_default_kubelet() {
  local node=$1 script=$2 arg=$3
  # shellcheck disable=SC2016 # expanded in the node
  docker exec "${node}" bash -c '
    f=/etc/default/kubelet
    touch "${f}"
    [[ ! -s ${f} || -z $(tail -c 1 "${f}") ]] || echo >>"${f}"'"${script}" _ "${arg}"
}

# pw::kind_set_env <node> <NAME=value|NAME=>: a variable of the node's
# kubelet's environment, a line of /etc/default/kubelet (kind's
# kubelet.service reads it as an EnvironmentFile) from the next restart on;
# an empty value drops the line.
pw::kind_set_env() {
  local node=$1 kv=$2
  [[ ${kv} =~ ^[A-Z_][A-Z0-9_]*=[A-Za-z0-9._-]*$ ]] || pw::kind_fail "--env '${kv}': want NAME=value (letters, digits, . _ -) or NAME="
  # shellcheck disable=SC2016 # expanded in the node
  pw::kind_edit_default_kubelet "${node}" '
    sed -i -E "/^${1%%=*}=/d" "${f}"
    [[ -z ${1#*=} ]] || echo "$1" >>"${f}"' "${kv}"
}

# pw::kind_set_feature_gates <node> <Name=bool,...|"">: the --feature-gates
# flag of the node's kubelet, in KUBELET_EXTRA_ARGS of /etc/default/kubelet
# (kind's kubelet.service reads it; a flag overrides the KubeletConfiguration's
# featureGates) from the next restart on; an empty spec drops the flag.
pw::kind_set_feature_gates() {
  local node=$1 gates=$2
  [[ -z ${gates} || ${gates} =~ ^[A-Za-z0-9]+=(true|false)(,[A-Za-z0-9]+=(true|false))*$ ]] ||
    pw::kind_fail "--feature-gates '${gates}': want Name=true|false[,...]"
  # shellcheck disable=SC2016 # expanded in the node
  pw::kind_edit_default_kubelet "${node}" '
    grep -q "^KUBELET_EXTRA_ARGS=" "${f}" || echo "KUBELET_EXTRA_ARGS=" >>"${f}"
    sed -i -E "s/ ?--feature-gates=[^ ]*//" "${f}"
    [[ -z $1 ]] || sed -i -E "s|^(KUBELET_EXTRA_ARGS=.*)\$|\\1 --feature-gates=$1|" "${f}"
    grep "^KUBELET_EXTRA_ARGS=" "${f}"' "${gates}"
}
