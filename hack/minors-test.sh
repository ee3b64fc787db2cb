#!/usr/bin/env bash
# Checks supported releases' series (`make minors`, part of `make ci`: every
# older minor): pristine + patches/v1.<minor>/ builds a kubelet that prints its
# fork version, and the prober package's tests pass in that tree with -race,
# the ProbeTimerWheel gate on and off.
#
#   hack/minors-test.sh [--no-race] [--no-kubelet] [--upstream] [--series] [--kind] [--record] [vX.Y.Z ...]
#       default releases: every older supported one; the main line's may be named too
#   --no-race   the prober package's tests without -race (make ci): with the release build's
#               tags, as every suite here builds (hack/upstream-test.sh), they then reuse what
#               the kubelet's build compiled, where -race compiles every dependency again at
#               each release's versions (minutes on two cores); the wheel, scheduler and
#               executors are the main line's files, raced in make test
#   --no-kubelet  the prober package's tests only (make ci): a release record builds each
#               release's kubelet, and make test refuses records of another series, so CI
#               building them again on every run (6 min a minor on two cores) checked nothing
#               new; the prober's tests compile the package and what it imports in each tree
#   --upstream  also upstream's whole suites in the tree, gate on and off
#               (hack/upstream-test.sh's packages; ~5 min a release more)
#   --series    also each commit of the release's series on its own (hack/verify-series.sh:
#               it builds and passes the tests of the packages it touches, gate on and off);
#               make ci leaves this to the main line's record (~10 min warm)
#   --kind      also a kind cluster of the release: the e2e suite on a patched
#               cluster (make kind-e2e-suite), then a mixed stock/patched
#               cluster brought up and down (kind-up checks every node's kubelet
#               version and prober_scheduler_* on the patched ones only)
#   --record    write what was checked, with the series' sha256, to
#               e2e/results/releases/<release>.txt (ending with the seconds it
#               took), which the README's table of supported releases is
#               generated from (hack/releases-table.sh);
#               refused on a tree with uncommitted changes to what it checks
#               (pw::require_committed). A record builds and tests each release
#               with the Go upstream builds it with (its .go-version, through
#               GOTOOLCHAIN from the module proxy: a cold build cache for each
#               Go), and says which; without --record the host's Go is used
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

upstream= series= kind= record= kubelet=1 test_flags=-race
releases=()
for a in "$@"; do
  case ${a} in
    --no-race) test_flags= ;; # the release build's tags come from hack/upstream-test.sh
    --no-kubelet) kubelet= ;;
    --upstream) upstream=1 ;;
    --series) series=1 ;;
    --kind) kind=1 ;;
    --record) record=1 ;;
    v*) releases+=("${a}") ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
    *) pw::die "unknown argument ${a} (see --help)" ;;
  esac
done
[[ -n ${kubelet} || -z ${record}${kind} ]] || pw::die "--no-kubelet: a record and a kind cluster need the kubelet"
if [[ -n ${record} ]]; then
  # Results folders (PW_RESULTS_EXCLUDE), these records among them, are not code.
  pw::require_committed pkg series patches hack e2e bench
