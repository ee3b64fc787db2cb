#!/usr/bin/env bash
# CI's time on a fresh machine, recorded and checked (the README states it):
#
#   hack/ci-record.sh --run <dir>
#       clones this checkout's HEAD into <dir>/probewheel, points GOCACHE and
#       GOMODCACHE at empty directories under <dir>, and runs .ci/run there with
#       each output line prefixed by the time (<dir>/ci.log); then writes the record.
#       Remove the probewheel/* Docker images first for a cold run: the record
#       lists the images present at the start.
#   hack/ci-record.sh --write <dir>
#       e2e/results/ci-<UTC date>.md from <dir>/ci.log, <dir>/start, <dir>/end and
#       <dir>/rc: commit, series, machine, exit status, total and each step's time
#   hack/ci-record.sh --check
#       fail unless README.md and docs/clusters.md cite the newest record and state
#       its total, docs/clusters.md its commit and, in the table after the citation,
#       each step's time in the record's order (make verify-docs, part of make test;
#       hack/ci-record_test.sh tests it)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# PW_CI_RESULTS and PW_CI_PAGES let hack/ci-record_test.sh check its own records and pages.
results=${PW_CI_RESULTS:-${PW_ROOT}/e2e/results}
pages=${PW_CI_PAGES:-${PW_ROOT}}
# mmss <seconds>: "N min N s".
mmss() { printf '%d min %d s' $(($1 / 60)) $(($1 % 60)); }
# total_line <record>: its "total: ..." value.
total_line() { sed -n '/^total: /{s///p;q}' "$1"; }
# step_times <file> [<after>]: the last column of the first Markdown table in <file>
# (the first after the first line containing <after>, if given), one row a line,
# without the header and its rule.
step_times() {
  awk -v after="${2:-}" '
    !go { if (after == "" || index($0, after)) go = 1; if (after != "") next }
    /^\|/ { n++; if (n > 2) { c = split($0, f, "|"); t = f[c - 1]; gsub(/^ +| +$/, "", t); print t }; next }
    n { exit }' "$1"
}

# Where each step of `make ci` starts, as printed by make (the recipe lines it
# echoes) in the order make ci runs them; a step that did not run is left out.
steps=(
  "make test|^go vet "
  "the patched kubelet (make kubelet)|^hack/build-kubelet.sh$"
  "make verify-series|^make verify-series$"
  "make upstream-test|^make upstream-test$"
  "make minors (older minors' prober tests)|^make minors"
  "kind node image (tools, control plane, Debian stages)|^hack/kind-build-tools.sh kind$"
  "make kind-e2e-suite (cluster, e2e suite, teardown)|^hack/kind-build-tools.sh kind$"
  "make e2e (local cluster, where kind cannot run)|^make e2e$"
)

