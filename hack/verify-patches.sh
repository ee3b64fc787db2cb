#!/usr/bin/env bash
# Checks (`make verify-patches`, part of `make test`) that patches/ is exactly
# what hack/update-patches.sh generates from pkg/, and that the series applies
# cleanly with `git am` to pristine k8s.io/kubernetes $KUBE_VERSION and yields
# the same tree. Takes about a second once the pristine tree is imported (the
# first run imports it from the Go module cache, a few seconds more).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start=${SECONDS}
base=$(pw::ensure_pristine "${KUBE_VERSION}")
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT

fix="Fix: run hack/update-patches.sh (make patches) and commit patches/ together with your change to pkg/."

# 1. patches/ must be byte-identical to a fresh regeneration.
"${PW_ROOT}/hack/update-patches.sh" --output "${work}/patches" --tree-file "${work}/tree" 2>"${work}/update.log" || {
  cat "${work}/update.log" >&2
  pw::die "hack/update-patches.sh failed (output above)"
}
if ! diff -ruN "${PW_PATCHES_DIR}" "${work}/patches" >"${work}/diff" 2>&1; then
  echo "--- patches/ differs from what pkg/ generates (diff: committed -> regenerated, first 80 lines):" >&2
  sed -e "s#${work}/patches#<regenerated>#g" -e "s#${PW_ROOT}/##g" "${work}/diff" | head -n 80 >&2 || true # SIGPIPE
  echo >&2
  echo "!!! patches/ is out of date with pkg/ (or was edited by hand; it is generated)." >&2
  echo "!!! ${fix}" >&2
  exit 1
fi

# 1b. What the export leaves out as module-only is what `go list -tags
#     probewheel_export` leaves out: the Go files of each package under pkg/,
#     as go list sees them with the tag (overlays carry `ignore` either way).
pw::scan_pkg
mapfile -t listed < <(cd "${PW_ROOT}" && go list -e -tags "${PW_EXPORT_TAG}" \
  -f '{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .TestGoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .XTestGoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}' ./pkg/... |
  sed "s#^${PW_ROOT}/##" | grep . | LC_ALL=C sort)
mapfile -t exported < <(for f in "${PW_FILES[@]}"; do
  [[ ${f} == *.go && ${f} != */testdata/* && -z ${PW_OVERLAY[${f}]:-} ]] && echo "${f}"
done | LC_ALL=C sort)
if [[ ${listed[*]} != "${exported[*]}" ]]; then
  diff <(printf '%s\n' "${exported[@]}") <(printf '%s\n' "${listed[@]}") >&2 || true
  pw::die "the export and go list -tags ${PW_EXPORT_TAG} disagree on which Go files are module-only (< export, > go list): a module-only file needs exactly '${PW_MODULE_ONLY_LINE}' before package"
fi

# 2. The committed series applies with `git am` to pristine and reproduces pkg/.
mapfile -t patches < <(pw::patch_files "${PW_PATCHES_DIR}")
if ((${#patches[@]} == 0)); then
  applied_tree=$(pw::pgit rev-parse "${base}^{tree}")
else
  repo=${work}/am
  git init -q "${repo}"
  # Borrow the pristine objects and check out only the files the series
  # touches (sparse checkout): `git am` then runs in well under a second.
  echo "${PW_PRISTINE_GIT}/objects" >"${repo}/.git/objects/info/alternates"
  git -C "${repo}" config core.sparseCheckout true
  sed -n 's#^diff --git a/\(.*\) b/.*$#/\1#p' "${patches[@]}" | LC_ALL=C sort -u >"${repo}/.git/info/sparse-checkout"
  git -C "${repo}" checkout -q --detach "${base}"
  if ! git -C "${repo}" am -q --committer-date-is-author-date "${patches[@]}" >"${work}/am.log" 2>&1; then
    cat "${work}/am.log" >&2
    echo "!!! patches/ does not apply with git am to pristine k8s.io/kubernetes ${KUBE_VERSION}." >&2
    echo "!!! ${fix}" >&2
    exit 1
  fi
  applied_tree=$(git -C "${repo}" rev-parse 'HEAD^{tree}')
fi
if [[ ${applied_tree} != "$(cat "${work}/tree")" ]]; then
  pw::die "git am of patches/ does not reproduce pkg/ exported onto pristine ${KUBE_VERSION} (tree ${applied_tree} != $(cat "${work}/tree")); report this as a hack/update-patches.sh bug"
fi

echo "patches/ is up to date: ${#patches[@]} patch(es) apply cleanly to pristine k8s.io/kubernetes ${KUBE_VERSION} ($((SECONDS - start))s)"