fi
if ((${#releases[@]} == 0)); then
  mapfile -t releases < <(pw::supported_versions | tail -n +2)
fi
((${#releases[@]} > 0)) || pw::die "no older minor is supported (series/minors/ is empty)"

log_dir=${PW_OUTPUT}/minors-test
mkdir -p "${log_dir}"
# total_of <upstream-test output>: "N tests, F failed" from its total line.
total_of() { awk '$1 == "total" {print $2 " tests, " $4 " failed"}' "$1"; }

# suites <name> <label> <list packages: 0|1> [VAR=value...]: hack/upstream-test.sh in the
# tree of release ${r}, gate on then off, with the variables given; each output kept in
# ${log_dir}, a line each in ${lines}.
suites() {
  local name=$1 label=$2 list=$3 gate out pkgs= args
  shift 3
  for gate in on off; do
    args=()
    [[ ${gate} == on ]] || args=(--gate-off)
    out=${log_dir}/${r}-${name}-${gate}.txt
    pw::log "${r}: ${label} (ProbeTimerWheel ${gate})"
    env KUBE_VERSION="${r}" "$@" "${PW_ROOT}/hack/upstream-test.sh" "${args[@]}" | tee "${out}"
    if [[ ${list} == 1 ]]; then
      pkgs=" ($(awk '$1 ~ /^k8s\.io\/kubernetes\/pkg\// {sub("k8s.io/kubernetes/", "", $1); printf "%s%s", (n++ ? " " : ""), $1}' "${out}"))"
    fi
    lines+=("${label}${pkgs}, gate ${gate}: $(total_of "${out}")$(sed -n 's/^not built: \([^ ]*\) .*/; not built: \1/p' "${out}" | paste -sd ' ')")
  done
}
# nodes_of <kind-up output>: its node summary lines ("<node>: kubelet v..., <label>"),
# joined; a test's log line that mentions the kubelet does not match.
nodes_of() { sed -n 's/^  \([a-z0-9.-]*: kubelet v[^ ]*, .*\)$/\1/p' "$1" | paste -sd ';' | sed 's/;/; /g'; }

summary=()
for r in "${releases[@]}"; do
  start=${SECONDS}
  minor=$(pw::minor_of "${r}")
  lines=()
  if [[ -n ${record} ]]; then
    # Upstream's Go for the release (pw::tree_go), for the kubelet and the suites; the
    # kind step builds its images with the host's.
    export PW_RELEASE_GO=1
    # pw::module_dir downloads the release first on a machine that has not seen it.
    gov=$(<"$(pw::module_dir "${r}")/.go-version")
    lines+=("go: go${gov} (${r}'s .go-version) for the kubelet and the suites${kind:+; $(go version | cut -d' ' -f3) (the host's) for kind's images}")
    sub=$(KUBE_VERSION=${r} bash -c 'source "$1"; pw::substitutes_line' _ "${PW_ROOT}/hack/lib.sh")
    [[ -z ${sub} ]] || lines+=("${sub}")
  fi
  if [[ -n ${kubelet} ]]; then
    pw::log "${r}: kubelet"
    # A kubelet that needs a module the proxy does not serve at all (the release's
    # substitutes say "none") is not built, and the record says why.
    unbuilt=$(KUBE_VERSION=${r} bash -c 'source "$1"; pw::prepare_tree probewheel; cd "${PW_TREE}"; pw::unbuilt ./cmd/kubelet' _ "${PW_ROOT}/hack/lib.sh")
    if [[ -n ${unbuilt} ]]; then
      lines+=("kubelet: not built: it needs ${unbuilt#* }, which the Go module proxy does not serve")
    else
      # Stops at once, naming what to use, for a release that is not supported.
      KUBE_VERSION=${r} "${PW_ROOT}/hack/build-kubelet.sh"
      lines+=("kubelet: $(KUBE_VERSION=${r} bash -c 'source "$1"; "${PW_BIN}/kubelet" --version' _ "${PW_ROOT}/hack/lib.sh")")
    fi
  fi
  suites prober "prober package, ${test_flags:-without -race}" 0 UPSTREAM_TEST_PKGS=./pkg/kubelet/prober/... UPSTREAM_TEST_FLAGS=${test_flags}
  if [[ -n ${upstream} ]]; then
    suites upstream "upstream suites" 1
  fi
  if [[ -n ${series} ]]; then
    out=${log_dir}/${r}-series.txt
    pw::log "${r}: each commit of the series on its own (hack/verify-series.sh)"
    KUBE_VERSION=${r} "${PW_ROOT}/hack/verify-series.sh" 2>&1 | tee "${out}"
    n=$(pw::patch_files "${PW_PATCHES_ROOT}/${minor}" | wc -l)
    lines+=("series commits, each on its own: $(awk -v n="${n}" '$2 == "ok" && $3 != "FAIL" {ok++} END {print ok + 0 " of " n " build and pass their packages'"'"' tests, gate off too once the prober reads it"}' "${out}")")
  fi
  if [[ -n ${kind} ]]; then
    unset PW_RELEASE_GO
    out=${log_dir}/${r}-kind-e2e.txt
    pw::log "${r}: make kind-e2e-suite"
    make -C "${PW_ROOT}" --no-print-directory kind-e2e-suite KUBE_VERSION="${r}" KIND_MIXED=0 E2E_FLAGS="-v -count=1" 2>&1 | tee "${out}"
    lines+=("kind, patched cluster: $(nodes_of "${out}")")
    lines+=("kind e2e suite: $(grep -c '^--- PASS: ' "${out}") passed, $(grep -c '^--- FAIL: ' "${out}") failed, $(grep -c '^--- SKIP: ' "${out}") skipped")
    out=${log_dir}/${r}-kind-mixed.txt
    pw::log "${r}: make kind-up KIND_MIXED=1"
    rc=0
    make -C "${PW_ROOT}" --no-print-directory kind-up KUBE_VERSION="${r}" KIND_MIXED=1 2>&1 | tee "${out}" || rc=$?
    make -C "${PW_ROOT}" --no-print-directory kind-down KUBE_VERSION="${r}"
    ((rc == 0)) || pw::die "${r}: the mixed kind cluster did not come up (${out})"
    lines+=("kind, mixed cluster: $(nodes_of "${out}")")
  fi
  took=$((SECONDS - start))
  summary+=("${r} (${took} s):" "${lines[@]/#/  }")
  unset PW_RELEASE_GO
  if [[ -n ${record} ]]; then
    mkdir -p "${PW_ROOT}/e2e/results/releases"
    {
      echo "release: ${r}"
      echo "series: patches/${minor}, $(pw::patch_files "${PW_PATCHES_ROOT}/${minor}" | wc -l) patches, sha256 $(pw::series_sum "${minor}")"
      echo "recorded: $(date -u +%Y-%m-%d), commit $(git -C "${PW_ROOT}" rev-parse --short HEAD)$(pw::dirty_suffix pkg series patches hack e2e bench), $(pw::machine)"
      echo "command: hack/minors-test.sh$([[ ${test_flags} == -race ]] || echo " --no-race")${upstream:+ --upstream}${series:+ --series}${kind:+ --kind} --record ${r}"
      printf '%s\n' "${lines[@]}"
      # Whether a record fits in CI (50 minutes) or runs apart, as one with kind (over an hour) does.
      echo "took: ${took} s"
    } >"${PW_ROOT}/e2e/results/releases/${r}.txt"
  fi
done
echo
printf '%s\n' "${summary[@]}"
