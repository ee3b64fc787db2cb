#!/usr/bin/env bash
# Tests hack/update-patches.sh and hack/verify-patches.sh in a scratch copy of
# the repository (the real working tree is never modified): verify passes on
# a regenerated series and fails, with the fix in its message, when pkg/
# changes without regeneration or patches/ is edited by hand; regeneration is
# byte-stable; upstream picks, the series by concept, overlays, deletions,
# import rewriting and the empty series behave as documented in
# hack/update-patches.sh and hack/lib.sh. About 30
# seconds.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Import pristine once into the real _output/ and share it with the copy.
base=$(pw::ensure_pristine "${KUBE_VERSION}")
export PW_PRISTINE_GIT

tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT
copy=${tmp}/repo
mkdir -p "${copy}"
tar -C "${PW_ROOT}" --exclude=./_output --exclude=./.git -cf - . | tar -C "${copy}" -xf -
export PW_OUTPUT=${tmp}/output
cd "${copy}"
# lib.sh was sourced from the real tree: look at the copy's picks.
PW_PICKS_DIR=${copy}/series/picks
PW_SERIES_DIR=${copy}/series
# The main line's series, relative to the copy.
pdir=patches/${PW_KUBE_MINOR}

failures=0
pass() { echo "ok   $*"; }
fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}
update() { hack/update-patches.sh >"${tmp}/update.log" 2>&1; }
verify() { hack/verify-patches.sh >"${tmp}/verify.log" 2>&1; }
expect_verify_ok() {
  if verify; then pass "$1"; else
    fail "$1"
    cat "${tmp}/verify.log"
  fi
}
expect_verify_fails_with_fix() {
  if verify; then
    fail "$1 (verify passed)"
  elif grep -q 'run hack/update-patches.sh (make patches) and commit patches/' "${tmp}/verify.log"; then
    pass "$1"
  else
    fail "$1 (no fix instructions in the message)"
    cat "${tmp}/verify.log"
  fi
}
patch_text() { cat "${pdir}"/*.patch 2>/dev/null || true; }
# The prober patch: the one whose series/ commit takes the package whole,
# or without a series the last one that changes the package.
prober_patch() {
  local whole
  whole=$(grep -lx 'pkg/kubelet/prober/' series/[0-9]*/files 2>/dev/null | head -n1)
  if [[ -z ${whole} ]]; then
    grep -l '^diff --git a/pkg/kubelet/prober/' "${pdir}"/*.patch | tail -n1
    return
  fi
  series_patch "${whole%/files}"
}
# series_patch <series/NN-slug>: the patch that series commit became.
series_patch() {
  local n
  n=$(pw::series_dirs | grep -nxF "$(pwd)/$1" | cut -d: -f1)
  pw::patch_files "$(pwd)/${pdir}" | sed -n "$(($(pw::pick_files | grep -c . || true) + n))p"
}

moddir=$(pw::module_dir "${KUBE_VERSION}")
prober=pkg/kubelet/prober

# 1. A regenerated series verifies; regenerating again changes nothing.
update
expect_verify_ok "verify passes right after update-patches"
cp -a patches "${tmp}/before"
sleep 1 && touch pkg/kubelet/prober/*.go && update
if diff -r "${tmp}/before" patches >/dev/null; then pass "regeneration is byte-stable"; else fail "regeneration is byte-stable"; fi

# 2. Changing a pkg/ file without regenerating fails verify, with the fix.
# (over 80 lines of diff, so verify also has to survive truncating its output)
echo "// verify-patches_test: an unregenerated change" >>"${prober}/prober_test.go"
for i in $(seq 100); do echo "// filler ${i}"; done >>"${prober}/prober_test.go"
expect_verify_fails_with_fix "verify fails when pkg/ changed without update-patches"
update
expect_verify_ok "verify passes again after update-patches"
if grep -q '^+// verify-patches_test: an unregenerated change$' "$(prober_patch)"; then
  pass "the change is in the prober patch"
else fail "the change is in the prober patch"; fi

# 2b. The older minors follow the main line: after a pkg/ change that only the
#     main line's series took, their check fails with what to run; regenerated,
#     it passes; a fixup that no longer applies stops the generator naming it.
#     One minor is enough: the generator does the same for each.
first_minor=$(find series/minors -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | LC_ALL=C sort -V | head -n1)
minors_check() { hack/update-minors.sh --check "${first_minor}" >"${tmp}/minors.log" 2>&1; }
if [[ -z ${first_minor} ]]; then
  pass "older minors: none supported, nothing to check"
else
  if minors_check; then fail "older minors: a stale series fails the check"
  elif grep -q "patches/v1\.[0-9]* is out of date with ${pdir}.*run make patches" "${tmp}/minors.log"; then
    pass "older minors: a stale series fails the check, with what to run"
  else
    fail "older minors: a stale series fails the check, with what to run"
    cat "${tmp}/minors.log"
  fi
  if hack/update-minors.sh "${first_minor}" >"${tmp}/minors.log" 2>&1 && minors_check; then
    pass "older minors: regenerated, the check passes"
  else
    fail "older minors: regenerated, the check passes"
    cat "${tmp}/minors.log"
  fi
  fixup=$(grep -l '^-[^-]' "series/minors/${first_minor}"/fixups/*.patch 2>/dev/null | LC_ALL=C sort | head -n1 || true)
  if [[ -n ${fixup} ]]; then
    cp "${fixup}" "${tmp}/fixup"
    sed -i '0,/^-[^-]/s/^-\([^-].*\)$/-\1 (not in the release)/' "${fixup}"
    if hack/update-minors.sh "${first_minor}" >"${tmp}/minors.log" 2>&1; then
      fail "older minors: a fixup that no longer applies is rejected"
    elif grep -q "${fixup##*/} no longer applies" "${tmp}/minors.log"; then
      pass "older minors: a fixup that no longer applies is rejected, by name"
    else
      fail "older minors: a fixup that no longer applies is rejected, by name"
      cat "${tmp}/minors.log"
    fi
    cp "${tmp}/fixup" "${fixup}"
    hack/update-minors.sh "${first_minor}" >"${tmp}/minors.log" 2>&1 || fail "older minors: the fixup restored, the series generates again"
  fi
