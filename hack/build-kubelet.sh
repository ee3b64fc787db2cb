#!/usr/bin/env bash
# Builds a kubelet (`make kubelet`) from pristine k8s.io/kubernetes
# $KUBE_VERSION plus `git am patches/*.patch` — the patch set, not pkg/, so
# what runs is exactly what a fork would carry.
#
#   hack/build-kubelet.sh          -> _output/bin/kubelet        (Kubernetes vX.Y.Z-probewheel.N)
#   hack/build-kubelet.sh --stock  -> _output/bin/kubelet-stock  (Kubernetes vX.Y.Z, no patches)
#
# The source tree stays at _output/src/kubernetes-<version>-<flavor> and is
# re-prepared only when patches/ or the version change; the binary is rebuilt
# only when the tree, the toolchain or the flags change, so a second run with
# nothing changed takes a second or two. The first build downloads the
# kubelet's dependencies through the module proxy and takes several minutes.
# Extra `go build` flags can be passed in KUBELET_GOFLAGS (e.g. -race).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

flavor=$(pw::flavor "$@")
if [[ ${flavor} == stock ]]; then
  out=${PW_BIN}/kubelet-stock
  version=${KUBE_VERSION}
else
  out=${PW_BIN}/kubelet
  version=$(pw::fork_version)
fi

pw::prepare_tree "${flavor}"
cd "${PW_TREE}"

# Upstream's release flags (hack/lib/golang.sh, non-debug build); the kubelet
# is built with cgo. Extra `go build` flags in KUBELET_GOFLAGS.
read -ra extra <<<"${KUBELET_GOFLAGS:-}"
pw::stamped_go_build "${out}" "${version}" "$(pw::version_ldflags "${version}")" \
  "$(<.git/probewheel-stamp)" ./cmd/kubelet "${extra[@]}"
echo "(commit $(git rev-parse HEAD))"
