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
  out=${PW_OUTPUT}/bin/kubelet-stock
  version=${KUBE_VERSION}
else
  out=${PW_OUTPUT}/bin/kubelet
  version=${PW_FORK_VERSION}
fi

start=${SECONDS}
pw::prepare_tree "${flavor}"
cd "${PW_TREE}"

ldflags=$(pw::version_ldflags "${version}")
# Upstream's release flags (hack/lib/golang.sh, non-debug build): stripped,
# -trimpath, tags selinux,notest,grpcnotrace; the kubelet is built with cgo.
# -mod=mod: the zip ships an empty vendor/ and no go.sum lines for the
# released staging modules; go fills them in from the proxy (checked against
# sum.golang.org).
tags=selinux,notest,grpcnotrace
read -ra extra <<<"${KUBELET_GOFLAGS:-}"
args=(-mod=mod -trimpath -buildvcs=false "-tags=${tags}" -ldflags="${ldflags}-s -w" "${extra[@]}")

want=$(printf '%s\n' "$(<.git/probewheel-stamp)" "$(go version)" \
  "$(go env CGO_ENABLED GOOS GOARCH GOAMD64 CC)" "${args[@]}" | sha256sum | cut -d' ' -f1)
if [[ -x ${out} && -f ${out}.stamp && $(<"${out}.stamp") == "${want}" ]]; then
  echo "${out} is up to date ($("${out}" --version), $((SECONDS - start))s)"
  exit 0
fi

pw::log "go build ./cmd/kubelet in ${PW_TREE} (first build: several minutes)"
mkdir -p "$(dirname "${out}")"
rm -f "${out}.stamp"
go build "${args[@]}" -o "${out}.tmp" ./cmd/kubelet
mv -f "${out}.tmp" "${out}"
echo "${want}" >"${out}.stamp"

got=$("${out}" --version)
[[ ${got} == "Kubernetes ${version}" ]] || pw::die "${out} --version printed '${got}', want 'Kubernetes ${version}'"
echo "built ${out}: ${got} (commit $(git rev-parse HEAD), $((SECONDS - start))s)"
