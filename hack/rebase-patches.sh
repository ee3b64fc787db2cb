#!/usr/bin/env bash
# Carries the patch set over to a new Kubernetes release, after
# hack/set-kube-version.sh has moved go.mod:
#
#   hack/rebase-patches.sh [OLD]     OLD: the release patches/ was generated
#                                    against (default: read from patches/README.md)
#   hack/rebase-patches.sh --continue   after resolving conflicts
#
# It checks out pristine $KUBE_VERSION (the new release) in
# _output/rebase/kubernetes-$KUBE_VERSION and runs `git am -3 patches/*.patch`
# there. Old and new pristine trees live in one repo, so when upstream changed
# the same lines, git am falls back to a three-way merge and leaves ordinary
# conflict markers. Resolve them there (edit, `git add`, `git am --continue`,
# build and test with the tree's own go tooling if you like), then run this
# script with --continue. Once git am is done, the result is copied back
# into pkg/ (import paths rewritten back, overlay constraints re-added, files
# that upstream added to a fully mirrored directory picked up, with a warning)
# and patches/ is regenerated; the regenerated series is checked to reproduce
# the rebased tree exactly. Upstream picks (hack/upstream-picks/, the first
# patches of the series) are written back from their rebased commits; when
# the new release has a pick's fix already, git am stops at it ("No changes"
# or a conflict with identical lines): `git am --skip` it there, and the
# pick's file is deleted. The changes.patch files of hack/series/ are written
# back from their rebased commits the same way.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

new=${KUBE_VERSION}
dir=${PW_OUTPUT}/rebase/kubernetes-${new}
continue=
case ${1:-} in
  --continue) continue=1 ;;
  "") old=$(sed -n 's/^k8s\.io\/kubernetes \(v[^ ]*\) (Go module zip.*/\1/p' "${PW_PATCHES_DIR}/README.md" 2>/dev/null | head -n1) ;;
  v*) old=$1 ;;
  *) pw::die "usage: $0 [OLD-VERSION | --continue]" ;;
esac

