#!/usr/bin/env bash
# A kind node image that is kind's own with probewheel's kubelet in it: the path for anyone whose
# Docker can pull kind's published images (`make kind-image-from-base`, docs/kind.md).
#
#   hack/kind-from-base.sh          FROM ${KIND_BASE} (default: the pinned kind release's image of
#                                   the pinned minor, PW_KIND_NODE_IMAGES in hack/kind-lib.sh; pull
#                                   it first), our kubelet in /usr/bin -> $(pw::kind_image_tag
#                                   kindest) (probewheel/node:v1.37.2-probewheel.2-kindest: not
#                                   make kind-image's probewheel/node:v1.37.2-probewheel.2, a
#                                   different image; KIND_IMAGE_REPO moves it). Then
#                                   kind create cluster --image <that tag>, or hack/kind-up.sh --from-base
#   hack/kind-from-base.sh --try    the same, offline, checked end to end (`make kind-try-from-base`):
#                                   the base is named by its tag alone (no registry here to check
#                                   a digest against) and, with no such image here, our stock node
#                                   image (make kind-image KUBELET_FLAVOR=stock) is tagged as it,
#                                   standing in for kind's; the image is built into the repository
#                                   probewheel/node-from-base (its tag ...-kindest), a one-node
#                                   cluster comes up on it (hack/kind-up.sh --from-base: kind
#                                   create cluster with this host's needs, failCgroupV1 among
#                                   them) and reports the fork's kubelet; then it is deleted and
#                                   a record written to
#                                   e2e/results/kind-from-base-<UTC date>.txt
#
# The image's one change is its kubelet: the Dockerfile is two lines, written here so that the
# build context is the kubelet alone.
set -euo pipefail
shopt -s inherit_errexit
try=0
case ${1:-} in
  "") ;;
  --try)
    try=1
    export KIND_CLUSTER_NAME=${KIND_CLUSTER_NAME:-pw-from-base}
    ;;
  *) echo "usage: ${0##*/} [--try]" >&2; exit 2 ;;
esac
# shellcheck source=hack/kind-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/kind-lib.sh"

base=${KIND_BASE:-${PW_KIND_NODE_IMAGES[${PW_KUBE_MINOR}]:-}}
[[ -n ${base} ]] || pw::die "kind ${PW_KIND_VERSION} publishes no node image of ${PW_KUBE_MINOR} (PW_KIND_NODE_IMAGES): set KIND_BASE"
pw::kind_traps
pw::kind_step "docker engine"
pw::kind_docker_ok

stand_in=""
if ((try)); then
  base=${base%@*}
  if ! pw::kind_image_id "${base}" >/dev/null; then
    pw::kind_step "our stock node image as ${base}"
    "${PW_ROOT}/hack/kind-build-image.sh" --stock
    stand_in=$(pw::kind_image_tag stock)
    docker tag "${stand_in}" "${base}"
    # The stand-in's tag goes when the script ends: a later pull must find no image of that name.
    PW_KIND_CLEANUP+=("docker rmi ${base}")
  fi
  # The tried image, built on a stand-in, gets a repository of its own, so that it never
  # replaces make kind-image-from-base's; exported for hack/kind-up.sh, which reads it when it starts.
  export KIND_IMAGE_REPO=probewheel/node-from-base
  PW_KIND_REPO=${KIND_IMAGE_REPO}
fi
tag=$(pw::kind_image_tag kindest)
pw::kind_step "the base image"
pw::kind_image_id "${base}" >/dev/null || pw::kind_fail "no image ${base} here: docker pull ${base} first (or KIND_BASE=<a kind node image of ${KUBE_VERSION}>)"

pw::kind_step "the kubelet"
"${PW_ROOT}/hack/build-kubelet.sh" >&2
ctx=${PW_KIND_DIR}/ctx/from-base
rm -rf "${ctx}"
mkdir -p "${ctx}"
cp "${PW_BIN}/kubelet" "${ctx}/kubelet"
printf 'FROM %s\nCOPY kubelet /usr/bin/kubelet\n' "${base}" >"${ctx}/Dockerfile"

pw::kind_step "docker build ${tag}"
docker build -q -t "${tag}" "${ctx}" >/dev/null
got=$(docker run --rm --entrypoint /usr/bin/kubelet "${tag}" --version)
want=$(pw::fork_version)
[[ ${got} == "Kubernetes ${want}" ]] || pw::kind_fail "${tag}'s kubelet says '${got}', want Kubernetes ${want}"
echo "${tag}: ${base} with /usr/bin/kubelet ${got}"
if ! ((try)); then
  echo "a cluster on it: kind create cluster --image ${tag}   (or hack/kind-up.sh --from-base)"
  exit 0
fi

out=${PW_ROOT}/e2e/results/kind-from-base-$(date -u +%Y%m%d).txt
log=${PW_KIND_DIR}/logs/from-base-up.log
mkdir -p "$(dirname "${log}")"
pw::kind_step "a one-node cluster on ${tag}"
rc=0
KIND_WORKERS=0 KIND_MIXED=0 "${PW_ROOT}/hack/kind-up.sh" --from-base >"${log}" 2>&1 || rc=$?
node_line=$(grep -E '^  .*-control-plane: kubelet ' "${log}" || true)
"${PW_ROOT}/hack/kind-down.sh" >>"${log}" 2>&1 || rc=1
((rc == 0)) || { tail -n 30 "${log}" >&2; pw::kind_fail "the cluster on ${tag} (log: ${log})"; }
{
  echo "# kind's node image with probewheel's kubelet, tried offline"
  echo
  echo "command: make kind-try-from-base"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "code: $(pw::run_stamp patches), $(pw::machine)"
  if [[ -n ${stand_in} ]]; then
    echo "base: ${base}, standing in: ${stand_in} tagged so (no registry here)"
  else
    echo "base: ${base} ($(pw::kind_image_id "${base}"))"
  fi
  echo "Dockerfile: FROM ${base} / COPY kubelet /usr/bin/kubelet"
  echo "image: ${tag}, its kubelet --version: ${got}"
  echo "cluster (hack/kind-up.sh, 1 node, then hack/kind-down.sh): up, Ready, prober_scheduler_* served; node${node_line#* }"
  echo "result: pass"
} >"${out}"
cat "${out}"
