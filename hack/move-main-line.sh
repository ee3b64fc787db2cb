#!/usr/bin/env bash
# Moves the main line to the next minor, whose series (series/minors/v1.Y/) is already
# on the release given (hack/move-release.sh v1.38.0 puts it there):
#
#   hack/move-main-line.sh v1.38.0 [--no-tidy]
#
# 1. hack/set-kube-version.sh: go.mod requires the release, and names its Go when the
#    host's is older (1.38 needs Go 1.27).
# 2. The next minor's series, generated for that release, becomes the main line's as it
#    is (hack/rebase-patches.sh --from): no merge to resolve, since its fixups already
#    carry what the three-way merge could not.
# 3. The old main line becomes an older minor (series/minors/<old minor>/release), and
#    every older minor's series must come out as it was, byte for byte: the same patch
#    set, so the same fork version. Where the three-way merge of a commit back onto the old release gives
#    another tree than the old commit's (it does so without a conflict: 1.38's logger in
#    execInContainer, the gate 1.38 removed), a fixup is written that gives the old tree,
#    its header saying so; an older minor's fixups are rewritten the same way, their
#    headers kept. Review them: they are upstream's drift.
# 4. series/minors/<new minor>/ leaves, make patches, and the check that every series
#    kept its patch set but the main line's, which is the next minor's as it was.
#
# --no-tidy: a rehearsal on a pre-release whose go.mod requires modules the proxy does not
# all serve (1.38's beta): go.mod's requirement only, no go mod tidy, so nothing builds.
# Run it in a scratch clone; docs/fork.md says what the rehearsal on v1.38.0-beta.0 found.
set -euo pipefail
shopt -s inherit_errexit
new=
tidy=1
for a in "$@"; do
  case ${a} in
    --no-tidy) tidy= ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
    v1.*) new=${a} ;;
    *) echo "usage: $0 v1.Y.Z[-rc.N] [--no-tidy]" >&2 && exit 2 ;;
  esac