write() {
  local dir=$1 start end rc log commit minor name secs
  minor=$(pw::minor_of "${KUBE_VERSION}")
  log=${dir}/ci.log
  for f in "${log}" "${dir}/start" "${dir}/end" "${dir}/rc"; do
    [[ -s ${f} ]] || pw::die "${f} is missing: run hack/ci-record.sh --run ${dir}"
  done
  start=$(<"${dir}/start") end=$(<"${dir}/end") rc=$(<"${dir}/rc")
  commit=$(git -C "${dir}/probewheel" rev-parse --short HEAD)
  local rows=()
  # One pass over the log: a line's clock is its HH:MM:SS prefix, as seconds
  # since start (a time before the start's is the next day's); the first line
  # matching a step still to come starts it, passing over the steps before it
  # that did not run. Prints each step's name and seconds, tab-separated.
  while IFS=$'\t' read -r name secs; do
    rows+=("| ${name} | $(mmss "${secs}") |")
  done < <(STEPS=$(printf '%s\n' "${steps[@]}") awk -v h="$(date -d "@${start}" +%H:%M:%S)" -v total=$((end - start)) '
    function sec(x, a) { split(x, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
    BEGIN { n = split(ENVIRON["STEPS"], step, "\n"); i = 1 }
    {
      line = $0; sub(/^[^ ]* /, "", line)
      for (j = i; j <= n; j++) { split(step[j], f, "|"); if (line ~ f[2]) break }
      if (j > n) next
      t = sec($1) - sec(h); if (t < 0) t += 86400
      if (name != "") printf "%s\t%d\n", name, t - at
      name = f[1]; at = t; i = j + 1
    }
    END { if (name != "") printf "%s\t%d\n", name, total - at }' "${log}")
  local out
  out=${results}/ci-$(date -u -d "@${start}" +%Y%m%d).md
  {
    echo "# .ci/run on a fresh clone, $(date -u -d "@${start}" +%Y-%m-%d)"
    echo
    echo "commit: ${commit}"
    echo "series: patches/${minor}, $(pw::patch_files "${dir}/probewheel/patches/${minor}" | wc -l) patches, sha256 $(pw::series_sum "${minor}" "${dir}/probewheel/patches")"
    echo "machine: $(pw::machine), $(awk '/MemTotal/ {printf "%d GiB", $2 / 1048576}' /proc/meminfo), $(go version | cut -d' ' -f3)"
    echo "caches: GOCACHE and GOMODCACHE empty directories; Docker images at the start: $(cat "${dir}/images" 2>/dev/null || echo unknown)"
    echo "started: $(date -u -d "@${start}" '+%Y-%m-%d %H:%M:%S') UTC"
    echo "exit: ${rc}"
    echo "total: $(mmss $((end - start))) ($((end - start)) s)"
    echo
    echo "Each step from the line make printed when it started to the next step's (hack/ci-record.sh):"
    echo
    echo "| step | time |"
    echo "|---|---|"
    printf '%s\n' "${rows[@]}"
  } >"${out}"
  cat "${out}"
  echo "wrote ${out#"${PW_ROOT}/"}"
  ((rc == 0)) || pw::die "CI exited ${rc}: see ${log}"
}

case ${1:-} in
  --run)
    dir=${2:?usage: hack/ci-record.sh --run <dir>}
    [[ ! -e ${dir}/probewheel ]] || pw::die "${dir}/probewheel exists: give an empty directory"
    mkdir -p "${dir}/gocache" "${dir}/gomodcache"
    git clone -q "${PW_ROOT}" "${dir}/probewheel"
    { docker images --format '{{.Repository}}' 2>/dev/null | grep -c '^probewheel/' || true; } | sed 's/$/ probewheel\/* image(s)/' >"${dir}/images"
    date +%s >"${dir}/start"
    rc=0
    (cd "${dir}/probewheel" && GOCACHE=${dir}/gocache GOMODCACHE=${dir}/gomodcache .ci/run) 2>&1 |
      while IFS= read -r line; do printf '%(%H:%M:%S)T %s\n' -1 "${line}"; done >"${dir}/ci.log" || rc=$?
    echo "${rc}" >"${dir}/rc"
    date +%s >"${dir}/end"
    write "${dir}"
    ;;
  --write) write "${2:?usage: hack/ci-record.sh --write <dir>}" ;;
  --check)
    rec=$(find "${results}" -maxdepth 1 -name 'ci-*.md' | LC_ALL=C sort | tail -n1)
    [[ -n ${rec} ]] || pw::die "no CI record in e2e/results (hack/ci-record.sh --run <dir>)"
    total=$(total_line "${rec}") commit=$(sed -n 's/^commit: //p' "${rec}")
    total=${total% (*}
    bad=0
    for page in README.md docs/clusters.md; do
      if [[ $(tr '\n' ' ' <"${pages}/${page}") != *"${total}"* ]]; then
        echo "${page}: does not state CI's time from ${rec##*/} (${total})" >&2
        bad=1
      fi
      if ! grep -qF "${rec##*/}" "${pages}/${page}"; then
        echo "${page}: does not cite ${rec##*/}" >&2
        bad=1
      fi
    done
    if [[ " $(tr '\n' ' ' <"${pages}/docs/clusters.md") " != *[^[:alnum:]]"commit ${commit}"[^[:alnum:]]* ]]; then
      echo "docs/clusters.md: does not name the record's commit (commit ${commit})" >&2
      bad=1
    fi
    # The page names the steps in its own words; their times, in order, are the record's.
    want=$(step_times "${rec}") got=$(step_times "${pages}/docs/clusters.md" "${rec##*/}")
    if [[ ${got} != "${want}" ]]; then
      echo "docs/clusters.md: the step table after the citation gives times" >&2
      sed 's/^/  /' <<<"${got:-(none)}" >&2
      echo "where ${rec##*/} gives" >&2
      sed 's/^/  /' <<<"${want}" >&2
      bad=1
    fi
    ((bad == 0)) || pw::die "state the newest CI record's figures (${total}, commit ${commit}, each step's time)"
    echo "ci-record: README.md and docs/clusters.md state ${rec##*/} (${total}, commit ${commit}, $(wc -l <<<"${want}") steps)"
    ;;
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" ;;
  *) pw::die "usage: hack/ci-record.sh --run <dir> | --write <dir> | --check (see --help)" ;;
esac
