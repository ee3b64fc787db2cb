#!/usr/bin/env bash
# Builds what the e2e cluster runs besides Kubernetes itself, with no base
# image and no registry:
#   _output/bin/e2e/{probetarget,pause,mkimage,cricleanup}   static Go binaries (e2e/)
#   _output/images/pause.tar        ${PW_PAUSE_IMAGE}   (containerd's sandbox_image)
#   _output/images/probetarget.tar  ${PW_PROBETARGET_IMAGE}
# Both tarballs are docker-archives for `ctr -n k8s.io images import`, which
# hack/local-up-cluster.sh runs; pods use imagePullPolicy: Never. Takes seconds.
#
#   hack/build-e2e-images.sh --upstream
#
# also builds the two images upstream's probe e2e specs
# (test/e2e/common/node/container_probe.go) run, under the exact names
# e2e.test asks for (`e2e.test --list-images`), into _output/images/extra/,
# which hack/local-up-cluster.sh imports too:
#   busybox  Debian's busybox-static, one symlink per applet in /bin
#   agnhost  upstream's agnhost (hack/build-cluster-binaries.sh agnhost) as
#            /agnhost, plus /bin/bash (Debian's bash-static: the terminating-pod
#            specs run `/bin/bash -c` scripts in it) and busybox's applets
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local-cluster-lib.sh"

upstream=0
case ${1:-} in
  "") ;;
  --upstream) upstream=1 ;;
  *) pw::die "usage: ${0##*/} [--upstream]" ;;
esac

bindir=${PW_BIN}/e2e
imgdir=${PW_OUTPUT}/images
mkdir -p "${bindir}" "${imgdir}"
cd "${PW_ROOT}"
CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' -o "${bindir}/" \
  ./e2e/probetarget ./hack/tools/pause ./hack/tools/mkimage ./hack/tools/cricleanup

"${bindir}/mkimage" -o "${imgdir}/pause.tar" -tag "${PW_PAUSE_IMAGE}" \
  -add "${bindir}/pause:/pause" -entrypoint /pause -user 65535:65535
"${bindir}/mkimage" -o "${imgdir}/probetarget.tar" -tag "${PW_PROBETARGET_IMAGE}" \
  -add "${bindir}/probetarget:/probetarget" -dir /tmp -dir /state -entrypoint /probetarget

((upstream)) || exit 0

e2e_test=${PW_BIN}/e2e.test
agnhost=${PW_BIN}/agnhost
busybox=/bin/busybox
bash_static=/bin/bash-static
for f in "${e2e_test}" "${agnhost}"; do
  [[ -x ${f} ]] || pw::die "${f} missing; run hack/build-cluster-binaries.sh e2e.test ginkgo agnhost"
done
for f in "${busybox}" "${bash_static}"; do
  [[ -x ${f} ]] || pw::die "${f} missing; run hack/install-e2e-deps.sh"
done
for f in "${busybox}" "${bash_static}"; do
  # ldd fails on a static binary: a dynamic one would not run in an image with no libc.
  if ldd "${f}" >/dev/null 2>&1; then pw::die "${f} is dynamically linked"; fi
done

# The names e2e.test will run, e.g. registry.k8s.io/e2e-test-images/agnhost:2.63.0.
# It lists a current and a previous version of some images (agnhost 2.63.0
# and 2.55, busybox 1.37.0-1 and 1.36.1-1); the probe specs use the current
# ones, and the one image built here carries every listed tag of its name.
images=$("${e2e_test}" --list-images)
image_tags() {
  local refs
  refs=$(grep -E "^registry\.k8s\.io/e2e-test-images/$1:[^/]+$" <<<"${images}") || true
  [[ -n ${refs} ]] || pw::die "e2e.test --list-images names no registry.k8s.io/e2e-test-images/$1 image"
  local r
  for r in ${refs}; do printf -- '-tag\n%s\n' "${r}"; done
}
mapfile -t agnhost_tags < <(image_tags agnhost)
mapfile -t busybox_tags < <(image_tags busybox)
((${#agnhost_tags[@]} > 0 && ${#busybox_tags[@]} > 0)) || pw::die "no agnhost or busybox tags (see above)"

# busybox's applets (minus bash, which agnhost gets for real) as /bin symlinks.
applets=()
while read -r a; do
  [[ -n ${a} && ${a} != busybox && ${a} != bash ]] && applets+=(-link "/bin/${a}:busybox")
done < <("${busybox}" --list)

extra=${imgdir}/extra
mkdir -p "${extra}"
rm -f "${extra}"/*.tar
"${bindir}/mkimage" -o "${extra}/busybox.tar" "${busybox_tags[@]}" \
  -add "${busybox}:/bin/busybox" "${applets[@]}" -dir /tmp -dir /etc -cmd sh
"${bindir}/mkimage" -o "${extra}/agnhost.tar" "${agnhost_tags[@]}" \
  -add "${agnhost}:/agnhost" -link /agnhost-2:agnhost -add "${bash_static}:/bin/bash" \
  -add "${busybox}:/bin/busybox" "${applets[@]}" -dir /tmp -dir /uploads -dir /etc \
  -entrypoint /agnhost -cmd pause
