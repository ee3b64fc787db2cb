#!/usr/bin/env bash
# Proves that every commit of patches/ stands on its own (`make verify-series`,
# part of `make ci`): in a scratch tree of pristine k8s.io/kubernetes
# $KUBE_VERSION it applies the series one commit at a time and, after each,
# builds the packages that import the prober (when the commit changes the
# prober's API or a file outside it) and runs the tests of every package the
# commit touches, the prober's always; with the ProbeTimerWheel gate off too
# once the prober reads the gate. Prints one row per commit; patches/README.md
# has each commit's line counts.
#
# Usage: hack/verify-series.sh [--from N]   start testing at commit N (1-based;
#                                           earlier ones are applied only)
# 20-60 s per commit with a warm Go build cache (9 min for the fourteen); the first commit also
# compiles the kubelet's dependencies (several minutes on a cold cache).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

from=1
while (($# > 0)); do
  case $1 in
    --from) from=$2 && shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
    *) pw::die "unknown argument $1 (see --help)" ;;
  esac
done

start=${SECONDS}
base=$(pw::ensure_pristine "${KUBE_VERSION}")
mapfile -t patches < <(pw::patch_files "${PW_PATCHES_DIR}")
((${#patches[@]} > 0)) || pw::die "patches/ is empty"

dir=${PW_OUTPUT}/src/kubernetes-${KUBE_VERSION}-series
if [[ ! -d ${dir}/.git ]]; then
  rm -rf "${dir}"
  mkdir -p "$(dirname "${dir}")"
  git clone -q --shared --no-checkout "${PW_PRISTINE_GIT}" "${dir}"
fi
cd "${dir}"
git am --abort >/dev/null 2>&1 || true
git checkout -q -f --detach "${base}"
git clean -q -ffdx

# -trimpath: the build cache keys packages by content, not by directory; with
# the release build's tags (PW_KUBELET_TAGS, which no file of the tree itself
# carries: only the selinux and grpc dependencies differ) this tree, make
# upstream-test's and make kubelet's then share what they compile, where
# untagged tests compiled the kubelet's dependencies a second time (8 min of
# a cold CI run on two cores).
goflags=(-mod=mod -trimpath "-tags=${PW_KUBELET_TAGS}")
gate_off="-ldflags=-X=${PW_UPSTREAM_MODULE}/pkg/features.probeTimerWheelDefault=false"
log_dir=${PW_OUTPUT}/verify-series
rm -rf "${log_dir}"
mkdir -p "${log_dir}"
rows=() failed=0
for i in "${!patches[@]}"; do
  n=$((i + 1))
  p=${patches[i]}
  name=$(basename "${p}" .patch)
  git reset -q --hard HEAD # go.mod as committed (the staging rewrite below, go test's go.sum)
  git clean -q -ffdx
  git am -q --committer-date-is-author-date "${p}" || {
    git am --abort >/dev/null 2>&1 || true
    pw::die "${name} does not apply on the commits before it; run hack/verify-patches.sh"
  }
  ((n >= from)) || continue
  pw::use_released_staging go.mod
  pw::substitute
  rm -f go.work go.work.sum
  # The packages the commit touches, and the prober's, which every commit is about.
  mapfile -t pkgs < <({
    echo ./pkg/kubelet/prober/...
    git diff-tree --no-commit-id --name-only -r HEAD | sed -n 's#^\(.*\)/[^/]*\.go$#./\1#p'
  } | LC_ALL=C sort -u)
  log=${log_dir}/${name}.log
  result=ok t0=${SECONDS}
  # The kubelet packages that import the prober are built when the commit
  # touches a Go file outside the prober package or changes what the package
  # exports (go doc -all, which reads sources only): otherwise they compile as
  # they did at the commit before, and building them again costs a minute a
  # commit on two cores for nothing.
  api=$(GOFLAGS=-mod=mod pw::tree_go doc -all ./pkg/kubelet/prober) || pw::die "${name}: go doc ./pkg/kubelet/prober failed"
  dependents=()
  if [[ ${api} != "${prev_api:-}" ]] ||
    git diff-tree --no-commit-id --name-only -r HEAD | grep -v '^pkg/kubelet/prober/' | grep '\.go$' >/dev/null; then
    dependents=(./pkg/kubelet/ ./pkg/kubelet/server/ ./pkg/features/)
  fi
  prev_api=${api}
  pw::log "[${n}/${#patches[@]}] ${name}: build ${dependents[*]:-(prober API unchanged)}, then go test ${pkgs[*]}"
  {
    echo "+ go build ${dependents[*]:-(skipped: the prober API and the files outside it are unchanged)}"
    if ((${#dependents[@]} > 0)); then pw::tree_go build "${goflags[@]}" "${dependents[@]}"; fi &&
      echo "+ go vet ./pkg/kubelet/prober/..." &&
      pw::tree_go vet "${goflags[@]}" ./pkg/kubelet/prober/... &&
      echo "+ go test ${pkgs[*]}" &&
      pw::tree_go test "${goflags[@]}" -count=1 "${pkgs[@]}"
  } >"${log}" 2>&1 || result=FAIL
  # Gate off: upstream's loop. Until the prober reads the gate, off runs what on runs.
  gate=-
  if [[ ${result} == ok ]] && grep -qs 'features\.ProbeTimerWheel' $(ls pkg/kubelet/prober/*.go | grep -v '_test\.go$'); then
    gate=ok
    {
      echo "+ go test ${gate_off} ./pkg/kubelet/prober/..."
      pw::tree_go test "${goflags[@]}" -count=1 "${gate_off}" ./pkg/kubelet/prober/...
    } >>"${log}" 2>&1 || gate=FAIL
  fi
  if [[ ${result} != ok || ${gate} == FAIL ]]; then
    failed=$((failed + 1))
    tail -n 30 "${log}" >&2
  fi
  rows+=("$(printf '%-58s %-6s %-8s %5ss  %s' "${name:0:58}" "${result}" "${gate}" "$((SECONDS - t0))" "${log#"${PW_ROOT}/"}")")
done

printf '\nseries on k8s.io/kubernetes %s, one commit at a time\n' "${KUBE_VERSION}"
printf '%-58s %-6s %-8s %6s  %s\n' "commit" "tests" "gate off" "time" "log"
printf '%s\n' "${rows[@]}"
((failed == 0)) || pw::die "${failed} commit(s) of the series do not build or pass their tests on their own"
echo "every commit of the series builds and passes its tests on its own ($((SECONDS - start))s)"
