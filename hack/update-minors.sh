#!/usr/bin/env bash
# Generates the series of every older supported minor, patches/v1.<minor>/,
# from the main line's (patches/<main minor>/); `make patches` runs it after
# hack/update-patches.sh, `make verify-patches` runs it with --check.
#
#   hack/update-minors.sh [--check] [v1.Y ...]   default: every series/minors/v1.Y
#
# series/minors/v1.Y/ holds what that minor needs beyond the main line, and only
# that:
#   release               the patch release the series is for (v1.36.5)
#   picks/*.patch         upstream fixes that release lacks and the main line's
#                         release has (git format-patch files), applied first
#   fixups/<name>.patch   applied after the main line's commit
#                         patches/<main>/NNNN-<name>.patch, folded into it:
#                         upstream's drift between the two releases that this
#                         commit meets (an API signature, a test helper). Text
#                         before its first `diff --git` line says why.
# The main line's commits go onto pristine <release> with `git am -3`: the
# pristine repo holds both releases, so a commit whose context lines differ
# falls back to a three-way merge. Where that merge conflicts, each
# conflicting hunk takes the main line's side and the commit's fixup must turn
# it into what the older release needs: every difference is in a fixup, none
# in a hand-resolved merge. The same inputs give byte-identical patches/v1.Y/.
#
# The tree of the last run stays in _output/minors/v1.Y (tags pre/<name>: a
# commit before its fixup). To write or change a fixup:
#   cd _output/minors/v1.Y && git checkout -q --detach pre/<name>
#   git apply ../../../series/minors/v1.Y/fixups/<name>.patch  # if it has one
#   (edit) && git diff >../../../series/minors/v1.Y/fixups/<name>.patch  # then restore its header
#   hack/update-minors.sh v1.Y
# --check: regenerate into a temp dir; fail, naming what to run, when
# patches/v1.Y/ is not what that gives.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

check=
minors=()
for a in "$@"; do
  case ${a} in
    --check) check=1 ;;
    v1.*) minors+=("${a}") ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
    *) pw::die "unknown argument ${a} (see --help)" ;;
  esac
