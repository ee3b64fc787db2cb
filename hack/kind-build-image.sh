#!/usr/bin/env bash
# Builds probewheel's kind node image (`make kind-image`) with no container
# registry: from Debian packages, the Go module proxy and the pinned
# Kubernetes tree only.
#
#   hack/kind-build-image.sh           -> probewheel/node:<fork version>  (v1.37.2-probewheel.2)
#   hack/kind-build-image.sh --stock   -> probewheel/node:<version>-stock (v1.37.2-stock)
#   (KUBELET_FLAVOR=stock is the same as --stock)
#
# The image is assembled the way kind's own builder does it (`kind build
# node-image` needs a registry): a base with systemd and containerd, the
# Kubernetes binaries in /usr/bin, /kind/version, /kind/manifests, and the
# control plane's images imported into containerd's k8s.io namespace; then
# `docker commit`. Stages, each tagged with a hash of its inputs and skipped
# when an image with that tag exists (docs/kind.md lists what is in each):
#
#   rootfs     probewheel/kind-rootfs    debootstrap --variant=minbase bookworm, docker import
#   base       probewheel/kind-base      + systemd, containerd, runc, CNI plugins (apt),
#                                          kind's images/base/files (hack/kind/node)
#   netbase    probewheel/kind-netbase   rootfs + iptables, iproute2, curl, jq (hack/kind/netbase)
#   images     _output/kind/images/*.tar kube-apiserver, -controller-manager, -scheduler, etcd,
#                                          coredns, pause (static, FROM scratch: hack/tools/mkimage);
#                                          kube-proxy and the CNI DaemonSet (netbase + a script)
#   nokubelet  probewheel/kind-nokubelet base + kubeadm, kubectl, crictl, /kind/*, the images above
#   kubelet    probewheel/node:<tag>     nokubelet + one layer: /usr/bin/kubelet
#
# Only the last stage depends on the kubelet, and the two flavors share every
# other one: a prober change rebuilds the kubelet (hack/build-kubelet.sh) and
# one ~60 MB layer; nothing changed, nothing is rebuilt (a few seconds of
# checks). Everything but the kubelet is stock $KUBE_VERSION.
# Go builds run one at a time under `nice -n 10`; logs of the docker steps
# go to _output/kind/logs/.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/kind-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/kind-lib.sh"

flavor=$(pw::flavor "$@")
if [[ ${flavor} == stock ]]; then
  kubelet=${PW_BIN}/kubelet-stock
  kubelet_version=${KUBE_VERSION}
else
  kubelet=${PW_BIN}/kubelet
  kubelet_version=$(pw::fork_version)
