#!/usr/bin/env bash
# Regenerates patches/ (`make patches`): the contents of pkg/ expressed as a
# `git format-patch` series against pristine k8s.io/kubernetes $KUBE_VERSION.
#
# Every file under pkg/ mirrors the same path in k8s.io/kubernetes. Exported:
# *.go files and testdata/ trees (docs such as UPSTREAM_TESTS.md stay here).
#  - Import paths github.com/probewheel/probewheel/pkg/... become
#    k8s.io/kubernetes/pkg/... (and such files are re-gofmt'ed, which re-sorts
#    the imports).
#  - A .go file carrying the line `//go:build ignore && probewheel_overlay`
#    (or just `//go:build probewheel_overlay`) is an overlay: a modified copy
#    of an upstream file that only compiles in the kubernetes tree. The line
#    and the blank line after it are dropped on export.
#  - A .go file with the constraint `//go:build !probewheel_export` before its
#    package clause exists only in this module (a stand-in for what the
#    patched tree has, e.g. pkg/features/module_shim.go): it is not exported
#    and does not count below; `go list -tags probewheel_export` agrees.
#  - A directory holding at least one non-overlay .go file is mirrored fully:
#    upstream .go files directly in it that pkg/ does not have are deleted (and
#    its testdata/ is mirrored too if pkg/ has one). Subdirectories are never
#    touched unless pkg/ has files in them, so prober/results and
#    prober/testing stay upstream's.
#
# First, one commit per upstream pick (series/picks/*.patch, in name
# order), exactly as its file says: fixes merged upstream after this
# release, carried alone so that a fork can take them without probewheel.
# pkg/ already contains them; it is expressed on top. Then the series by
# concept, one commit per series/NN-slug/ directory in name order (see
# pw::series_dirs in hack/lib.sh): its changes.patch, then the pkg/ files it
# takes, with its message. A file a commit takes is final there: no later
# changes.patch may touch it. Whatever no series commit takes follows in one
# commit per group: everything under pkg/kubelet/prober, then one per other
# directory, with messages from hack/patch-messages/<dir with / replaced by
# ->.txt (a placeholder when missing). patches/README.md is the review guide:
# each commit with its line counts and its files in reading order.
# Identity and dates are fixed (hack/lib.sh), so the same pkg/ always yields
# byte-identical patches.
#
# Usage: hack/update-patches.sh [--output DIR] [--tree-file FILE]
#   --output DIR      write the series there instead of patches/ (verify uses it)
#   --tree-file FILE  also write the git tree id of pristine+series to FILE
set -euo pipefail
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out=${PW_PATCHES_DIR}
tree_file=
while (($# > 0)); do
  case $1 in
    --output) out=$2 && shift 2 ;;
    --tree-file) tree_file=$2 && shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
    *) pw::die "unknown argument $1 (see --help)" ;;
  esac
done

[[ -n ${PW_IS_MAIN} ]] || pw::die "KUBE_VERSION=${KUBE_VERSION}: pkg/ is the main line (${PW_MAIN_VERSION}); the series of ${PW_KUBE_MINOR} is generated from it by hack/update-minors.sh (make patches does both)"
base=$(pw::ensure_pristine "${KUBE_VERSION}")

work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
# A private index and a throw-away object store layered over the pristine
# one: regenerating never writes to the shared repo, so verify can run while
# a build uses it, and nothing accumulates there.
mkdir -p "${work}/objects"
export GIT_INDEX_FILE=${work}/index
export GIT_OBJECT_DIRECTORY=${work}/objects
export GIT_ALTERNATE_OBJECT_DIRECTORIES=${PW_PRISTINE_GIT}/objects
pw::pgit read-tree "${base}"

cd "${PW_ROOT}"