fi

# The main line may carry no upstream pick: then the copy gets one (a comment
# reworded in pkg/probe/http, a directory pkg/ does not mirror) so that the
# pick checks below run.
if [[ -z $(pw::pick_files) ]]; then
  pickrepo=${tmp}/pickrepo
  git init -q "${pickrepo}"
  echo "${PW_PRISTINE_GIT}/objects" >"${pickrepo}/.git/objects/info/alternates"
  git -C "${pickrepo}" checkout -q --detach "${base}"
  f=pkg/probe/http/http.go
  awk '!done && /^\t\/\/ / { print $0 " (picked)"; done = 1; next } { print }' "${pickrepo}/${f}" >"${tmp}/picked.go"
  cp "${tmp}/picked.go" "${pickrepo}/${f}"
  git -C "${pickrepo}" commit -q -am "probe/http: a synthetic upstream pick (verify-patches_test)"
  mkdir -p series/picks
  git -C "${pickrepo}" format-patch "${PW_FORMAT_PATCH_ARGS[@]}" -1 --stdout HEAD >series/picks/0001-synthetic-pick.patch
  update
  expect_verify_ok "verify passes with an upstream pick"
fi

# 3. Hand edits to patches/ are caught too.
npicks=$(pw::pick_files | grep -c . || true)
first=$(pw::patch_files "${copy}/${pdir}" | sed -n "$((npicks + 1))p") # the first after the picks
sed -i '4s/$/ (edited)/' "${first}"
expect_verify_fails_with_fix "verify fails when a patch was edited by hand"
update

