#!/usr/bin/env bash
# Which k8s.io/kubernetes releases the Go module proxy serves beyond the pinned ones
# (make upstream-releases): for each supported minor, the patch releases newer than its
# series' release, and for the next minor its pre-releases and releases; beside each,
# what changed in pkg/kubelet/prober, pkg/probe and every file the series touch, so that
# moving a series (hack/move-release.sh) is a reviewed decision. Not part of make test:
# a release upstream ships must not fail CI (the parsing's test,
# hack/tools/upstreamreleases, is).
#
#   hack/upstream-releases.sh            print it
#   hack/upstream-releases.sh --record   also write e2e/results/releases/upstream-<UTC date>.txt,
#                                        committed with a move (docs/fork.md)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

record=
case ${1:-} in
  "") ;;
  --record) record=1 ;;
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
  *) pw::die "unknown argument $1 (see --help)" ;;
esac
main_minor=$(pw::minor_of "${PW_MAIN_VERSION}")
next="v1.$((${main_minor#v1.} + 1))"
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
{
  echo pkg/kubelet/prober/
  echo pkg/probe/
  # Every upstream file a series changes (a new file of ours is in neither release).
  cat "${PW_PATCHES_ROOT}"/v1.*/*.patch | sed -n 's#^diff --git a/\(.*\) b/.*$#\1#p'
} | LC_ALL=C sort -u >"${work}/paths"
mapfile -t pinned < <(pw::supported_versions)
(cd "${PW_ROOT}" && go build -o "${work}/upstreamreleases" ./hack/tools/upstreamreleases)
{
  echo "make upstream-releases on $(date -u +%Y-%m-%d), commit $(git -C "${PW_ROOT}" rev-parse --short HEAD): the module proxy ($(go env GOPROXY | cut -d, -f1)) asked for each version in turn"
  echo "pinned: ${pinned[*]} (main line ${PW_MAIN_VERSION}); compared: $(wc -l <"${work}/paths") paths (pkg/kubelet/prober/, pkg/probe/ and the files the series touch)"
  "${work}/upstreamreleases" -next "${next}" -paths "${work}/paths" "${pinned[@]}"
} | tee "${work}/out"
if [[ -n ${record} ]]; then
  out=${PW_ROOT}/e2e/results/releases/upstream-$(date -u +%Y%m%d).txt
  cp "${work}/out" "${out}"
  echo "wrote ${out#"${PW_ROOT}/"}"
fi