fi
final=$(pw::kind_image_tag "${flavor}")
logs=${PW_KIND_DIR}/logs
mkdir -p "${logs}" "${PW_KIND_DIR}/images" "${PW_KIND_DIR}/ctx"
bin=${PW_BIN}
start=${SECONDS}
pw::kind_traps
mirror=${KIND_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security_mirror=${KIND_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
suite=bookworm

# logged <log name> <command...>: runs it with its output in logs/<name>.log,
# which is shown (its end) when it fails.
logged() {
  local log=${logs}/$1.log
  shift
  if ! "$@" >"${log}" 2>&1; then
    tail -n 25 "${log}" >&2
    pw::kind_fail "$* (full log: ${log})"
  fi
}

# have <repo> <key>: the stage image is already built.
have() { pw::kind_image_id "$1:$2" >/dev/null; }

pw::kind_step "docker engine"
pw::kind_docker_ok

# build_stage <repo> <key> <context dir> [--build-arg ...]: docker build, unless built.
build_stage() {
  local repo=$1 key=$2 ctx=$3
  shift 3
  if have "${repo}" "${key}"; then
    echo "${repo}:${key} is up to date"
  else
    pw::log "docker build ${repo}:${key}"
    logged "${repo##*/}" docker build -q --label "${PW_KIND_LABEL}=stage" -t "${repo}:${key}" "$@" "${ctx}"
    pw::kind_prune_stage "${repo}" "${key}"
  fi
}

# context <name> <files...>: a fresh build context dir with the given files
# (hard links when possible) and the Dockerfile of hack/kind/<name>.
context() {
  local name=$1 ctx=${PW_KIND_DIR}/ctx/$1 f
  shift
  rm -rf "${ctx}"
  mkdir -p "${ctx}"
  for f in "${PW_ROOT}/hack/kind/${name}/Dockerfile" "$@"; do
    cp -l "${f}" "${ctx}/" 2>/dev/null || cp "${f}" "${ctx}/"
  done
  echo "${ctx}"
}

# The Debian stages need no Go build: they run in the background while the
# Go builds below run (network and disk against CPU), and leave what the
# later stages need in debian-stages.env.
debian_stages() {
  pw::kind_step "Debian ${suite} rootfs (debootstrap)"
  local rootfs_key rootfs rootfs_id dir kind_moddir base_key base netbase_key netbase ctx
  rootfs_key=$(pw::kind_hash "debootstrap --variant=minbase ${suite} ${mirror} ${security_mirror}")
  rootfs=probewheel/kind-rootfs:${rootfs_key}
  if have probewheel/kind-rootfs "${rootfs_key}"; then
    echo "${rootfs} is up to date"
  else
    [[ $(id -u) == 0 ]] || pw::kind_fail "debootstrap needs root"
    if ! command -v debootstrap >/dev/null; then
      pw::log "installing debootstrap (Debian package)"
      DEBIAN_FRONTEND=noninteractive logged apt-debootstrap apt-get install -y -qq --no-install-recommends debootstrap
    fi
    dir=${PW_KIND_DIR}/rootfs
    rm -rf "${dir}"
    pw::log "debootstrap --variant=minbase ${suite} from ${mirror} (a few minutes)"
    logged debootstrap debootstrap --variant=minbase "${suite}" "${dir}" "${mirror}"
    printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
      "${mirror}" "${suite}" "${mirror}" "${suite}" "${security_mirror}" "${suite}" >"${dir}/etc/apt/sources.list"
    # Like Debian's docker images: no recommends, no docs, no caches.
    printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"${dir}/etc/apt/apt.conf.d/90probewheel"
    rm -rf "${dir}"/var/cache/apt/archives/*.deb "${dir}"/var/lib/apt/lists/* "${dir}"/usr/share/doc/* "${dir}"/usr/share/man/*
    logged rootfs-import bash -c "tar -C '${dir}' --numeric-owner -c . | docker import --change 'CMD [\"/bin/bash\"]' - '${rootfs}'"
    rm -rf "${dir}"
    pw::kind_prune_stage probewheel/kind-rootfs "${rootfs_key}"
  fi
  rootfs_id=$(pw::kind_image_id "${rootfs}")

  pw::kind_step "node base image (systemd, containerd, kind's base files)"
  kind_moddir=$(cd / && GOFLAGS=-mod=mod go mod download -json "${PW_KIND_MODULE}@${PW_KIND_VERSION}" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  [[ -d ${kind_moddir}/images/base/files ]] || pw::kind_fail "no images/base/files in ${PW_KIND_MODULE}@${PW_KIND_VERSION} (${kind_moddir})"
  base_key=$(pw::kind_hash "${rootfs_id}" "${PW_ROOT}/hack/kind/node" "${kind_moddir}/images/base/files")
  base=probewheel/kind-base:${base_key}
  if ! have probewheel/kind-base "${base_key}"; then
    ctx=$(context node "${PW_ROOT}/hack/kind/node/probewheel-entrypoint")
    cp -r "${kind_moddir}/images/base/files" "${ctx}/kind-files"
    # Module zips are read-only: 0755 for directories and kind's scripts, 0644 for the rest (as kind's COPY --chmod).
    chmod -R u+w "${ctx}/kind-files"
    find "${ctx}/kind-files" -type d -exec chmod 0755 {} +
    find "${ctx}/kind-files" -type f -exec chmod 0644 {} +
    chmod 0755 "${ctx}"/kind-files/usr/local/bin/* "${ctx}"/kind-files/kind/bin/* "${ctx}/probewheel-entrypoint"
  fi
  build_stage probewheel/kind-base "${base_key}" "${PW_KIND_DIR}/ctx/node" --build-arg "ROOTFS=${rootfs}"

  pw::kind_step "netbase image (iptables, iproute2, curl, jq)"
  netbase_key=$(pw::kind_hash "${rootfs_id}" "${PW_ROOT}/hack/kind/netbase")
  netbase=probewheel/kind-netbase:${netbase_key}
  have probewheel/kind-netbase "${netbase_key}" || context netbase >/dev/null
  build_stage probewheel/kind-netbase "${netbase_key}" "${PW_KIND_DIR}/ctx/netbase" --build-arg "ROOTFS=${rootfs}"

  printf 'kind_moddir=%q\nbase=%q\nbase_id=%q\nnetbase=%q\nnetbase_id=%q\n' "${kind_moddir}" \
    "${base}" "$(pw::kind_image_id "${base}")" "${netbase}" "$(pw::kind_image_id "${netbase}")" >"${logs}/debian-stages.env"
}

pw::kind_step "Debian stages (rootfs, base, netbase), in the background: ${logs}/debian-stages.log"
rm -f "${logs}/debian-stages.env"
debian_stages >"${logs}/debian-stages.log" 2>&1 &
debian_pid=$!
PW_KIND_CLEANUP+=("pw::kind_kill_tree ${debian_pid}")

# ------------------------------------------------------------------ Go builds
pw::kind_step "go builds (kubelet ${flavor}, control plane, kubeadm, kube-proxy, crictl, etcd, coredns, e2e tools)"
pw::kind_wait_for_builds
KUBELET_FLAVOR=${flavor} nice -n 10 "${PW_ROOT}/hack/build-kubelet.sh"
pw::kind_wait_for_builds
nice -n 10 "${PW_ROOT}/hack/build-cluster-binaries.sh" kube-apiserver kube-controller-manager kube-scheduler kubectl kubeadm kube-proxy
"${PW_ROOT}/hack/kind-build-tools.sh" crictl etcd coredns
(cd "${PW_ROOT}" && CGO_ENABLED=0 nice -n 10 go build -trimpath -buildvcs=false -ldflags='-s -w' -o "${bin}/e2e/" ./hack/tools/mkimage ./hack/tools/pause)
for b in "${kubelet}" "${bin}"/{kube-apiserver,kube-controller-manager,kube-scheduler,kubectl,kubeadm,kube-proxy} \
  "${PW_KIND_BIN}"/{crictl,etcd,coredns} "${bin}"/e2e/{mkimage,pause}; do
  [[ -x ${b} ]] || pw::kind_fail "${b} missing after the builds"
done

pw::kind_step "Debian stages (rootfs, base, netbase)"
if ! wait "${debian_pid}"; then
  tail -n 30 "${logs}/debian-stages.log" >&2
  pw::kind_fail "see ${logs}/debian-stages.log"
fi
grep -v '^+++ \[' "${logs}/debian-stages.log" || true
# shellcheck source=/dev/null # sets kind_moddir, base, base_id, netbase, netbase_id
source "${logs}/debian-stages.env"
: "${kind_moddir:?}" "${base:?}" "${base_id:?}" "${netbase:?}" "${netbase_id:?}"
pw::kind_step "kubeadm's image list"
mapfile -t wanted < <("${bin}/kubeadm" config images list --kubernetes-version "${KUBE_VERSION}" 2>/dev/null)
((${#wanted[@]} >= 7)) || pw::kind_fail "kubeadm config images list printed '${wanted[*]}'"
image_ref() { # image_ref <name>: the reference kubeadm uses for registry.k8s.io/<name>
  local r
  for r in "${wanted[@]}"; do
    [[ ${r%:*} == "registry.k8s.io/$1" ]] && { echo "${r}"; return 0; }
  done
  pw::kind_fail "kubeadm names no registry.k8s.io/$1 image (${wanted[*]})"
}

# ----------------------------------------------------------- images inside
pw::kind_step "images for containerd (control plane, etcd, coredns, pause, kube-proxy, CNI)"
imgdir=${PW_KIND_DIR}/images
# component <name> <key> <command...>: writes images/<name>.tar unless its key is unchanged.
keys=()
component() {
  local name=$1 key=$2
  shift 2
  keys+=("${name}=${key}")
  if [[ -f ${imgdir}/${name}.tar && $(cat "${imgdir}/${name}.key" 2>/dev/null) == "${key}" ]]; then
    return 0
  fi
  rm -f "${imgdir}/${name}.key"
  logged "image-${name}" "$@"
  echo "${key}" >"${imgdir}/${name}.key"
  pw::log "images/${name}.tar"
}
mkimage=${bin}/e2e/mkimage
mkimage_key=$(pw::kind_hash "${mkimage}")
for c in kube-apiserver kube-controller-manager kube-scheduler; do
  ref=$(image_ref "${c}")
  component "${c}" "$(pw::kind_hash "${mkimage_key}" "${ref}" "${bin}/${c}")" \
    "${mkimage}" -o "${imgdir}/${c}.tar" -tag "${ref}" -add "${bin}/${c}:/usr/local/bin/${c}" -dir /tmp
done
ref=$(image_ref etcd)
component etcd "$(pw::kind_hash "${mkimage_key}" "${ref}" "${PW_KIND_BIN}/etcd")" \
  "${mkimage}" -o "${imgdir}/etcd.tar" -tag "${ref}" -add "${PW_KIND_BIN}/etcd:/usr/local/bin/etcd" -dir /tmp -dir /var/lib/etcd
ref=$(image_ref coredns/coredns)
component coredns "$(pw::kind_hash "${mkimage_key}" "${ref}" "${PW_KIND_BIN}/coredns")" \
  "${mkimage}" -o "${imgdir}/coredns.tar" -tag "${ref}" -add "${PW_KIND_BIN}/coredns:/coredns" -dir /tmp -entrypoint /coredns
# kubeadm's pause and the one kind's containerd config names as sandbox_image.
pause_refs=("$(image_ref pause)")
kind_pause=$(sed -n 's/^[[:space:]]*sandbox_image = "\(.*\)"/\1/p' "${kind_moddir}/images/base/files/etc/containerd/config.toml")
[[ -n ${kind_pause} && ${kind_pause} != "${pause_refs[0]}" ]] && pause_refs+=("${kind_pause}")
pause_tags=()
for r in "${pause_refs[@]}"; do pause_tags+=(-tag "${r}"); done
component pause "$(pw::kind_hash "${mkimage_key}" "${pause_refs[*]}" "${bin}/e2e/pause")" \
  "${mkimage}" -o "${imgdir}/pause.tar" "${pause_tags[@]}" -add "${bin}/e2e/pause:/pause" -entrypoint /pause -user 65535:65535

# docker_component <name> <ref> <hack/kind dir> <files...>: docker build on netbase, docker save.
docker_component() {
  local name=$1 ref=$2 dir=$3 key
  shift 3
  key=$(pw::kind_hash "${netbase_id}" "${ref}" "${PW_ROOT}/hack/kind/${dir}" "$@")
  save_component() {
    local ctx
    ctx=$(context "${dir}" "$@")
    docker build -q --label "${PW_KIND_LABEL}=stage" --build-arg "NETBASE=${netbase}" -t "${ref}" "${ctx}" &&
      docker save -o "${imgdir}/${name}.tar" "${ref}" &&
      docker rmi "${ref}"
  }
  component "${name}" "${key}" save_component "$@"
}
ln -f "${bin}/kube-proxy" "${PW_KIND_DIR}/ctx/kube-proxy-bin" 2>/dev/null || cp -f "${bin}/kube-proxy" "${PW_KIND_DIR}/ctx/kube-proxy-bin"
docker_component kube-proxy "$(image_ref kube-proxy)" kube-proxy "${PW_ROOT}/hack/kind/kube-proxy/kube-proxy" "${PW_KIND_DIR}/ctx/kube-proxy-bin"
docker_component cni "${PW_KIND_CNI_IMAGE}" cni "${PW_ROOT}/hack/kind/cni/probewheel-cni"

# ------------------------------------------------------------ nokubelet
pw::kind_step "node image without the kubelet (kubeadm, kubectl, /kind, images in containerd)"
sed "s#PROBEWHEEL_CNI_IMAGE#${PW_KIND_CNI_IMAGE}#" "${PW_ROOT}/hack/kind/cni/default-cni.yaml" >"${PW_KIND_DIR}/ctx/default-cni.yaml"
nokubelet_key=$(pw::kind_hash "${base_id}" "${KUBE_VERSION}" "${keys[*]}" "${bin}/kubeadm" "${bin}/kubectl" "${PW_KIND_BIN}/crictl" "${PW_KIND_DIR}/ctx/default-cni.yaml" "nokubelet recipe 1")
nokubelet=probewheel/kind-nokubelet:${nokubelet_key}
if have probewheel/kind-nokubelet "${nokubelet_key}"; then
  echo "${nokubelet} is up to date"
else
  cid=pw-kind-build-$$
  PW_KIND_CLEANUP+=("docker rm -f -v ${cid}")
  # --init: a PID 1 that reaps, so that the stopped containerd is really gone.
  logged nokubelet-run docker run -d --init --name "${cid}" --label "${PW_KIND_LABEL}=build" --entrypoint sleep \
    --security-opt seccomp=unconfined "${base}" infinity
  logged nokubelet-cp bash -c "docker cp '${bin}/kubeadm' '${cid}:/usr/bin/kubeadm' && docker cp '${bin}/kubectl' '${cid}:/usr/bin/kubectl' &&
    docker cp '${PW_KIND_BIN}/crictl' '${cid}:/usr/local/bin/crictl' &&
    docker exec '${cid}' mkdir -p /kind/manifests &&
    docker cp '${PW_KIND_DIR}/ctx/default-cni.yaml' '${cid}:/kind/manifests/default-cni.yaml' &&
    docker exec '${cid}' sh -c 'chown root:root /usr/bin/kubeadm /usr/bin/kubectl /usr/local/bin/crictl /kind/manifests/default-cni.yaml && chmod 0755 /usr/bin/kubeadm /usr/bin/kubectl /usr/local/bin/crictl && printf %s ${KUBE_VERSION} >/kind/version'"
  # As kind's builder: containerd in the build container, images imported
  # unpacked-less (--no-unpack: no snapshotter, so no privileges needed);
  # the node unpacks them with its own snapshotter on first use.
  # shellcheck disable=SC2016 # expanded in the build container
  logged nokubelet-containerd docker exec "${cid}" bash -c 'nohup containerd >/tmp/containerd.log 2>&1 &
    for i in $(seq 50); do ctr version >/dev/null 2>&1 && exit 0; sleep 0.2; done; cat /tmp/containerd.log; exit 1'
  for t in "${imgdir}"/*.tar; do
    logged "nokubelet-import-${t##*/}" docker exec -i "${cid}" ctr --namespace=k8s.io images import --all-platforms --no-unpack --digests - <"${t}"
  done
  imported=$(docker exec "${cid}" ctr --namespace=k8s.io images list -q)
  for r in "${wanted[@]}" "${pause_refs[@]}" "${PW_KIND_CNI_IMAGE}"; do
    grep -qxF "${r}" <<<"${imported}" || pw::kind_fail "${r} is not in the node's containerd after the import (have: ${imported//$'\n'/ })"
  done
  # shellcheck disable=SC2016 # expanded in the build container
  logged nokubelet-stop docker exec "${cid}" bash -c 'pkill -x containerd; for i in $(seq 100); do pgrep -x containerd >/dev/null || exit 0; sleep 0.1; done; exit 1'
  docker exec "${cid}" rm -rf /tmp/containerd.log
  logged nokubelet-commit docker commit -m "probewheel: kubeadm, kubectl, crictl, /kind, images in containerd" \
    --change 'ENTRYPOINT [ "/usr/local/bin/probewheel-entrypoint", "/usr/local/bin/entrypoint", "/sbin/init" ]' \
    --change 'CMD []' --change "LABEL ${PW_KIND_LABEL}=stage" "${cid}" "${nokubelet}"
  docker rm -f -v "${cid}" >/dev/null
  pw::kind_prune_stage probewheel/kind-nokubelet "${nokubelet_key}"
fi
nokubelet_id=$(pw::kind_image_id "${nokubelet}")

# ------------------------------------------------------------ kubelet layer
pw::kind_step "kubelet layer (${flavor}: ${kubelet##*/})"
final_key=$(pw::kind_hash "${nokubelet_id}" "${kubelet}" "${kubelet_version}")
if [[ $(pw::kind_image_label "${final}" "${PW_KIND_LABEL}.inputs") == "${final_key}" ]]; then
  echo "${final} is up to date"
else
  ctx=${PW_KIND_DIR}/ctx/kubelet-${flavor}
  rm -rf "${ctx}"
  mkdir -p "${ctx}"
  ln -f "${kubelet}" "${ctx}/kubelet" 2>/dev/null || cp "${kubelet}" "${ctx}/kubelet"
  # shellcheck disable=SC2016 # a Dockerfile's ${BASE}
  printf 'ARG BASE\nFROM ${BASE}\nCOPY kubelet /usr/bin/kubelet\n' >"${ctx}/Dockerfile"
  logged "kubelet-${flavor}" docker build -q --build-arg "BASE=${nokubelet}" \
    --label "${PW_KIND_LABEL}.inputs=${final_key}" --label "${PW_KIND_LABEL}.kubelet=${kubelet_version}" \
    --label "${PW_KIND_LABEL}.flavor=${flavor}" -t "${final}" "${ctx}"
  rm -rf "${ctx}"
fi

pw::kind_step "check ${final}"
got=$(docker run --rm --entrypoint /usr/bin/kubelet "${final}" --version)
[[ ${got} == "Kubernetes ${kubelet_version}" ]] || pw::kind_fail "${final}: kubelet --version printed '${got}', want 'Kubernetes ${kubelet_version}'"
got=$(docker run --rm --entrypoint /usr/bin/kubeadm "${final}" version -o short)
[[ ${got} == "${KUBE_VERSION}" ]] || pw::kind_fail "${final}: kubeadm version printed '${got}', want '${KUBE_VERSION}'"
PW_KIND_STEP=""
size=$(docker image inspect --format '{{.Size}}' "${final}")
echo "${final}: kubelet ${kubelet_version}, control plane ${KUBE_VERSION}, $((size / 1048576)) MiB ($((SECONDS - start))s)"