module_re=${PW_MODULE//./\\.}

# export_go <file>: prints the file as it must look in the kubernetes tree.
export_go() {
  local f=$1 text
  if [[ -n $2 ]] && grep -qx -e "${PW_OVERLAY_TAG_BARE}" "${f}"; then
    pw::log "warning: ${f}: write '${PW_OVERLAY_TAG}' so that go mod tidy ignores the file"
  fi
  text=$(awk -v tag="${PW_OVERLAY_TAG}" -v bare="${PW_OVERLAY_TAG_BARE}" -v overlay="$2" '
    overlay && !done && ($0 == tag || $0 == bare) { done = 1; skip = 1; next }
    skip { skip = 0; if ($0 ~ /^[[:space:]]*$/) next }
    { print }' "${f}"; echo x)
  text=${text%x} # keep trailing newlines exactly as they are
  if grep -q "${module_re}/pkg/" <<<"${text}"; then
    # Import order changes with the path, so let gofmt re-sort the imports.
    text=$(gofmt <<<"${text//"${PW_MODULE}"\/pkg\//${PW_UPSTREAM_MODULE}/pkg/}") ||
      pw::die "${f}: gofmt failed after rewriting import paths"
    text+=$'\n'
  fi
  if grep -q "${module_re}" <<<"${text}"; then
    pw::die "${f} refers to ${PW_MODULE} outside pkg/; only pkg/ exists upstream"
  fi
  printf '%s' "${text}"
}

head=${base}
while read -r pick; do
  [[ -n ${pick} ]] || continue
  pw::pgit apply --cached "${pick}" 2>"${work}/apply.log" || {
    cat "${work}/apply.log" >&2
    pw::die "${pick#"${PW_ROOT}/"} does not apply to pristine ${KUBE_VERSION}; if ${KUBE_VERSION} has the fix already, delete the file"
  }
  # The commit message as git am would take it: subject, blank line, body.
  subject=$(git mailinfo "${work}/pick-msg" /dev/null <"${pick}" | sed -n 's/^Subject: //p')
  [[ -n ${subject} ]] || pw::die "${pick#"${PW_ROOT}/"} has no Subject: header (make it with git format-patch)"
  message=$(printf '%s\n\n%s\n' "${subject}" "$(git stripspace <"${work}/pick-msg")")
  head=$(pw::pgit commit-tree "$(pw::pgit write-tree)" -p "${head}" <<<"${message}")
done < <(pw::pick_files)

# index_file <f>: the index line that sets pkg/ file f to its exported version.
index_file() {
  local f=$1 mode=100644 blob
  if [[ -x ${f} ]]; then
    mode=100755
  fi
  if [[ ${f} == *.go && ${f} != */testdata/* ]]; then
    blob=$(export_go "${f}" "${PW_OVERLAY[${f}]:-}" | pw::pgit hash-object -w --stdin)
  else
    blob=$(pw::pgit hash-object -w -- "${f}")
  fi
  printf '%s %s\t%s\n' "${mode}" "${blob}" "${f}"
}

# index_deletions <dir>: index lines deleting the upstream files a fully
# mirrored directory of pkg/ lacks.
zero=0000000000000000000000000000000000000000
index_deletions() {
  local d=$1 p
  [[ -n ${PW_FULL_DIRS[${d}]:-} ]] || return 0
  while read -r p; do
    if [[ ${p} == *.go && -z ${PW_OURS[${p}]:-} ]]; then
      printf '0 %s\t%s\n' "${zero}" "${p}"
    fi
  done < <(pw::pgit ls-tree --name-only "${base}" -- "${d}/")
  if [[ -d ${d}/testdata ]]; then
    while read -r p; do
      if [[ -z ${PW_OURS[${p}]:-} ]]; then
        printf '0 %s\t%s\n' "${zero}" "${p}"
      fi
    done < <(pw::pgit ls-tree -r --name-only "${base}" -- "${d}/testdata/")
  fi
}

# commit_index <what> <message>: commits the index on top of head, unless it
# changes nothing (then <what> is logged, or fatal for a series commit).
commit_index() {
  local what=$1 message=$2 tree subject
  tree=$(pw::pgit write-tree)
  if [[ ${tree} == "$(pw::pgit rev-parse "${head}^{tree}")" ]]; then
    return 1
  fi
  subject=${message%%$'\n'*}
  ((${#subject} <= 72)) || pw::log "warning: ${what}: subject longer than 72 characters"
  head=$(pw::pgit commit-tree "${tree}" -p "${head}" <<<"${message}")
}

# claimed_dir <dir>: the series commit that takes dir whole (an entry for it or
# a directory above it), if any.
claimed_dir() {
  local d=$1
  while [[ ${d} == */* ]]; do
    if [[ -n ${PW_CLAIM_DIR[${d}]:-} ]]; then
      echo "${PW_CLAIM_DIR[${d}]}"
      return
    fi
    d=${d%/*}
  done
}

pw::scan_pkg
pw::series_plan
declare -A EXPORTED=() # what each series commit set its files to

# The series by concept (series/), in order.
while read -r sdir; do
  rel=${sdir#"${PW_ROOT}/"}
  [[ -f ${sdir}/message ]] || pw::die "${rel}/message is missing"
  if [[ -f ${sdir}/changes.patch ]]; then
    pw::pgit apply --cached --whitespace=nowarn "${sdir}/changes.patch" 2>"${work}/apply.log" || {
      cat "${work}/apply.log" >&2
      pw::die "${rel}/changes.patch does not apply after the commits before it"
    }
  fi
  {
    for f in "${PW_FILES[@]}"; do
      if [[ ${PW_CLAIM[${f}]:-} == "${sdir}" ]]; then
        index_file "${f}"
      fi
    done
    for d in "${!PW_FULL_DIRS[@]}"; do
      if [[ $(claimed_dir "${d}") == "${sdir}" ]]; then
        index_deletions "${d}"
      fi
    done
  } >"${work}/index-info"
  pw::pgit update-index --index-info <"${work}/index-info"
  while read -r mode blob f; do
    if [[ ${mode} != 0 ]]; then
      EXPORTED[${f}]=${blob}
    fi
  done <"${work}/index-info"
  commit_index "${rel}" "$(git stripspace <"${sdir}/message")" ||
    pw::die "${rel} changes nothing: drop it or give it files"
done < <(pw::series_dirs)

# What no series commit took: one commit per directory group, the prober
# package first.
declare -A groups=()
for f in "${PW_FILES[@]}"; do
  [[ -z ${PW_CLAIM[${f}]:-} ]] || continue
  groups[$(pw::group_of "${f}")]=1
done

ordered_groups=()
if [[ -n ${groups[${PW_PRIMARY_DIR}]:-} ]]; then
  ordered_groups+=("${PW_PRIMARY_DIR}")
fi
while read -r g; do
  if [[ -n ${g} && ${g} != "${PW_PRIMARY_DIR}" ]]; then
    ordered_groups+=("${g}")
  fi
done < <(printf '%s\n' "${!groups[@]}" | LC_ALL=C sort)

for g in "${ordered_groups[@]}"; do
  {
    for f in "${PW_FILES[@]}"; do
      if [[ -z ${PW_CLAIM[${f}]:-} && $(pw::group_of "${f}") == "${g}" ]]; then
        index_file "${f}"
      fi
    done
    for d in "${!PW_FULL_DIRS[@]}"; do
      if [[ -z $(claimed_dir "${d}") && $(pw::group_of "${d}/x.go") == "${g}" ]]; then
        index_deletions "${d}"
      fi
    done
  } | pw::pgit update-index --index-info
  msg=hack/patch-messages/${g//\//-}.txt
  if [[ -f ${msg} ]]; then
    message=$(git stripspace <"${msg}")
  else
    pw::log "warning: ${msg} missing, using a placeholder commit message"
    message=$(printf '%s: carry probewheel changes\n\nPlaceholder: describe this change in %s.\n' "${g#pkg/}" "${msg}")
  fi
  commit_index "${msg}" "${message}" || pw::log "${g}: identical to upstream ${KUBE_VERSION}, no patch"
done

# A series commit finishes its files: nothing after it may change them.
for f in "${!EXPORTED[@]}"; do
  got=$(pw::pgit rev-parse "${head}:${f}")
  [[ ${got} == "${EXPORTED[${f}]}" ]] ||
    pw::die "${f} is changed again after ${PW_CLAIM[${f}]#"${PW_ROOT}/"} took it (a later changes.patch touches it)"
done

# review_guide prints the series as a reviewer reads it: each commit in
# order with its added and removed lines, non-test and test apart, and the
# files to read in the order its series/ directory lists them (the
# non-test files first), with that directory's `guide` text if it has one.
review_guide() {
  local -a commits sdirs subjects numstats
  local i npicks sdir
  mapfile -t commits < <(pw::pgit rev-list --reverse "${base}..${head}")
  mapfile -t sdirs < <(pw::series_dirs)
  npicks=$(pw::pick_files | grep -c . || true)
  for i in "${!commits[@]}"; do
    subjects[i]=$(pw::pgit log -1 --format=%s "${commits[i]}")
    numstats[i]=$(pw::pgit diff --numstat --no-renames "${commits[i]}~1" "${commits[i]}")
  done
  echo "## Review guide"
  echo
  echo "Read the commits in order: each builds and passes its package tests on its own"
  echo "(\`make verify-series\`). Lines are added/removed, \`*_test.go\` and testdata apart."
  echo
  echo "| # | commit | non-test | tests |"
  echo "| --- | --- | --- | --- |"
  for i in "${!commits[@]}"; do
    awk -F'\t' -v n="$((i + 1))" -v subject="${subjects[i]}" '
      $3 ~ /_test\.go$/ || $3 ~ /\/testdata\// { ta += $1; tr += $2; next }
      { na += $1; nr += $2 }
      END { printf "| %d | %s | +%d −%d | +%d −%d |\n", n, subject, na, nr, ta, tr }' <<<"${numstats[i]}"
  done
  for i in "${!commits[@]}"; do
    echo
    echo "### $((i + 1)). ${subjects[i]}"
    echo
    sdir=
    if ((i < npicks)); then
      echo "An upstream fix carried from series/picks/; it applies alone."
      echo
    elif ((i - npicks < ${#sdirs[@]})); then
      sdir=${sdirs[i - npicks]}
      if [[ -f ${sdir}/guide ]]; then
        git stripspace <"${sdir}/guide"
        echo
      fi
    fi
    # Files in the order the commit's files list names them, then the rest;
    # non-test files first.
    if [[ -n ${sdir} && -f ${sdir}/files ]]; then
      sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "${sdir}/files" | grep -v '/$' || true
    fi | awk -F'\t' -v stats="${numstats[i]}" '
      BEGIN {
        n = split(stats, lines, "\n")
        for (k = 1; k <= n; k++) { split(lines[k], f, "\t"); name[k] = f[3]; add[f[3]] = f[1]; del[f[3]] = f[2] }
      }
      function emit(p) {
        if (!(p in add) || seen[p]++) return
        printf "%d\t- `%s` (+%d −%d)\n", (p ~ /_test\.go$/ || p ~ /\/testdata\//), p, add[p], del[p]
      }
      { emit($0) }
      END { for (k = 1; k <= n; k++) emit(name[k]) }' | sort -s -t$'\t' -k1,1n | cut -f2-
  done
}

mkdir -p "${out}"
find "${out}" -maxdepth 1 -type f \( -name '*.patch' -o -name README.md \) -delete
if [[ ${head} != "${base}" ]]; then
  pw::pgit format-patch "${PW_FORMAT_PATCH_ARGS[@]}" -o "${out}" "${base}..${head}"
fi

mapfile -t series < <(pw::patch_files "${out}")
fork=
((${#series[@]} == 0)) || fork=$(pw::generated_version "${KUBE_VERSION}" "${out}")
{
  echo "# patches/${PW_KUBE_MINOR}/ — generated by hack/update-patches.sh, do not edit"
  echo
  echo "The main line: the probewheel prober as a patch series against pristine"
  echo "k8s.io/kubernetes ${KUBE_VERSION} (Go module zip, $(pw::module_sum "${KUBE_VERSION}"));"
  echo "fork version ${fork:-(none: the series is empty)}. Apply in a kubernetes ${KUBE_VERSION} checkout:"
  echo
  echo "    git am -3 /path/to/probewheel/patches/${PW_KUBE_MINOR}/*.patch   # with a git identity (user.name, user.email)"
  echo "    git tag ${fork}    # make's version stamp (git describe) then names the fork"
  echo
  echo "The series of the older supported minors are generated from this one ([docs/fork.md](../../docs/fork.md))."
  echo
  if ((${#series[@]} == 0)); then
    echo "The series is empty: pkg/ is identical to upstream."
  else
    review_guide
  fi
} >"${out}/README.md"

if [[ -n ${tree_file} ]]; then
  pw::pgit rev-parse "${head}^{tree}" >"${tree_file}"
fi
pw::log "wrote ${#series[@]} patch(es) against ${KUBE_VERSION} to ${out}"
