#!/usr/bin/env bash
# Builds what the e2e cluster runs besides Kubernetes itself, with no base
# image and no registry:
#   _output/bin/e2e/{probetarget,pause,mkimage,cricleanup}   static Go binaries (e2e/)
#   _output/images/pause.tar        ${PW_PAUSE_IMAGE}   (containerd's sandbox_image)
#   _output/images/probetarget.tar  ${PW_PROBETARGET_IMAGE}
# Both tarballs are docker-archives for `ctr -n k8s.io images import`, which
# hack/local-up-cluster.sh runs; pods use imagePullPolicy: Never. Takes seconds.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local-cluster-lib.sh"

bindir=${PW_OUTPUT}/bin/e2e
imgdir=${PW_OUTPUT}/images
mkdir -p "${bindir}" "${imgdir}"
cd "${PW_ROOT}"
CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' -o "${bindir}/" \
  ./e2e/probetarget ./e2e/tools/pause ./e2e/tools/mkimage ./e2e/tools/cricleanup

"${bindir}/mkimage" -o "${imgdir}/pause.tar" -tag "${PW_PAUSE_IMAGE}" \
  -add "${bindir}/pause:/pause" -entrypoint /pause -user 65535:65535
"${bindir}/mkimage" -o "${imgdir}/probetarget.tar" -tag "${PW_PROBETARGET_IMAGE}" \
  -add "${bindir}/probetarget:/probetarget" -dir /tmp -dir /state -entrypoint /probetarget
