#!/usr/bin/env bash
# Loads the e2e images into every node of the kind cluster (`kind load
# image-archive`, no registry): probetarget (e2e/probetarget) and, when they
# are built (hack/build-e2e-images.sh --upstream), upstream's agnhost and
# busybox. The node image itself carries only what the cluster needs.
#
#   hack/kind-load-images.sh [tarball...]
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/kind-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/kind-lib.sh"

pw::kind_traps
pw::kind_step "e2e images"
tars=("$@")
"${PW_ROOT}/hack/build-e2e-images.sh" >/dev/null # probetarget (seconds when up to date)
if ((${#tars[@]} == 0)); then
  tars=("${PW_OUTPUT}/images/probetarget.tar")
  for t in "${PW_OUTPUT}"/images/extra/*.tar; do [[ -e ${t} ]] && tars+=("${t}"); done
fi
nodes=$(pw::kind_nodes)
[[ -n ${nodes} ]] || pw::kind_fail "no kind cluster ${PW_KIND_CLUSTER}; run make kind-up"
# kind load runs `docker exec --privileged` in the nodes.
pw::kind_use_wrapper "$(docker inspect -f '{{.Config.Image}}' "${nodes%%$'\n'*}")"
for t in "${tars[@]}"; do
  pw::kind_step "kind load image-archive ${t##*/}"
  [[ -f ${t} ]] || pw::kind_fail "${t} missing"
  pw::kind load image-archive "${t}" --name "${PW_KIND_CLUSTER}" >/dev/null
done
PW_KIND_STEP=""
echo "loaded ${#tars[@]} image archive(s) into $(wc -l <<<"${nodes}") node(s)"