# 3b. Upstream picks come first, as their files say, and the prober patch
#     does not repeat them; a pick that does not apply stops update-patches
#     with what to do; a changed pick without regeneration fails verify.
ok=1
i=0
while read -r pick; do
  i=$((i + 1))
  generated=$(pw::patch_files "${copy}/${pdir}" | sed -n "${i}p")
  # Only the "[PATCH i/n]" numbering of the subject may differ.
  if ! diff <(sed -e '1,/^$/{/^Subject:/,/^[^ S]/d}' "${pick}") <(sed -e '1,/^$/{/^Subject:/,/^[^ S]/d}' "${generated}") >/dev/null; then
    ok=
  fi
  while read -r line; do
    if grep -qxF -- "${line}" "$(prober_patch)"; then ok=; fi
  done < <(grep '^[-+][^-+]' "${pick}" | grep -v '^[-+]\s*$' | grep -v '^[-+]\s*[})]*$' | head -n 5)
done < <(pw::pick_files)
if ((npicks > 0)) && [[ -n ${ok} ]]; then
  pass "picks first, byte for byte, not repeated by the prober patch"
else fail "picks first, byte for byte, not repeated by the prober patch (${npicks} picks)"; fi
if ((npicks > 0)); then
  pick=$(pw::pick_files | head -n1)
  cp "${pick}" "${tmp}/pick"
  awk '!done && /^-\t/ { print $0 " (not upstream)"; done = 1; next } { print }' "${tmp}/pick" >"${pick}"
  if update; then fail "a pick that does not apply is rejected"
  elif grep -q 'does not apply to pristine .*delete the file' "${tmp}/update.log"; then
    pass "a pick that does not apply is rejected, with what to do"
  else
    fail "a pick that does not apply is rejected, with what to do"
    cat "${tmp}/update.log"
  fi
  cp "${tmp}/pick" "${pick}"
  sed -i '0,/^$/s/^\(Subject: .*\)$/\1 (reworded)/' "${pick}"
  expect_verify_fails_with_fix "verify fails when a pick changed without update-patches"
  cp "${tmp}/pick" "${pick}"
  update
fi

