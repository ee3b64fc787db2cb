#!/usr/bin/env bash
# Generates bench/oracle, the contract probewheel is held to (bench/oracle/oracle.go says
# what it is): upstream's pkg/kubelet/prober of the main line's release, prober.go and
# prober_manager.go as released, worker.go with bench/oracle/worker.patch applied.
#   hack/oracle.sh           regenerate (after a move of the main line's release; fix
#                            worker.patch first if it no longer applies)
#   hack/oracle.sh --check   fail when bench/oracle is not what it generates (make test)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

check=0
case ${1:-} in
  --check) check=1 ;;
  "") ;;
  *) pw::die "usage: $0 [--check]" ;;
esac

oracle=${PW_ROOT}/bench/oracle
# Upstream's files the package is generated from; oracle.go, worker.patch and tests are kept.
generated=(prober.go prober_manager.go worker.go)
src=$(pw::module_dir "${PW_MAIN_VERSION}")/pkg/kubelet/prober
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
for f in "${generated[@]}"; do
  install -m 0644 "${src}/${f}" "${work}/${f}"
done
patch -s --no-backup-if-mismatch -d "${work}" -p1 <"${oracle}/worker.patch" ||
  pw::die "bench/oracle/worker.patch no longer applies to ${PW_MAIN_VERSION}'s worker.go: carry its three changes over by hand, then run $0"

if ((check)); then
  for f in "${generated[@]}"; do
    cmp -s "${work}/${f}" "${oracle}/${f}" ||
      pw::die "bench/oracle/${f} is not ${PW_MAIN_VERSION}'s with bench/oracle/worker.patch: run hack/oracle.sh (generated, never edited)"
  done
  extra=$(cd "${oracle}" && ls | grep -vxF -e worker.patch -e oracle.go -e oracle_test.go "${generated[@]/#/-e}" || true)
  [[ -z ${extra} ]] || pw::die "bench/oracle holds more than the generated package: ${extra}"
  echo "bench/oracle: ${PW_MAIN_VERSION}'s prober with worker.patch, current"
  exit 0
fi
cp "${work}"/*.go "${oracle}/"
echo "bench/oracle: generated from ${PW_MAIN_VERSION}'s pkg/kubelet/prober with worker.patch"
