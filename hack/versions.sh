#!/usr/bin/env bash
# One fork version, one build: checks series/versions (`make verify-versions`, part of
# make test) against what names a fork version.
#
#   hack/versions.sh           print each supported release's fork version and patch set
#   hack/versions.sh --check   fail when
#     - a version is on two lines of series/versions, or a release's patch set on two;
#     - a supported release's series (patches/v1.<minor>) has no version there
#       (make patches gives it one);
#     - a release record (e2e/results/releases/*.txt) names a kubelet version that
#       series/versions does not give to the patch set the record checked;
#     - a heading of CHANGELOG.md names a version without its patch set, "<version>
#       (patch set <sum>)", or with another than series/versions gives it. A version
#       series/versions marks "-" (several builds, before 2026-11-28) needs none;
#     - README.md, docs/ or a series' README names a fork version that is not its release's
#       current one.
#
# PW_VERSIONS, PW_RECORDS and PW_CHANGELOG point the check elsewhere (its test,
# hack/versions_test.sh).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

records=${PW_RECORDS:-${PW_ROOT}/e2e/results/releases}
changelog=${PW_CHANGELOG:-${PW_ROOT}/CHANGELOG.md}
case ${1:-} in
  "")
    while read -r r; do
      echo "${r} $(pw::version_of "${r}" || echo '(none: run make patches)') patch set $(pw::series_sum "$(pw::minor_of "${r}")")"
    done < <(pw::supported_versions)
    exit 0
    ;;
  --check) ;;
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
  *) pw::die "unknown argument $1 (see --help)" ;;
esac

problems=()
# sum_of <version>: its patch set in series/versions ("-" for several), nothing if absent.
sum_of() { awk -v v="$1" '$1 == v {print $2; exit}' "${PW_VERSIONS}"; }

while IFS= read -r p; do problems+=("series/versions: ${p}"); done < <(awk '
  /^#/ || NF == 0 { next }
  NF != 2 || $1 !~ /^v1\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?-probewheel\.[1-9][0-9]*$/ || !($2 == "-" || ($2 ~ /^[0-9a-f]+$/ && length($2) == 12)) {
    print "line " NR " is not \"<release>-probewheel.<N> <patch set>\": " $0; next }
  ($1 in sum) { print $1 " names two patch sets: " sum[$1] " and " $2 }
  { sum[$1] = $2; r = $1; sub(/-probewheel\.[0-9]+$/, "", r) }
  $2 != "-" && ((r, $2) in ver) { print r "'"'"'s patch set " $2 " has two versions: " ver[r, $2] " and " $1 }
  $2 != "-" { ver[r, $2] = $1 }' "${PW_VERSIONS}")

if [[ -z ${PW_RECORDS:-} ]]; then
  while read -r r; do
    pw::version_of "${r}" >/dev/null ||
      problems+=("${r}: patches/$(pw::minor_of "${r}") (patch set $(pw::series_sum "$(pw::minor_of "${r}")")) has no fork version in series/versions: run make patches")
  done < <(pw::supported_versions)
fi

for f in "${records}"/v*.txt; do
  [[ -f ${f} ]] || continue
  v=$(sed -n 's/^kubelet: Kubernetes //p' "${f}")
  s=$(sed -n 's/^series: .*sha256 \([0-9a-f]*\).*/\1/p' "${f}")
  [[ -n ${v} ]] || continue # a record without a kubelet (--no-kubelet) names no version
  want=$(sum_of "${v}")
  if [[ -z ${want} ]]; then
    problems+=("${f#"${PW_ROOT}/"}: ${v} is not in series/versions")
  elif [[ ${want} == - ]]; then
    problems+=("${f#"${PW_ROOT}/"}: ${v} names several builds (series/versions); record the release again")
  elif [[ ${want} != "${s}" ]]; then
    problems+=("${f#"${PW_ROOT}/"}: ${v} is patch set ${want}, the record checked ${s}")
  fi
done

while IFS=$'\t' read -r line v s; do
  want=$(sum_of "${v}")
  if [[ -z ${want} ]]; then
    problems+=("CHANGELOG.md:${line}: ${v} is not in series/versions")
  elif [[ ${want} != - && ${s} != "${want}" ]]; then
    problems+=("CHANGELOG.md:${line}: ${v} must be named with its patch set, \"${v} (patch set ${want})\"${s:+, not ${s}}")
  fi
done < <(awk '/^## / {
    h = $0
    while (match(h, /v1\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?-probewheel\.[0-9]+( \(patch set [0-9a-f]+\))?/)) {
      m = substr(h, RSTART, RLENGTH); h = substr(h, RSTART + RLENGTH)
      v = m; sub(/ .*/, "", v); s = ""
      if (m ~ /patch set/) { s = m; sub(/.*patch set /, "", s); sub(/\)$/, "", s) }
      printf "%d\t%s\t%s\n", NR, v, s
    }
  }' "${changelog}")

# The pages name the current builds only (CHANGELOG.md keeps the history).
if [[ -z ${PW_RECORDS:-} ]]; then
  while IFS=: read -r file line v; do
    r=${v%-probewheel.*}
    cur=$(pw::version_of "${r}" 2>/dev/null || true)
    [[ ${v} == "${cur}" ]] ||
      problems+=("${file}:${line}: names ${v}; ${r}'s series is ${cur:-not supported}")
  done < <(cd "${PW_ROOT}" && grep -noE 'v1\.[0-9]+\.[0-9]+(-(alpha|beta|rc)\.[0-9]+)?-probewheel\.[0-9]+' README.md docs/*.md patches/*/README.md || true)
fi

if ((${#problems[@]} > 0)); then
  printf '!!! %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "fork versions: each names one patch set; the series, release records and CHANGELOG agree with series/versions"