if [[ -z ${continue} ]]; then
  [[ -n ${old:-} ]] || pw::die "cannot tell which release patches/ was made for; pass it: $0 v1.Y.Z"
  pw::ensure_pristine "${old}" >/dev/null # its blobs make the three-way merge possible
  base=$(pw::ensure_pristine "${new}")
  mapfile -t patches < <(pw::patch_files "${PW_PATCHES_DIR}")
  pw::log "applying ${#patches[@]} patch(es) made for ${old} to pristine ${new} in ${dir}"
  rm -rf "${dir}"
  mkdir -p "$(dirname "${dir}")"
  git clone -q --shared --no-checkout "${PW_PRISTINE_GIT}" "${dir}"
  git -C "${dir}" checkout -q --detach "${base}"
  # So that `git am --continue` works there without a global git identity.
  git -C "${dir}" config user.name "${PW_PATCH_AUTHOR_NAME}"
  git -C "${dir}" config user.email "${PW_PATCH_AUTHOR_EMAIL}"
  echo "${base}" >"${dir}/.git/probewheel-rebase-base"
  if ((${#patches[@]} > 0)) && ! git -C "${dir}" am -3 --committer-date-is-author-date "${patches[@]}"; then
    cat >&2 <<EOF

!!! The patch set does not apply cleanly to ${new}. Resolve it in
!!!   ${dir}
!!! (fix the conflicts, git add the files, git am --continue; repeat), then run
!!!   $0 --continue
EOF
    exit 1
  fi
fi

[[ -d ${dir}/.git ]] || pw::die "no rebase in progress (${dir} missing)"
if [[ -d ${dir}/.git/rebase-apply ]]; then
  pw::die "git am is still in progress in ${dir}: finish it (git am --continue) first"
fi
base=$(<"${dir}/.git/probewheel-rebase-base")

# import_go <rebased file> <our file> <overlay?>: inverse of update-patches' export_go.
import_go() {
  local src=$1 dst=$2 overlay=$3 text d
  text=$(
    cat "${src}"
    echo x
  )
  text=${text%x}
  if [[ -n ${overlay} ]]; then
    # Overlays only compile in the kubernetes tree: imports stay as they are.
    local tag
    tag=$(grep -m1 -x -e "${PW_OVERLAY_TAG}" -e "${PW_OVERLAY_TAG_BARE}" "${dst}" || echo "${PW_OVERLAY_TAG}")
    text="${tag}"$'\n\n'"${text}"
  else
    local changed=
    for d in "${!module_dirs[@]}"; do
      # Only where our file imported the module's package: upstream's own
      # files (worker_test.go) keep importing the upstream one.
      if [[ ${text} == *"\"${PW_UPSTREAM_MODULE}/${d}\""* && -f ${dst} ]] && grep -qF "\"${PW_MODULE}/${d}\"" "${dst}"; then
        text=${text//"\"${PW_UPSTREAM_MODULE}/${d}\""/"\"${PW_MODULE}/${d}\""}
        changed=1
      fi
    done
    if [[ -n ${changed} ]]; then
      text=$(gofmt <<<"${text}")$'\n'
    fi
  fi
  mkdir -p "$(dirname "${dst}")"
  printf '%s' "${text}" >"${dst}"
}

cd "${PW_ROOT}"
pw::scan_pkg
# Every package this module has under pkg/ (module-only stand-ins such as
# pkg/features included): imports of them go back to the module's path.
declare -A module_dirs=()
while read -r d; do
  module_dirs[${d}]=1
done < <(find pkg -name '*.go' -printf '%h\n' | LC_ALL=C sort -u)
for f in "${PW_FILES[@]}"; do
  if [[ ! -f ${dir}/${f} ]]; then
    pw::log "warning: ${f} is gone from the rebased tree; removing it from pkg/"
    rm -f "${f}"
  elif [[ ${f} == *.go && ${f} != */testdata/* ]]; then
    import_go "${dir}/${f}" "${f}" "${PW_OVERLAY[${f}]:-}"
  else
    cp "${dir}/${f}" "${f}"
  fi
done
# Files upstream added to a directory we mirror fully are ours now.
for d in "${!PW_FULL_DIRS[@]}"; do
  while read -r p; do
    if [[ ${p} == *.go && -z ${PW_OURS[${p}]:-} ]]; then
      pw::log "warning: upstream ${new} added ${p}; copied into pkg/, review it"
      import_go "${dir}/${p}" "${p}" ""
    fi
  done < <(git -C "${dir}" ls-tree --name-only HEAD -- "${d}/")
done

# rebased_commit <subject>: the rebased commit with that subject, if any.
rebased_commit() {
  git -C "${dir}" log --format='%H %s' "${base}..HEAD" | awk -v s="$1" 'substr($0, 42) == s { print $1; exit }'
}

# Picks: each is written back from the rebased commit with its subject, or
# deleted when that commit is gone (skipped: the new release has the fix).
while read -r pick; do
  [[ -n ${pick} ]] || continue
  subject=$(git mailinfo /dev/null /dev/null <"${pick}" | sed -n 's/^Subject: //p')
  commit=$(rebased_commit "${subject}")
  if [[ -z ${commit} ]]; then
    pw::log "${new} has '${subject}' already: dropping ${pick#"${PW_ROOT}/"}"
    rm -f "${pick}"
    continue
  fi
  git -C "${dir}" format-patch -q --zero-commit --no-signature --full-index --no-renames \
    --diff-algorithm=myers -1 --stdout "${commit}" >"${pick}"
done < <(pw::pick_files)

# Series commits: a changes.patch is written back from the rebased commit with
# the same subject, less the pkg/ files that commit takes (they come from pkg/).
pw::series_plan
while read -r sdir; do
  [[ -f ${sdir}/changes.patch ]] || continue
  subject=$(head -n1 "${sdir}/message")
  commit=$(rebased_commit "${subject}")
  [[ -n ${commit} ]] || pw::die "no rebased commit has the subject of ${sdir#"${PW_ROOT}/"} ('${subject}')"
  excludes=()
  for f in "${!PW_CLAIM[@]}"; do
    if [[ ${PW_CLAIM[${f}]} == "${sdir}" ]]; then
      excludes+=(":(exclude)${f}")
    fi
  done
  # A directory taken whole brings its deletions too; its other files may still
  # be stages of later commits, which stay in changes.patch.
  for d in "${!PW_CLAIM_DIR[@]}"; do
    if [[ ${PW_CLAIM_DIR[${d}]} == "${sdir}" ]]; then
      while read -r f; do
        excludes+=(":(exclude)${f}")
      done < <(git -C "${dir}" diff --name-only --diff-filter=D "${commit}~1" "${commit}" -- "${d}/")
    fi
  done
  git -C "${dir}" diff --full-index --no-renames --diff-algorithm=myers "${commit}~1" "${commit}" -- . "${excludes[@]}" >"${sdir}/changes.patch"
done < <(pw::series_dirs)

tree_file=$(mktemp)
trap 'rm -f "${tree_file}"' EXIT
"${PW_ROOT}/hack/update-patches.sh" --tree-file "${tree_file}"
want=$(git -C "${dir}" rev-parse 'HEAD^{tree}')
if [[ $(<"${tree_file}") != "${want}" ]]; then
  git -C "${dir}" diff --stat "$(<"${tree_file}")" "${want}" >&2 || true
  pw::die "the regenerated patches/ does not reproduce ${dir} (differences above); fix pkg/ by hand"
fi
echo "pkg/ and patches/ now carry the patch set on ${new} (base ${base:0:12}); review with git diff, then run make test"
