#!/usr/bin/env bash
# Builds the control plane the e2e cluster (hack/local-up-cluster.sh) runs the
# kubelet under test against: kube-apiserver, kube-controller-manager,
# kube-scheduler and kubectl, from the *stock* tree (pristine $KUBE_VERSION,
# prepared by pw::prepare_tree), into _output/bin/, version-stamped
# "$KUBE_VERSION" like hack/build-kubelet.sh does (kubectl refuses to parse an
# unstamped server version). Static (CGO_ENABLED=0), as upstream releases them.
#
#   hack/build-cluster-binaries.sh [binary...]   (default: all four)
#   hack/build-cluster-binaries.sh e2e.test ginkgo agnhost
#   hack/build-cluster-binaries.sh kubeadm kube-proxy   (the kind node image, hack/kind-build-image.sh)
#
# The second form builds upstream's own e2e suite for `make e2e-upstream`:
# e2e.test (test/e2e, `go test -c` as upstream's make rules do), the ginkgo
# CLI at the version the tree pins (for parallel runs), and agnhost
# (test/images/agnhost, packed into an image by hack/build-e2e-images.sh
# --upstream). Cold: e2e.test ~7 min, agnhost ~3 min on 2 cores.
#
# A binary is rebuilt only when the tree, the toolchain or the flags change.
# Cold: several minutes (the kubelet build warms much of the cache).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

declare -A pkgs=(
  [kube-apiserver]=./cmd/kube-apiserver
  [kube-controller-manager]=./cmd/kube-controller-manager
  [kube-scheduler]=./cmd/kube-scheduler
  [kubectl]=./cmd/kubectl
  [kubeadm]=./cmd/kubeadm
  [kube-proxy]=./cmd/kube-proxy
  [e2e.test]=./test/e2e
  [ginkgo]=github.com/onsi/ginkgo/v2/ginkgo
  [agnhost]=./test/images/agnhost
)
bins=("$@")
((${#bins[@]} > 0)) || bins=(kube-apiserver kube-controller-manager kube-scheduler kubectl)
for b in "${bins[@]}"; do
  [[ -n ${pkgs[${b}]:-} ]] || pw::die "unknown binary ${b} (want one of ${!pkgs[*]})"
done

start=${SECONDS}
pw::prepare_tree stock
cd "${PW_TREE}"
version=${KUBE_VERSION}
ldflags=$(pw::version_ldflags "${version}")
args=(-mod=mod -trimpath -buildvcs=false "-tags=${PW_KUBELET_TAGS}" -ldflags="${ldflags}-s -w")
export CGO_ENABLED=0

mkdir -p "${PW_BIN}"
todo=()
for b in "${bins[@]}"; do
  out=${PW_BIN}/${b}
  want=$(printf '%s\n' "${b}" "$(<.git/probewheel-stamp)" "$(go version)" \
    "$(go env CGO_ENABLED GOOS GOARCH GOAMD64)" "${args[@]}" | sha256sum | cut -d' ' -f1)
  if [[ -x ${out} && -f ${out}.stamp && $(<"${out}.stamp") == "${want}" ]]; then
    echo "${out} is up to date"
    continue
  fi
  todo+=("${b}")
  printf '%s\n' "${want}" >"${out}.want"
done
if ((${#todo[@]} > 0)); then
  # One build at a time: on 2 cores parallel links only add memory pressure.
  for b in "${todo[@]}"; do
    out=${PW_BIN}/${b}
    pw::log "go build ${pkgs[${b}]} in ${PW_TREE}"
    rm -f "${out}.stamp"
    if [[ ${b} == *.test ]]; then
      go test -c "${args[@]}" -o "${out}.tmp" "${pkgs[${b}]}"
    else
      go build "${args[@]}" -o "${out}.tmp" "${pkgs[${b}]}"
    fi
    mv -f "${out}.tmp" "${out}"
    mv -f "${out}.want" "${out}.stamp"
  done
fi
for b in "${bins[@]}"; do
  out=${PW_BIN}/${b}
  case ${b} in
    # Upstream's test binaries carry no version of their own; check they run.
    e2e.test) "${out}" --list-images >/dev/null || pw::die "${out} does not run"; continue ;;
    ginkgo) "${out}" version >/dev/null || pw::die "${out} does not run"; continue ;;
    agnhost) "${out}" --help >/dev/null || pw::die "${out} does not run"; continue ;;
  esac
  if [[ ${b} == kubeadm ]]; then
    got=$("${out}" version -o short)
    [[ ${got} == "${version}" ]] || pw::die "${out} version -o short printed '${got}', want '${version}'"
  elif [[ ${b} == kubectl ]]; then
    # Not `| head -1`: with pipefail, kubectl's SIGPIPE on its second line fails the script.
    got=$("${out}" version --client 2>/dev/null)
    got=${got%%$'\n'*}
    [[ ${got} == "Client Version: ${version}" ]] || pw::die "${out}: '${got}', want 'Client Version: ${version}'"
  else
    got=$("${out}" --version)
    [[ ${got} == "Kubernetes ${version}" ]] || pw::die "${out} --version printed '${got}', want 'Kubernetes ${version}'"
  fi
done
echo "control plane binaries ${bins[*]} at ${version} in ${PW_BIN} ($((SECONDS - start))s)"