# 3c. The series by concept (series/): a file a commit takes is in that
#     commit and changes in no later one; a file with an intermediate version
#     (worker.go) changes in the commit that takes it and in earlier ones
#     only; bad entries stop update-patches with what is wrong.
with() { grep -l "^diff --git a/$1 " "${pdir}"/*.patch | xargs -rn1 basename | tr '\n' ' '; }
# taker_of <file>: the series/<n>/files that takes the prober's <file>, by name or as the rest
# of the package (an entry naming the directory).
taker_of() { grep -lx "${prober}/$1" series/[0-9]*/files || grep -lx "${prober}/" series/[0-9]*/files; }
wheel_in=$(with "${prober}/wheel.go") worker_in=$(with "${prober}/worker.go")
read -ra worker_in_all <<<"${worker_in}"
if [[ ${wheel_in} == *timing-wheel* && $(wc -w <<<"${wheel_in}") == 1 && ${#worker_in_all[@]} -ge 2 &&
  ${worker_in_all[0]} == *per-run* &&
  ${worker_in_all[-1]} == "$(basename "$(series_patch "$(dirname "$(taker_of worker.go)")")")" ]]; then
  pass "series: files in the commits that take them, intermediate versions before"
else fail "series: files in the commits that take them (wheel.go in: ${wheel_in}; worker.go in: ${worker_in})"; fi
mkdir -p series/99-late "${tmp}/late/a/${prober}" "${tmp}/late/b/${prober}"
echo "kubelet/prober: a late change" >series/99-late/message
cp "${prober}/wheel.go" "${tmp}/late/a/${prober}/" && cp "${prober}/wheel.go" "${tmp}/late/b/${prober}/"
echo "// a late change" >>"${tmp}/late/b/${prober}/wheel.go"
(cd "${tmp}/late" && git diff --no-index --no-prefix "a/${prober}/wheel.go" "b/${prober}/wheel.go" >"${copy}/series/99-late/changes.patch" || true)
series_rejects() { # <what> <log pattern>
  if update; then fail "$1 (update-patches passed)"
  elif grep -q "$2" "${tmp}/update.log"; then pass "$1"
  else
    fail "$1 (message)"
    cat "${tmp}/update.log"
  fi
}
# The commit that takes wheel.go, by its files rather than its number, which a reordered series changes.
wheel_taker=$(dirname "$(taker_of wheel.go)")
series_rejects "series: a later change to a file an earlier commit took is rejected" "wheel.go is changed again after ${wheel_taker}"
echo "garbage" >series/99-late/changes.patch
series_rejects "series: a changes.patch that does not apply is rejected" "99-late/changes.patch does not apply"
rm series/99-late/changes.patch
series_rejects "series: a commit that changes nothing is rejected" "99-late changes nothing"
echo "${prober}/no_such_file.go" >series/99-late/files
series_rejects "series: an entry naming no pkg/ file is rejected" "no_such_file.go is not an exported pkg/ file"
echo "${prober}/wheel.go" >series/99-late/files
series_rejects "series: a file taken twice is rejected" "wheel.go is taken by ${wheel_taker}"
rm -rf series/99-late
update

# 3d. Rebasing onto the same release is a no-op: pkg/, the picks, the series'
#     changes.patch files (stages of files later commits finish included) and
#     patches/ come back byte for byte.
rm -rf "${tmp}/before-rebase" && mkdir -p "${tmp}/before-rebase"
cp -a pkg series patches "${tmp}/before-rebase/"
if ! hack/rebase-patches.sh "${KUBE_VERSION}" >"${tmp}/rebase.log" 2>&1; then
  fail "rebase onto the same release"
  cat "${tmp}/rebase.log"
elif diff -r "${tmp}/before-rebase/pkg" pkg >/dev/null && diff -r "${tmp}/before-rebase/series" series >/dev/null &&
  diff -r "${tmp}/before-rebase/patches" patches >/dev/null; then
  pass "rebase onto the same release changes nothing"
else
  fail "rebase onto the same release changes nothing"
  diff -r "${tmp}/before-rebase/series" series | head -n 20
fi

# 4. An overlay file goes into its own patch, without the build constraint,
#    and deletes nothing else in its (partially mirrored) directory.
mkdir -p pkg/kubelet/server
{ printf '%s\n\n' "${PW_OVERLAY_TAG}" && cat "${moddir}/pkg/kubelet/server/auth.go"; } >pkg/kubelet/server/auth.go
echo "// overlay change" >>pkg/kubelet/server/auth.go
update
expect_verify_ok "verify passes with an overlay"
server_patch=$(grep -l '^diff --git a/pkg/kubelet/server/auth.go' "${pdir}"/*.patch || true)
if [[ -n ${server_patch} && ${server_patch} != "$(prober_patch)" ]] &&
  ! grep -q probewheel_overlay "${server_patch}" &&
  ! grep -q '^deleted file mode' "${server_patch}" &&
  [[ $(grep -c '^diff --git' "${server_patch}") == 1 ]]; then
  pass "overlay: own patch, constraint stripped, nothing deleted"
else fail "overlay: own patch, constraint stripped, nothing deleted"; fi
cp -a patches "${tmp}/overlay"
sed -i "1s#.*#${PW_OVERLAY_TAG_BARE}#" pkg/kubelet/server/auth.go
update
if diff -r "${tmp}/overlay" patches >/dev/null && grep -q 'warning: .*go mod tidy' "${tmp}/update.log"; then
  pass "bare overlay constraint: same patches, with a warning"
else fail "bare overlay constraint: same patches, with a warning"; fi

# 4b. A module-only file is not exported and does not make its directory
#     fully mirrored (pkg/features has one).
printf '%s\n\npackage features\n\n// X is a stand-in.\nconst X = 1\n' "${PW_MODULE_ONLY_LINE}" >pkg/features/zz_module_only.go
update
if ! grep -q 'zz_module_only' "${pdir}"/*.patch && ! grep -q '^deleted file mode' "${pdir}"/*.patch; then
  pass "module-only file: not exported, nothing deleted next to it"
else fail "module-only file: not exported, nothing deleted next to it"; fi
rm pkg/features/zz_module_only.go
update

# 5. A file dropped from the fully mirrored prober package is deleted upstream;
#    prober/results and prober/testing are never touched.
rm "${prober}/scale_test.go"
update
expect_verify_ok "verify passes after deleting a file"
if grep -A1 '^diff --git a/pkg/kubelet/prober/scale_test.go' "$(prober_patch)" | grep '^deleted file mode' >/dev/null; then
  pass "dropped file is deleted in the prober patch"
else fail "dropped file is deleted in the prober patch"; fi
if grep -q '^diff --git a/pkg/kubelet/prober/\(results\|testing\)/' "${pdir}"/*.patch; then
  fail "results/ and testing/ untouched"
else pass "results/ and testing/ untouched"; fi

# 6. Imports of our own pkg/ are rewritten to k8s.io/kubernetes/pkg/ (and the
#    new subpackage rides along in the prober patch).
mkdir -p "${prober}/pwtest"
printf 'package pwtest\n\n// N is used by a test of the rewriting.\nconst N = 1\n' >"${prober}/pwtest/pwtest.go"
cat >"${prober}/zz_rewrite_test.go" <<EOF
package prober

import (
	"testing"

	"${PW_MODULE}/pkg/kubelet/prober/pwtest"
	"k8s.io/api/core/v1"
)

func TestRewrite(t *testing.T) { _ = pwtest.N; _ = v1.Pod{} }
EOF
update
expect_verify_ok "verify passes with a module-internal import"
if grep -q "^+	\"k8s.io/kubernetes/pkg/kubelet/prober/pwtest\"" "$(prober_patch)" &&
  ! grep -q "${PW_MODULE}" "${pdir}"/*.patch &&
  grep -q '^diff --git a/pkg/kubelet/prober/pwtest/pwtest.go' "$(prober_patch)"; then
  pass "import paths rewritten, new subpackage in the prober patch"
else fail "import paths rewritten, new subpackage in the prober patch"; fi

# 7. A pkg/ file importing something outside pkg/ cannot be exported.
sed -i "s#${PW_MODULE}/pkg/kubelet/prober/pwtest#${PW_MODULE}/bench#" "${prober}/zz_rewrite_test.go"
if update; then fail "import from outside pkg/ is rejected"; else pass "import from outside pkg/ is rejected"; fi
rm -rf "${prober}/zz_rewrite_test.go" "${prober}/pwtest"

# 8. pkg/ identical to upstream, no picks and no series: an empty series,
#    and verify still passes.
rm -rf pkg series/picks series/[0-9]*
mkdir -p "${prober}"
find "${moddir}/${prober}" -maxdepth 1 -name '*.go' -exec cp {} "${prober}/" \;
chmod -R u+w pkg
update
if [[ -z $(pw::patch_files "${copy}/${pdir}") ]] && grep -q 'series is empty' "${pdir}"/README.md; then
  pass "pkg/ identical to upstream gives an empty series"
else fail "pkg/ identical to upstream gives an empty series"; fi
expect_verify_ok "verify passes on the empty series"

echo "base ${base:0:12} (pristine ${KUBE_VERSION})"
if ((failures > 0)); then
  echo "${failures} check(s) failed"
  exit 1
fi
echo "all checks passed"
