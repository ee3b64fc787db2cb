#!/usr/bin/env bash
# Builds the Go programs the kind path needs that are not Kubernetes itself,
# from the Go module proxy, into _output/kind/bin/:
#
#   kind      sigs.k8s.io/kind@${PW_KIND_VERSION} (hack/kind-lib.sh pins it)
#   crictl    sigs.k8s.io/cri-tools@v<major>.<minor>.0 (Debian bookworm has no cri-tools)
#   etcd      go.etcd.io/etcd/server/v3 at the version kubeadm names
#   coredns   github.com/coredns/coredns at the version kubeadm names, with only the
#             plugins kubeadm's Corefile uses (hack/kind/coredns/main.go)
#
#   hack/kind-build-tools.sh [tool...]      (default: all four)
#
# etcd and coredns follow `kubeadm config images list` of the pinned
# Kubernetes version (etcd 3.6.x-0 -> v3.6.x), so go.mod stays the one place
# a version is chosen; kubeadm is built first if missing. Each tool is built
# in a throw-away wrapper module (_output/kind/gomod/<tool>) that requires the
# tool's module: `go install mod@version` refuses modules with replace
# directives (etcd's server module has them), a wrapper module does not care.
# Static (CGO_ENABLED=0), -trimpath. A tool is rebuilt only when its module
# version, the toolchain or the flags change; cold: about 1 min (kind,
# crictl), 2 min (etcd), 4 min (coredns) on 2 cores, one at a time.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/kind-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/kind-lib.sh"

tools=("$@")
((${#tools[@]} > 0)) || tools=(kind crictl etcd coredns)

# kubeadm_tag <name>: the tag kubeadm wants for an image (etcd, coredns/coredns, pause, ...).
kubeadm_tag() {
  local list
  if [[ ! -x ${PW_BIN}/kubeadm ]]; then
    pw::kind_wait_for_builds
    nice -n 10 "${PW_ROOT}/hack/build-cluster-binaries.sh" kubeadm >&2
  fi
  list=$("${PW_BIN}/kubeadm" config images list --kubernetes-version "${KUBE_VERSION}" 2>/dev/null)
  sed -n "s#^registry\.k8s\.io/$1:##p" <<<"${list}" | head -1
}

# crictl_version: the minor's cri-tools release, else the nearest one minor either side that the
# module proxy has (it refuses v1.35.0); crictl speaks CRI v1 to the containerd of any of them.
crictl_version() {
  local m=${KUBE_MINOR} v
  for v in "v1.${m}.0" "v1.$((m - 1)).0" "v1.$((m + 1)).0"; do
    if (cd / && GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/cri-tools@${v}" 2>/dev/null | grep '"GoMod"' >/dev/null); then
      [[ ${v} == "v1.${m}.0" ]] || pw::log "the module proxy has no sigs.k8s.io/cri-tools v1.${m}.0: crictl ${v}"
      echo "${v}"
      return 0
    fi
  done
  pw::die "the module proxy has none of sigs.k8s.io/cri-tools v1.$((m - 1)).0 to v1.$((m + 1)).0; set PW_CRICTL_VERSION to a release it has"
}

go_version=$(awk '$1 == "go" {print $2; exit}' "${PW_ROOT}/go.mod")
start=${SECONDS}
mkdir -p "${PW_KIND_BIN}"
for tool in "${tools[@]}"; do
  ldflags="-s -w" main=""
  case ${tool} in
    kind) module=${PW_KIND_MODULE} version=${PW_KIND_VERSION} pkg=${PW_KIND_MODULE} ;;
    crictl)
      module=sigs.k8s.io/cri-tools version=${PW_CRICTL_VERSION:-$(crictl_version)} pkg=sigs.k8s.io/cri-tools/cmd/crictl
      ldflags+=" -X sigs.k8s.io/cri-tools/pkg/version.Version=${version#v}"
      ;;
    etcd)
      tag=$(kubeadm_tag etcd)
      [[ ${tag} =~ ^([0-9]+\.[0-9]+\.[0-9]+)-[0-9]+$ ]] || pw::die "kubeadm names etcd '${tag}', want X.Y.Z-N"
      module=go.etcd.io/etcd/server/v3 version=v${BASH_REMATCH[1]} pkg=go.etcd.io/etcd/server/v3
      ;;
    coredns)
      tag=$(kubeadm_tag coredns/coredns)
      [[ ${tag} =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || pw::die "kubeadm names coredns '${tag}', want vX.Y.Z"
      # Only the plugins kubeadm's Corefile uses (hack/kind/coredns/main.go): a third of the cold build.
      module=github.com/coredns/coredns version=${tag} pkg=. main=${PW_ROOT}/hack/kind/coredns/main.go
      ;;
    *) pw::die "unknown tool ${tool} (want kind, crictl, etcd or coredns)" ;;
  esac
  out=${PW_KIND_BIN}/${tool}
  want=$(printf '%s\n' "${tool}" "${module}@${version}" "${pkg}" "${ldflags}" "$(go version)" "${go_version}" \
    "$([[ -z ${main} ]] || cat "${main}")" | sha256sum | cut -d' ' -f1)
  if [[ -x ${out} && -f ${out}.stamp && $(<"${out}.stamp") == "${want}" ]]; then
    echo "${out} is up to date (${module}@${version})"
    continue
  fi
  pw::log "go build ${pkg} from ${module}@${version}"
  t0=${SECONDS}
  dir=${PW_KIND_DIR}/gomod/${tool}
  rm -rf "${dir}" "${out}.stamp"
  mkdir -p "${dir}"
  printf 'module probewheel.invalid/kind-tools/%s\n\ngo %s\n' "${tool}" "${go_version}" >"${dir}/go.mod"
  # Our own main package, if any, without its ignore build tag.
  [[ -z ${main} ]] || grep -v '^//go:build ignore$' "${main}" >"${dir}/main.go"
  (
    cd "${dir}"
    export GOFLAGS=-mod=mod GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0
    go get "${module}@${version}" >/dev/null 2>"${dir}/go-get.log" ||
      pw::die "go get ${module}@${version} failed: $(tail -5 "${dir}/go-get.log")"
    if [[ -n ${main} ]]; then
      go mod tidy >/dev/null 2>>"${dir}/go-get.log" || pw::die "go mod tidy failed: $(tail -5 "${dir}/go-get.log")"
    fi
    nice -n 10 go build -trimpath -buildvcs=false -ldflags="${ldflags}" -o "${out}.tmp" "${pkg}"
  )
  mv -f "${out}.tmp" "${out}"
  echo "${want}" >"${out}.stamp"
  echo "${module}@${version}" >"${out}.version"
  pw::log "built ${out} in $((SECONDS - t0))s"
done
echo "kind tools ${tools[*]} in ${PW_KIND_BIN} ($((SECONDS - start))s)"
