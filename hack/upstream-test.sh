#!/usr/bin/env bash
# Runs upstream's own, unmodified test suites in the patched kubernetes tree
# (`make upstream-test`): the packages around the prober that use it, plus the
# prober packages themselves (whose tests are ours, as carried by patches/).
# Prints per-package and total counts of tests run/passed/failed/skipped and
# the wall time; the raw `go test -json` stream is kept under _output/.
#
#   hack/upstream-test.sh            patched tree (pristine + patches/)
#   hack/upstream-test.sh --gate-off patched tree, ProbeTimerWheel off by default
#                                    (built with -X .../pkg/features.probeTimerWheelDefault=false):
#                                    every suite on upstream's per-probe loop
#   hack/upstream-test.sh --stock    the same suites on pristine, for comparison
#
# UPSTREAM_TEST_PKGS overrides the package list, UPSTREAM_TEST_FLAGS adds
# go test flags (e.g. -race; default none). The suites build with the release
# build's tags (PW_KUBELET_TAGS: selinux,notest,grpcnotrace), the files the
# kubelet ships: no file of the tree carries them, so the tests and the code
# under test are upstream's, and only the selinux and grpc dependencies take
# their release variants; the build then shares make kubelet's compiled
# packages (hack/verify-series.sh).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

gate=on
suffix= title=
args=()
for a in "$@"; do
  case ${a} in
    --gate-off) gate=off ;;
    *) args+=("${a}") ;;
  esac
done
flavor=$(pw::flavor "${args[@]}")
read -ra pkgs <<<"${UPSTREAM_TEST_PKGS:-./pkg/kubelet/prober/... ./pkg/kubelet ./pkg/kubelet/server ./pkg/features}"
read -ra flags <<<"${UPSTREAM_TEST_FLAGS:-}"
[[ " ${flags[*]} " == *" -tags="* ]] || flags=("-tags=${PW_KUBELET_TAGS}" "${flags[@]}")
if [[ ${gate} == off ]]; then
  [[ ${flavor} == probewheel ]] || pw::die "--gate-off needs the patched tree"
  flags+=("-ldflags=-X=${PW_UPSTREAM_MODULE}/pkg/features.probeTimerWheelDefault=false")
  suffix=-gate-off title=" (ProbeTimerWheel off)"
fi

pw::prepare_tree "${flavor}"
cd "${PW_TREE}"

# A package that needs a module the proxy does not serve at all (the release's
# substitutes say "none") is left out, and said to be: never a failure hidden.
mapfile -t unbuilt < <(pw::unbuilt "${pkgs[@]}")
if ((${#unbuilt[@]} > 0)); then
  for u in "${unbuilt[@]}"; do
    echo "not built: ${u% *} (needs ${u#* }, which the Go module proxy does not serve)"
    for i in "${!pkgs[@]}"; do [[ ${pkgs[i]} != "${u% *}" ]] || unset 'pkgs[i]'; done
  done
  pkgs=("${pkgs[@]}")
fi

log_dir=${PW_OUTPUT}/upstream-test
mkdir -p "${log_dir}"
json=${log_dir}/${flavor}-${KUBE_VERSION}${suffix}.json
pw::log "go test ${flags[*]} ${pkgs[*]} in ${PW_TREE}"
start=${SECONDS}
rc=0
# -mod=mod: see hack/build-kubelet.sh. -count=1: always run, never replay the
# test cache, so the counts and the time are real. -trimpath: the build cache
# then keys packages by content, not by directory, so the series tree of
# make verify-series and this tree share what they compile.
pw::tree_go test -mod=mod -trimpath -count=1 -json "${flags[@]}" "${pkgs[@]}" >"${json}" || rc=$?
wall=$((SECONDS - start))

# Count from the JSON events (field order is fixed by cmd/test2json, and the
# values we read contain no quotes). A subtest is a Test with a "/" in it.
awk -v wall="${wall}" -v flavor="${flavor}" -v version="${KUBE_VERSION}" -v gate="${title}" '
  function field(name,    re) {
    re = "\"" name "\":\"[^\"]*\""
    if (!match($0, re)) return ""
    return substr($0, RSTART + length(name) + 4, RLENGTH - length(name) - 5)
  }
  {
    a = field("Action"); p = field("Package"); t = field("Test")
    if (a != "pass" && a != "fail" && a != "skip") next
    if (p == "") next
    if (!(p in seen)) { seen[p] = 1; order[++n] = p }
    if (t == "") {
      result[p] = a
      if (match($0, /"Elapsed":[0-9.]+/)) elapsed[p] = substr($0, RSTART + 10, RLENGTH - 10)
      next
    }
    kind = index(t, "/") ? "sub" : "top"
    count[p, kind, a]++
    total[kind, a]++
    if (a == "fail" && kind == "top") failed[++nf] = p "." t
  }
  END {
    printf "\nupstream test suites, %s tree%s, k8s.io/kubernetes %s\n", flavor, gate, version
    printf "%-46s %7s %7s %7s %7s %9s %6s %8s\n", "package", "tests", "passed", "failed", "skipped", "subtests", "result", "time"
    for (i = 1; i <= n; i++) {
      p = order[i]
      run = count[p, "top", "pass"] + count[p, "top", "fail"] + count[p, "top", "skip"]
      subs = count[p, "sub", "pass"] + count[p, "sub", "fail"] + count[p, "sub", "skip"]
      printf "%-46s %7d %7d %7d %7d %9d %6s %7.1fs\n", substr(p, 1, 46), run, count[p, "top", "pass"], count[p, "top", "fail"], count[p, "top", "skip"], subs, toupper(result[p]), elapsed[p]
    }
    run = total["top", "pass"] + total["top", "fail"] + total["top", "skip"]
    subs = total["sub", "pass"] + total["sub", "fail"] + total["sub", "skip"]
    printf "%-46s %7d %7d %7d %7d %9d\n", "total", run, total["top", "pass"], total["top", "fail"], total["top", "skip"], subs
    printf "subtests: %d passed, %d failed, %d skipped\n", total["sub", "pass"], total["sub", "fail"], total["sub", "skip"]
    for (i = 1; i <= nf && i <= 30; i++) printf "FAILED %s\n", failed[i]
    printf "wall time %dm%02ds\n", wall / 60, wall % 60
  }' "${json}"
echo "raw events: ${json}"
if ((rc != 0)); then
  # Build failures have no test events; show go test's own messages.
  grep -o '"Output":"[^"]*\(FAIL\|cannot\|undefined\|error\)[^"]*"' "${json}" | head -n 20 >&2 || true
  pw::die "go test failed (exit ${rc})"
fi