done
[[ -n ${new} ]] || { echo "usage: $0 v1.Y.Z[-rc.N] [--no-tidy]" >&2 && exit 2; }
unset KUBE_VERSION
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
old=${PW_MAIN_VERSION}
old_minor=$(pw::minor_of "${old}")
minor=$(pw::minor_of "${new}")
next=${old_minor%.*}.$((${old_minor##*.} + 1))
[[ ${minor} == "${next}" ]] || pw::die "${new} is not of the next minor (the main line is on ${old}; next: ${next})"
ndir=${PW_MINORS_DIR}/${minor}
[[ -f ${ndir}/release && $(head -n1 "${ndir}/release") == "${new}" ]] ||
  pw::die "series/minors/${minor}/release does not name ${new}: move that series first (hack/move-release.sh ${new}) and commit it"
[[ ! -d ${PW_MINORS_DIR}/${old_minor} ]] || pw::die "series/minors/${old_minor} exists already"
cd "${PW_ROOT}"
[[ -z $(git status --porcelain -- go.mod go.sum pkg series patches) ]] ||
  pw::die "go.mod, pkg/, series/ or patches/ has uncommitted changes: commit them first"
# What this script does not carry: upstream picks, of either line, and substitutes.
(($(pw::patch_files series/picks | wc -l) == 0)) || pw::die "series/picks/ has picks for ${old}: move or drop them by hand first"
(($(pw::patch_files "${ndir}/picks" | wc -l) == 0)) || pw::die "series/minors/${minor}/picks: ${new} lacks a fix; carry it by hand"
if [[ -f ${ndir}/substitutes ]] && grep -qv -e '^#' -e '^[[:space:]]*$' "${ndir}/substitutes"; then
  if [[ -n ${tidy} ]]; then
    pw::die "series/minors/${minor}/substitutes still names modules the proxy refused; go.mod cannot build around them (rehearse with --no-tidy)"
  fi
  pw::log "warning: series/minors/${minor}/substitutes names modules the proxy refused: the main line cannot build until it serves them"
fi

# The older minors after the move, newest first: the old main line's and today's.
older=("${old_minor}")
while read -r m; do
  [[ ${m} == "${minor}" ]] || older+=("${m}")
done < <(find "${PW_MINORS_DIR}" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | LC_ALL=C sort -rV)
saved=$(mktemp -d)
trap 'rm -rf "${saved}"' EXIT
declare -A sum_of=()
for m in "${minor}" "${older[@]}"; do
  sum_of[${m}]=$(pw::series_sum "${m}")
  cp -r "${PW_PATCHES_ROOT}/${m}" "${saved}/${m}"
done

# 1.
if [[ -n ${tidy} ]]; then
  "${PW_ROOT}/hack/set-kube-version.sh" "${new}"
else
  go mod edit "-require=${PW_UPSTREAM_MODULE}@${new}"
  pw::log "--no-tidy: go.mod requires ${new}, nothing else moved"
fi
# The scripts below read the main line's release from go.mod, as KUBE_VERSION says too now.
export KUBE_VERSION=${new}
# 2.
"${PW_ROOT}/hack/rebase-patches.sh" --from "${saved}/${minor}" "${old}"

# 3. Every older minor's series, and the old main line's as the newest of them, must
# come out as it was. solve <minor>: regenerates it round by round, each round writing
# the fixup of the first commit whose tree differs from the old series' (the old series
# applied to its release); its fixups from before the move are dropped first and their
# headers kept, since they were made against the old main line.
solve() {
  local m=$1 release base want_repo repo name fixup first round i np header
  local -a want got wpatches
  release=$(head -n1 "${PW_MINORS_DIR}/${m}/release")
  base=$(pw::ensure_pristine "${release}")
  want_repo=${PW_OUTPUT}/move-main-line/want-${release}
  mkdir -p "${saved}/headers/${m}"
  pw::scratch_repo "${want_repo}" "${base}"
  mapfile -t wpatches < <(pw::patch_files "${saved}/${m}")
  git -C "${want_repo}" -c user.name="${PW_PATCH_AUTHOR_NAME}" -c user.email="${PW_PATCH_AUTHOR_EMAIL}" \
    am -q --committer-date-is-author-date "${wpatches[@]}"
  mapfile -t want < <(git -C "${want_repo}" rev-list --reverse "${base}..HEAD")
  np=$((${#want[@]} - ${#main_patches[@]}))
  ((np == $(pw::patch_files "${PW_MINORS_DIR}/${m}/picks" | wc -l))) ||
    pw::die "patches/${m} has ${#want[@]} commits: not its picks and the main line's ${#main_patches[@]}"
  for fixup in "${PW_MINORS_DIR}/${m}"/fixups/*.patch; do
    [[ -e ${fixup} ]] || continue
    sed '/^diff --git /,$d' "${fixup}" >"${saved}/headers/${m}/${fixup##*/}"
    rm "${fixup}"
  done
  mkdir -p "${PW_MINORS_DIR}/${m}/fixups"
  repo=${PW_OUTPUT}/minors/${m}
  for ((round = 0; round <= ${#main_patches[@]}; round++)); do
    "${PW_ROOT}/hack/update-minors.sh" --check "${m}" >"${saved}/log" 2>&1 || true
    mapfile -t got < <(git -C "${repo}" rev-list --reverse "${base}..HEAD" 2>/dev/null)
    ((${#got[@]} == ${#want[@]})) || {
      cat "${saved}/log" >&2
      pw::die "${m}: the series did not generate (above)"
    }
    first=
    for i in "${!want[@]}"; do
      if [[ $(git -C "${repo}" rev-parse "${got[i]}^{tree}") != $(git -C "${want_repo}" rev-parse "${want[i]}^{tree}") ]]; then
        first=${i}
        break
      fi
    done
    [[ -n ${first} ]] || break
    ((first >= np)) || pw::die "${m}: pick $((first + 1)) gives another tree than before; see ${repo}"
    name=$(pw::patch_name "${main_patches[first - np]}")
    fixup=${PW_MINORS_DIR}/${m}/fixups/${name}.patch
    # Each round fixes the first differing commit, so one whose fixup still differs is a bug here.
    [[ ! -f ${fixup} ]] || pw::die "${m}: commit $((first + 1)) (${name}) differs from before even with its fixup; see ${repo}"
    git -C "${want_repo}" fetch -q "${repo}" "refs/tags/pre/${name}"
    header=${saved}/headers/${m}/${name}.patch
    {
      if [[ -f ${header} ]]; then
        cat "${header}"
        echo "Since the main line moved to ${minor} (hack/move-main-line.sh ${new}), this also takes"
        echo "${m}'s side where ${minor} changed these lines; review it."
      else
        echo "${m} lacks what ${minor} changed under this commit (upstream's drift): the three-way merge"
        echo "of the main line's commit keeps ${minor}'s side without a conflict, and this brings back"
        echo "${release}'s, as the series was before the main line moved (written by"
        echo "hack/move-main-line.sh ${new}; review it and say which upstream change it is)."
      fi
      echo
      git -C "${want_repo}" diff FETCH_HEAD "${want[first]}"
    } >"${fixup}"
    pw::log "${m}: commit $((first + 1)), ${name}: fixup written (${fixup#"${PW_ROOT}/"})"
  done
  rmdir "${PW_MINORS_DIR}/${m}/fixups" 2>/dev/null || true
}
mkdir -p "${PW_MINORS_DIR}/${old_minor}"
echo "${old}" >"${PW_MINORS_DIR}/${old_minor}/release"
rm -rf "${ndir}"
mapfile -t main_patches < <(pw::patch_files "${PW_PATCHES_ROOT}/${minor}")
for m in "${older[@]}"; do
  solve "${m}"
done

# 4.
"${PW_ROOT}/hack/update-patches.sh"
"${PW_ROOT}/hack/update-minors.sh"
for m in "${minor}" "${older[@]}"; do
  got=$(pw::series_sum "${m}")
  [[ ${got} == "${sum_of[${m}]}" ]] || pw::die "patches/${m} is patch set ${got}, was ${sum_of[${m}]}: see its fixups"
done
cat <<EOF
The main line moved from ${old} to ${new}. Every series kept its patch set, so its fork
version: $(for m in "${minor}" "${older[@]}"; do printf '%s %s\n' "${m}" "${sum_of[${m}]}"; done | paste -sd, | sed 's/,/, /g').
Next: review git diff (each fixup's header), then
  make test kubelet upstream-test minors   # and the release records, make bench, the kind image, the hollow run
and the README's table, fork.md's, the CHANGELOG.
EOF
