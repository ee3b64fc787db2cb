#!/usr/bin/env bash
# Rehearses the main line's move to the next minor on that minor's newest pre-release,
# so that its release day holds no surprise in the tooling:
#
#   hack/rehearse-main-line.sh [v1.38.0-rc.0]   default: series/minors/<next minor>/release
#
# Clones HEAD (committed code only) into a scratch directory, runs
# `hack/move-main-line.sh <release> --no-tidy` there (every step but go mod tidy, which
# a pre-release's unpublished modules stop) and `hack/set-kube-version.sh <release>` on its
# own (the Go it picks, and where the module proxy stops it), then writes
# e2e/results/move-main-line-<UTC date>.md: what each step did and whether every series
# kept its patch set. Run it again on each new pre-release (docs/fork.md).
set -euo pipefail
shopt -s inherit_errexit
case ${1:-} in
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
  "" | v1.*) ;;
  *) echo "usage: $0 [v1.Y.Z-rc.N]" >&2 && exit 2 ;;
esac
unset KUBE_VERSION
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
main_minor=$(pw::minor_of "${PW_MAIN_VERSION}")
next=${main_minor%.*}.$((${main_minor##*.} + 1))
release=${1:-$(head -n1 "${PW_MINORS_DIR}/${next}/release" 2>/dev/null)}
[[ -n ${release} ]] || pw::die "no series/minors/${next}/release: no next minor to rehearse"
pw::require_committed pkg series patches hack go.mod go.sum
commit=$(git -C "${PW_ROOT}" rev-parse --short HEAD)
scratch=$(mktemp -d)
trap 'rm -rf "${scratch}"' EXIT
git clone -q "${PW_ROOT}" "${scratch}/probewheel"
# The pristine imports are the same bytes wherever they live: share this checkout's.
export PW_PRISTINE_GIT
start=$(date +%s)
rc=0
(cd "${scratch}/probewheel" && hack/move-main-line.sh "${release}" --no-tidy) >"${scratch}/move.log" 2>&1 || rc=$?
secs=$(($(date +%s) - start))
# The series after the move, as the scratch clone's own scripts see them.
declare -A after=()
for d in "${PW_PATCHES_ROOT}"/v1.*; do
  after[${d##*/}]=$( (cd "${scratch}/probewheel" && env -u KUBE_VERSION bash -c 'source hack/lib.sh && pw::series_sum "$1"' _ "${d##*/}") 2>&1 | tail -n1)
done
fixups=$(git -C "${scratch}/probewheel" status --short -- series/minors)
# set-kube-version.sh on the tree as committed: the Go it names, and where tidy stops.
git -C "${scratch}/probewheel" stash -q -u
tidy_rc=0
(cd "${scratch}/probewheel" && env -u KUBE_VERSION hack/set-kube-version.sh "${release}") >"${scratch}/tidy.log" 2>&1 || tidy_rc=$?
toolchain=$(sed -n 's/^toolchain //p' "${scratch}/probewheel/go.mod")

out=${PW_ROOT}/e2e/results/move-main-line-$(date -u +%Y%m%d).md
{
  echo "# The main line's move to ${next}, rehearsed on ${release}, $(date -u +%Y-%m-%d)"
  echo
  echo "command: hack/rehearse-main-line.sh ${release}"
  echo "commit: ${commit}, patch set $(pw::series_sum "${main_minor}") (the main line's, on ${PW_MAIN_VERSION})"
  echo "machine: $(pw::machine), $(GOTOOLCHAIN=local go env GOVERSION)"
  echo
  echo "## hack/move-main-line.sh ${release} --no-tidy: exit ${rc}, ${secs} s"
  echo
  echo '```'
  grep -e '^+++ ' -e '^!!! ' -e '^The main line moved' -e '^version: ' "${scratch}/move.log" | sed "s#${scratch}/probewheel/##g; s#/tmp/tmp\.[A-Za-z0-9]*/#<saved>/#g"
  echo '```'
  echo
  echo "Series before and after (pw::series_sum; the move must keep every one):"
  echo
  echo "| series | before | after |"
  echo "|---|---|---|"
  for d in "${PW_PATCHES_ROOT}"/v1.*; do
    echo "| ${d##*/} | sum $(pw::dir_sum "${d}") | sum ${after[${d##*/}]} |"
  done
  echo
  echo "Fixups written or rewritten (series/minors/*/fixups):"
  echo
  sed 's/^/    /' <<<"${fixups}"
  echo
  echo "## hack/set-kube-version.sh ${release} on its own: exit ${tidy_rc}"
  echo
  echo "go.mod's toolchain line: ${toolchain:-none} (host $(GOTOOLCHAIN=local go env GOVERSION)); where go mod tidy stopped:"
  echo
  echo '```'
  grep -e 'downloading go1' -e '^!!!' -e '403' -e 'not at required version' -e '^go.mod moved' "${scratch}/tidy.log" | sed 's/^[[:space:]]*//' | sort -u | head -n 12
  echo '```'
} >"${out}"
echo "wrote ${out#"${PW_ROOT}/"}"
((rc == 0)) || pw::die "the move failed (exit ${rc}); its log: the record's first block"
