#!/usr/bin/env bash
# Moves the repository to another Kubernetes release:
#
#   hack/set-kube-version.sh v1.36.4
#
# Rewrites go.mod — the one place the version lives — so that it requires
# k8s.io/kubernetes at that version and pins every staging module of that
# release (the `./staging/src/k8s.io/X` replaces in its go.mod) to the
# matching k8s.io/X v0.Y.Z, then runs `go mod tidy`. It does not touch pkg/ or
# patches/: carry the patch set over with hack/rebase-patches.sh next (see
# docs/fork.md).
set -euo pipefail
shopt -s inherit_errexit

new=${1:-}
if [[ ! ${new} =~ ^v1\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "usage: $0 v1.Y.Z (a k8s.io/kubernetes release in the module proxy)" >&2
  exit 2
fi
# lib.sh reads the current (old) version from go.mod; the caller's
# KUBE_VERSION (exported by make) must not override that here.
unset KUBE_VERSION
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
old=${KUBE_VERSION}
staging=v0.${new#v1.}

# The staging modules of the new release, from its own go.mod.
new_dir=$(pw::module_dir "${new}")
new_gomod=${new_dir}/go.mod
mapfile -t modules < <(sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/.*#\1#p' "${new_gomod}" | LC_ALL=C sort -u)
((${#modules[@]} > 0)) || pw::die "no staging replaces found in ${new_gomod}"
declare -A is_staging=()
for m in "${modules[@]}"; do is_staging[${m}]=1; done

cd "${PW_ROOT}"
edits=("-require=${PW_UPSTREAM_MODULE}@${new}")
for m in "${modules[@]}"; do
  edits+=("-replace=${m}=${m}@${staging}")
done
# Replaces of staging modules the new release no longer has.
while read -r m; do
  if [[ -z ${is_staging[${m}]:-} ]]; then
    edits+=("-dropreplace=${m}")
  fi
done < <(awk '$2 == "=>" && $1 ~ /^k8s\.io\// && $3 == $1 && $4 ~ /^v0\./ {print $1}' go.mod)
# Direct or indirect requirements of staging modules at a real version (the
# v0.0.0 placeholders tidy writes are left alone; the replace decides).
while read -r m v; do
  if [[ -n ${is_staging[${m}]:-} && ${v} != v0.0.0 ]]; then
    edits+=("-require=${m}@${staging}")
  fi
done < <(awk '/^require \($/ {in_req = 1; next} in_req && /^\)/ {in_req = 0}
  in_req && $1 ~ /^k8s\.io\// {print $1, $2}
  $1 == "require" && $2 ~ /^k8s\.io\// {print $2, $3}' go.mod)

# A release that needs a newer Go than the host's (1.38: go 1.27.0) builds with the Go
# upstream releases it with (its .go-version), named in go.mod's toolchain line, which
# hack/lib.sh and the Makefile export as GOTOOLCHAIN; one that does not drops the line.
if pw::go_too_old "${new_gomod}"; then
  [[ -f ${new_dir}/.go-version ]] || pw::die "k8s.io/kubernetes@${new} needs a newer Go than the host's and has no .go-version"
  export GOTOOLCHAIN=go$(<"${new_dir}/.go-version")
  edits+=("-toolchain=${GOTOOLCHAIN}")
else
  export GOTOOLCHAIN=local
  edits+=("-toolchain=none")
fi
go mod edit "${edits[@]}"
go mod tidy
got=$("${PW_ROOT}/hack/kube-version.sh")
[[ ${got} == "${new}" ]] || pw::die "go.mod now says ${got}, expected ${new}"
pw::ensure_pristine "${new}" >/dev/null

cat <<EOF
go.mod moved from k8s.io/kubernetes ${old} to ${new} (staging modules ${staging}, Go: ${GOTOOLCHAIN}).
Next:
  hack/rebase-patches.sh ${old}   # git am -3 patches/ onto pristine ${new}, copy the result into pkg/
  make patches verify-patches test kubelet upstream-test
(make patches gives the moved series its fork version in series/versions).
EOF
