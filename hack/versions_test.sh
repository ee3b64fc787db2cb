#!/usr/bin/env bash
# Table test of hack/versions.sh --check (make verify-versions runs it): each case is a
# series/versions, a release record and a CHANGELOG heading, and whether the check must
# pass; a case the check judges wrongly fails the test. Then pw::assign_version, which
# make patches calls, in a scratch repository.
set -euo pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT

legacy='v1.37.2-probewheel.1 -'
good='v1.37.2-probewheel.2 9480d2da9731'
record=$'release: v1.37.2\nseries: patches/v1.37, 10 patches, sha256 9480d2da9731\nkubelet: Kubernetes v1.37.2-probewheel.2'
# shellcheck source=hack/table-test-lib.sh
source "${here}/table-test-lib.sh"
# case <name> <want: pass|fail> <series/versions> <record> <CHANGELOG heading>
case_() {
  local name=$1 want=$2 dir=${work}/$1 got=pass
  mkdir -p "${dir}/releases"
  printf '# a comment\n%s\n' "$3" >"${dir}/versions"
  [[ -z $4 ]] || printf '%s\n' "$4" >"${dir}/releases/v1.37.2.txt"
  printf '# Changelog\n\n%s\n\ntext naming v1.37.2-probewheel.9 outside a heading\n' "$5" >"${dir}/CHANGELOG.md"
  PW_VERSIONS=${dir}/versions PW_RECORDS=${dir}/releases PW_CHANGELOG=${dir}/CHANGELOG.md \
    "${here}/versions.sh" --check >"${dir}/out" 2>&1 || got=fail
  judge "${name}" "${want}" "${got}" "${dir}/out"
}
case_ agree pass "${legacy}"$'\n'"${good}" "${record}" "## v1.37.2-probewheel.2 (patch set 9480d2da9731), v1.37.2-probewheel.1 (before)"
case_ version-twice fail "${good}"$'\n''v1.37.2-probewheel.2 0123456789ab' "${record}" "## Unreleased"
case_ patch-set-twice fail "${good}"$'\n''v1.37.2-probewheel.3 9480d2da9731' "${record}" "## Unreleased"
case_ same-set-other-release pass "${good}"$'\n''v1.36.5-probewheel.1 9480d2da9731' "${record}" "## Unreleased"
case_ malformed fail "${good}"$'\n''v1.37.2-probewheel.x 9480d2da9731' "${record}" "## Unreleased"
case_ record-other-set fail "${good}" "${record/sha256 9480d2da9731/sha256 0123456789ab}" "## Unreleased"
case_ record-unknown fail "${good}" "${record/probewheel.2/probewheel.7}" "## Unreleased"
case_ record-several fail "${legacy}" "${record/probewheel.2/probewheel.1}" "## Unreleased"
case_ heading-no-set fail "${good}" "${record}" "## v1.37.2-probewheel.2"
case_ heading-other-set fail "${good}" "${record}" "## v1.37.2-probewheel.2 (patch set 0123456789ab)"
case_ heading-unknown fail "${good}" "${record}" "## v1.37.2-probewheel.3 (patch set 9480d2da9731)"

# pw::assign_version, as make patches calls it, in a scratch repository: a new patch set gets
# the next number after every one HEAD has used; a second make patches of an uncommitted
# change takes the same number again; a committed number is never reused.
repo=${work}/assign
git init -q "${repo}"
printf 'v1.37.2-probewheel.1 -\nv1.37.2-probewheel.2 aaaaaaaaaaaa\nv1.35.4-probewheel.1 -\n' >"${repo}/versions"
git -C "${repo}" add versions
git -C "${repo}" -c user.name=t -c user.email=t@t commit -qm base
assign() { PW_VERSIONS=${repo}/versions bash -c 'source "$1/lib.sh" && pw::assign_version "$2" "$3"' _ "${here}" "$1" "$2" 2>/dev/null; }
expect() { # expect <name> <want> <got>
  if [[ $3 == "$2" ]]; then echo "ok   assign: $1 ($3)"; else echo "FAIL assign: $1: got $3, want $2"; failed=1; fi
}
expect "a patch set with a version keeps it" v1.37.2-probewheel.2 "$(assign v1.37.2 aaaaaaaaaaaa)"
expect "a new patch set takes the next number" v1.37.2-probewheel.3 "$(assign v1.37.2 bbbbbbbbbbbb)"
expect "the same uncommitted patch set again" v1.37.2-probewheel.3 "$(assign v1.37.2 bbbbbbbbbbbb)"
expect "another uncommitted one replaces it" v1.37.2-probewheel.3 "$(assign v1.37.2 cccccccccccc)"
expect "the replaced one is gone" 0 "$(grep -c bbbbbbbbbbbb "${repo}/versions")"
expect "another release starts at 1" v1.36.5-probewheel.1 "$(assign v1.36.5 cccccccccccc)"
git -C "${repo}" -c user.name=t -c user.email=t@t commit -qam next
expect "a committed number is not reused" v1.37.2-probewheel.4 "$(assign v1.37.2 dddddddddddd)"
expect "nor is one of several builds" v1.35.4-probewheel.2 "$(assign v1.35.4 eeeeeeeeeeee)"
# hack/update-patches.sh exports a private index and object store (over the pristine tree's):
# HEAD's series/versions must still be read from this repository's own objects.
mkdir -p "${work}/objects"
expect "inside make patches' private object store" v1.37.2-probewheel.4 \
  "$(GIT_OBJECT_DIRECTORY=${work}/objects GIT_INDEX_FILE=${work}/index assign v1.37.2 ffffffffffff)"
exit "${failed}"
