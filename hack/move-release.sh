#!/usr/bin/env bash
# Moves one supported minor's series to another patch release of it, in one
# command:
#
#   hack/move-release.sh v1.37.3   the main line (go.mod): hack/set-kube-version.sh,
#                                  then hack/rebase-patches.sh, then make patches
#   hack/move-release.sh v1.36.4   an older minor: series/minors/v1.36/release, then
#                                  hack/update-minors.sh v1.36
#   hack/move-release.sh v1.38.0-rc.0  the next minor's series to its newer pre-release, the same way
#                                  (v1.38.0 too: the main line stays; hack/move-main-line.sh moves it)
#
# A conflict stops it with where to resolve it and what to run next. Then:
# make test, make kubelet KUBE_VERSION=<release>, make minors (docs/fork.md).
set -euo pipefail
shopt -s inherit_errexit
new=${1:-}
if [[ ${new} == -h || ${new} == --help ]]; then
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
  exit 0
fi
[[ ${new} =~ ^v1\.[0-9]+\.[0-9]+(-(alpha|beta|rc)\.[0-9]+)?$ ]] || {
  echo "usage: $0 v1.Y.Z[-rc.N] (a k8s.io/kubernetes release or pre-release in the module proxy)" >&2
  exit 2
}
unset KUBE_VERSION
PW_ANY_VERSION=1
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
minor=$(pw::minor_of "${new}")
main_minor=$(pw::minor_of "${PW_MAIN_VERSION}")
# A release the proxy does not have fails here, before anything changes.
pw::module_dir "${new}" >/dev/null

if [[ ${minor} == "${main_minor}" ]]; then
  [[ ${new} != "${PW_MAIN_VERSION}" ]] || pw::die "the main line is on ${new} already"
  old=${PW_MAIN_VERSION}
  "${PW_ROOT}/hack/set-kube-version.sh" "${new}"
  "${PW_ROOT}/hack/rebase-patches.sh" "${old}"
  "${PW_ROOT}/hack/update-minors.sh"
  echo "the main line moved from ${old} to ${new}"
elif [[ -f ${PW_MINORS_DIR}/${minor}/release ]]; then
  old=$(head -n1 "${PW_MINORS_DIR}/${minor}/release")
  [[ ${new} != "${old}" ]] || pw::die "patches/${minor} is on ${new} already"
  echo "${new}" >"${PW_MINORS_DIR}/${minor}/release"
  if ! "${PW_ROOT}/hack/update-minors.sh" "${minor}"; then
    echo "${old}" >"${PW_MINORS_DIR}/${minor}/release"
    pw::die "patches/${minor} stays on ${old}: fix or add the fixup named above (hack/update-minors.sh --help), set series/minors/${minor}/release to ${new}, run hack/update-minors.sh ${minor}"
  fi
  echo "patches/${minor} moved from ${old} to ${new}"
  if [[ $(printf '%s\n%s\n' "${minor}" "${main_minor}" | sort -V | tail -n1) == "${minor}" ]]; then
    echo "the main line stays on ${PW_MAIN_VERSION}: commit this, then hack/move-main-line.sh ${new} moves it (docs/fork.md)"
  fi
else
  pw::die "${minor} is not a supported minor (main line ${main_minor}, older: $(ls "${PW_MINORS_DIR}" 2>/dev/null | tr '\n' ' ')); docs/fork.md says how to add one"
fi