done
if ((${#minors[@]} == 0)); then
  mapfile -t minors < <(find "${PW_MINORS_DIR}" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | LC_ALL=C sort -rV)
fi
main_minor=$(pw::minor_of "${PW_MAIN_VERSION}")
main_dir=${PW_PATCHES_ROOT}/${main_minor}
mapfile -t main_patches < <(pw::patch_files "${main_dir}")
((${#main_patches[@]} > 0)) || pw::die "${main_dir#"${PW_ROOT}/"} has no patches: run hack/update-patches.sh first"
# The main line applied to its own release: the blobs that its patches' index
# lines name, which the three-way merges below need.
main_repo=${PW_OUTPUT}/minors/main-${PW_MAIN_VERSION}
pw::scratch_repo "${main_repo}" "$(pw::ensure_pristine "${PW_MAIN_VERSION}")"
git -C "${main_repo}" am -q --committer-date-is-author-date "${main_patches[@]}" >"${main_repo}.log" 2>&1 || {
  cat "${main_repo}.log" >&2
  pw::die "${main_dir#"${PW_ROOT}/"} does not apply to pristine ${PW_MAIN_VERSION}: run make verify-patches"
}

# The main line's commit names, which every fixup must be one of.
declare -A main_names=()
for p in "${main_patches[@]}"; do
  main_names[$(pw::patch_name "${p}")]=1
done

# about <fixup or pick>: its first paragraph (a fixup's header; a pick's subject).
about() {
  if [[ $1 == */picks/* ]]; then
    pw::patch_subject "$1"
  else
    awk '/^diff --git / || (/^$/ && n) {exit} NF {printf "%s%s", (n++ ? " " : ""), $0} END {print ""}' "$1"
  fi
}

# take_main_side <repo>: resolves every conflicted file of a stopped `git am -3`
# with the main line's side of each conflicting hunk (stage 3: the patch).
take_main_side() {
  local repo=$1 f tmp
  tmp=$(mktemp -d)
  while read -r f; do
    for s in 1 2 3; do
      git -C "${repo}" show ":${s}:${f}" >"${tmp}/${s}" 2>/dev/null ||
        pw::die "${f}: not a content conflict (a file added or deleted on one side only); the series cannot be carried to this release without a change to the main line"
    done
    git merge-file -q -p --theirs "${tmp}/2" "${tmp}/1" "${tmp}/3" >"${repo}/${f}" || true
    git -C "${repo}" add -- "${f}"
  done < <(git -C "${repo}" diff --name-only --diff-filter=U)
  rm -rf "${tmp}"
}

# generate <minor> <out dir>
generate() {
  local minor=$1 out=$2 mdir=${PW_MINORS_DIR}/$1 release base repo p name fixup n=0
  [[ -f ${mdir}/release ]] || pw::die "${mdir#"${PW_ROOT}/"}/release missing: it names the patch release of ${minor}"
  release=$(head -n1 "${mdir}/release")
  [[ $(pw::minor_of "${release}") == "${minor}" ]] || pw::die "${mdir#"${PW_ROOT}/"}/release says ${release}, not a ${minor} release"
  [[ ${minor} != "${main_minor}" ]] || pw::die "${minor} is the main line's minor (go.mod); remove ${mdir#"${PW_ROOT}/"}"
  base=$(pw::ensure_pristine "${release}")
  # Every fixup must belong to a commit of the main line.
  for fixup in "${mdir}"/fixups/*.patch; do
    [[ -e ${fixup} ]] || continue
    name=${fixup##*/}
    name=${name%.patch}
    [[ -n ${main_names[${name}]:-} ]] ||
      pw::die "${fixup#"${PW_ROOT}/"}: no commit of ${main_dir#"${PW_ROOT}/"} is named ${name} (the main line's commit was renamed or removed: rename or delete the fixup)"
  done

  repo=${PW_OUTPUT}/minors/${minor}
  pw::scratch_repo "${repo}" "${base}" "${main_repo}/.git/objects"

  local -a picks=()
  mapfile -t picks < <(pw::patch_files "${mdir}/picks")
  if ((${#picks[@]} > 0)); then
    git -C "${repo}" am -q --committer-date-is-author-date "${picks[@]}" >"${repo}.log" 2>&1 || {
      cat "${repo}.log" >&2
      pw::die "a pick of ${mdir#"${PW_ROOT}/"}/picks does not apply to pristine ${release}: ${release} may have it already (delete it) or it needs a new backport"
    }
  fi
  for p in "${main_patches[@]}"; do
    name=$(pw::patch_name "${p}")
    if ! git -C "${repo}" am -q -3 --committer-date-is-author-date "${p}" >"${repo}.log" 2>&1; then
      take_main_side "${repo}"
      git -C "${repo}" am -q --continue >>"${repo}.log" 2>&1 || {
        cat "${repo}.log" >&2
        pw::die "${minor}: ${p#"${PW_ROOT}/"} does not apply to ${release} even with a three-way merge; see ${repo}"
      }
    fi
    git -C "${repo}" tag "pre/${name}"
    fixup=${mdir}/fixups/${name}.patch
    if [[ -f ${fixup} ]]; then
      git -C "${repo}" apply --index "${fixup}" 2>"${repo}.log" || {
        cat "${repo}.log" >&2
        pw::die "${minor}: ${fixup#"${PW_ROOT}/"} no longer applies after ${p##*/}; update it (hack/update-minors.sh --help says how)"
      }
      git -C "${repo}" commit -q --amend --no-edit
      n=$((n + 1))
    fi
    if git -C "${repo}" grep -q -e '^<<<<<<< ' -e '^>>>>>>> ' HEAD -- . ':!*.md'; then
      pw::die "${minor}: conflict markers after ${p##*/}; see ${repo}"
    fi
  done

  mkdir -p "${out}"
  find "${out}" -maxdepth 1 -type f \( -name '*.patch' -o -name README.md \) -delete
  git -C "${repo}" format-patch "${PW_FORMAT_PATCH_ARGS[@]}" -o "${out}" "${base}..HEAD"
  local fork
  fork=$(pw::generated_version "${release}" "${out}")
  {
    echo "# patches/${minor}/ — generated by hack/update-minors.sh, do not edit"
    echo
    echo "The probewheel prober for Kubernetes ${minor#v}: the main line's series"
    echo "(../${main_minor}/, on ${PW_MAIN_VERSION}) carried to pristine k8s.io/kubernetes ${release}"
    echo "(Go module zip, $(pw::module_sum "${release}")); fork version"
    echo "${fork}. Apply in a kubernetes ${release} checkout:"
    echo
    echo "    git am -3 /path/to/probewheel/patches/${minor}/*.patch   # with a git identity (user.name, user.email)"
    echo "    git tag ${fork}    # make's version stamp (git describe) then names the fork"
    echo
    if [[ ${release} == *-* ]]; then # v1.Y.0-alpha.N, -beta.N, -rc.N
      local unserved
      unserved=$(awk '$1 !~ /^#/ && $2 == "none" {print $1}' "${mdir}/substitutes" 2>/dev/null | paste -sd ' ' -)
      echo "**${release} is a pre-release** of Kubernetes ${minor#v}, not for production nodes"
      echo "([../../docs/compatibility.md](../../docs/compatibility.md))."
      if [[ -n ${unserved} ]]; then
        echo "The Go module proxy serves no version of ${unserved} (series/minors/${minor}/substitutes),"
        echo "so its release record built no kubelet: build one in your own clone, whose vendor/ has it."
      fi
      echo
    fi
    echo "Read the main line's review guide ([../${main_minor}/README.md](../${main_minor}/README.md)): the commits are"
    echo "the same, in the same order, with these differences (series/minors/${minor}/):"
    echo
    if ((${#picks[@]} == 0)); then
      echo "- upstream picks: none"
    else
      for p in "${picks[@]}"; do
        echo "- upstream pick, applied first: $(about "${p}")"
      done
    fi
    local any= i=${#picks[@]}
    for p in "${main_patches[@]}"; do
      i=$((i + 1))
      name=$(pw::patch_name "${p}")
      fixup=${mdir}/fixups/${name}.patch
      if [[ -f ${fixup} ]]; then
        any=1
        echo "- commit ${i}, $(pw::patch_subject "${p}"), with \`fixups/${name}.patch\` (+$(grep -c '^+[^+]' "${fixup}") −$(grep -c '^-[^-]' "${fixup}") lines): $(about "${fixup}")"
      fi
    done
    [[ -n ${any} ]] || echo "- fixups: none; every commit applies as it is"
  } >"${out}/README.md"
  pw::log "${minor}: ${#picks[@]} pick(s) and ${#main_patches[@]} commit(s) (${n} with a fixup) on ${release} in ${out#"${PW_ROOT}/"}"
}

rc=0
for minor in "${minors[@]}"; do
  [[ ${minor} =~ ^v1\.[0-9]+$ ]] || pw::die "${minor}: not a minor (v1.Y)"
  if [[ -z ${check} ]]; then
    generate "${minor}" "${PW_PATCHES_ROOT}/${minor}"
    continue
  fi
  tmp=$(mktemp -d)
  (generate "${minor}" "${tmp}/${minor}") 2>"${tmp}/log" || {
    cat "${tmp}/log" >&2
    rm -rf "${tmp}"
    pw::die "patches/${minor} cannot be generated from the main line (above)"
  }
  if ! diff -ruN "${PW_PATCHES_ROOT}/${minor}" "${tmp}/${minor}" >"${tmp}/diff"; then
    sed "s#${tmp}/#<regenerated>/#g" "${tmp}/diff" | head -n 40 >&2 || true
    echo "!!! patches/${minor} is out of date with patches/${main_minor} or series/minors/${minor} (diff above: committed -> regenerated); run make patches and commit patches/" >&2
    rc=1
  else
    echo "patches/${minor} is up to date: $(pw::patch_files "${PW_PATCHES_ROOT}/${minor}" | wc -l) patch(es) from patches/${main_minor} on ${release:-$(head -n1 "${PW_MINORS_DIR}/${minor}/release")}"
  fi
  rm -rf "${tmp}"
done
# Series of minors no longer supported are not left behind.
for d in "${PW_PATCHES_ROOT}"/v1.*; do
  m=${d##*/}
  if [[ -d ${d} && ${m} != "${main_minor}" && ! -d ${PW_MINORS_DIR}/${m} ]]; then
    if [[ -n ${check} ]]; then
      echo "!!! patches/${m}: no series/minors/${m} says ${m} is supported; remove the directory (or add series/minors/${m}/release)" >&2
      rc=1
    else
      pw::log "removing patches/${m}: ${m} is not supported (no series/minors/${m})"
      rm -rf "${d}"
    fi
  fi
done
exit "${rc}"
