#!/usr/bin/env bash
# Which k8s.io/kubernetes releases the Go module proxy serves beyond the pinned ones
# (make upstream-releases): for each supported minor, the patch releases newer than its
# series' release, and for the next minor its pre-releases and releases; beside each,
# what changed in pkg/kubelet/prober, pkg/probe and every file the series touch, so that
# moving a series (hack/move-release.sh) is a reviewed decision. Not part of make test:
# a release upstream ships must not fail CI (the parsing's test,
# hack/tools/upstreamreleases, is).
#
#   hack/upstream-releases.sh                 print it
#   hack/upstream-releases.sh --record [NAME]  also write e2e/results/releases/NAME.txt (default
#                                             upstream-<UTC date>), committed with a move
#                                             (docs/fork.md)
#   UPSTREAM_PINNED="v1.37.2 v1.36.3"         ask from these releases instead of the supported
#                                             ones (the pins before a move: what justified it)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

record=
case ${1:-} in
  "") ;;
  --record) record=${2:-upstream-$(date -u +%Y%m%d)} ;;
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
  *) pw::die "unknown argument $1 (see --help)" ;;
esac
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
{
  echo pkg/kubelet/prober/
  echo pkg/probe/
  # Every upstream file a series changes (a new file of ours is in neither release).
  cat "${PW_PATCHES_ROOT}"/v1.*/*.patch | sed -n 's#^diff --git a/\(.*\) b/.*$#\1#p'
} | LC_ALL=C sort -u >"${work}/paths"
if [[ -n ${UPSTREAM_PINNED:-} ]]; then
  read -r -a pinned <<<"${UPSTREAM_PINNED}"
else
  mapfile -t pinned < <(pw::supported_versions)
fi
# The next minor: the one after the newest supported (1.38's pre-release series, once it
# exists, is asked about as a pinned release).
newest=$(printf '%s\n' "${pinned[@]}" | sed 's/^v1\.\([0-9]*\).*/\1/' | sort -n | tail -n1)
next="v1.$((newest + 1))"
(cd "${PW_ROOT}" && go build -o "${work}/upstreamreleases" ./hack/tools/upstreamreleases)
{
  echo "make upstream-releases on $(date -u +%Y-%m-%d), commit $(git -C "${PW_ROOT}" rev-parse --short HEAD): the module proxy ($(go env GOPROXY | cut -d, -f1)) asked for each version in turn"
  echo "pinned: ${pinned[*]}${UPSTREAM_PINNED:+ (UPSTREAM_PINNED)} (main line ${PW_MAIN_VERSION}); compared: $(wc -l <"${work}/paths") paths (pkg/kubelet/prober/, pkg/probe/ and the files the series touch)"
  "${work}/upstreamreleases" -next "${next}" -paths "${work}/paths" "${pinned[@]}"
} | tee "${work}/out"
if [[ -n ${record} ]]; then
  out=${PW_ROOT}/e2e/results/releases/${record}.txt
  cp "${work}/out" "${out}"
  echo "wrote ${out#"${PW_ROOT}/"}"
fi
