#!/usr/bin/env bash
# Builds upstream's hollow node (kubemark, cmd/kubemark) from the same pinned
# tree as the kubelet, for the scale benchmark (docs/scale.md, `make scale-bench`):
#
#   hack/build-hollow-node.sh          -> _output/bin/hollow-node        (pristine + patches/)
#   hack/build-hollow-node.sh --stock  -> _output/bin/hollow-node-stock  (pristine)
#
# The tree pw::prepare_tree makes (hack/lib.sh) is copied to
# _output/src/kubemark-<flavor> and the benchmark's overlay, bench/hollow/overlay/
# (files at their paths in the kubernetes tree, each carrying the
# PW_OVERLAY_TAG line, which is stripped), replaces upstream's files there:
#   pkg/kubemark/hollow_kubelet.go   the real prober manager instead of
#                                    probetest.FakeManager{}; a fixed root dir,
#                                    bind address and healthz port
#   cmd/kubemark/app/hollow_node.go  --runtime-endpoint (an out-of-process CRI:
#                                    bench/hollow/pwscale's fake runtime instead of
#                                    upstream's in-process one), --root-dir,
#                                    --address, --healthz-port, --pprof-address
# Nothing of this goes into patches/ or pkg/: the kubelet code in the copy is
# exactly the kubelet's (stock or patched), only the harness around it differs.
#
# HOLLOW_ARM=<arm> builds probewheel with one mechanism switched off, as the
# in-process ablation does (scripts/ablation.sh): bench/ablation/<arm>.patch
# applied to the copy -> _output/bin/hollow-node-<arm>. A patch's "needs: <path>"
# lines name module-only files of pkg/ it builds on (afterfunc.patch: the AfterFunc
# design's afterfunc.go), copied into the copy first; their `//go:build
# !probewheel_export` line holds in the kubelet's tree, which sets no such tag.
#
# Incremental like hack/build-kubelet.sh: the copy is redone only when the
# tree (patches/, the version) or the overlay change, the binary only when the
# copy, the toolchain or the flags change; a warm call takes a few seconds.
# Same release flags as the kubelet (stripped, -trimpath, tags
# selinux,notest,grpcnotrace, cgo), so the build cache of hack/build-kubelet.sh
# is reused. Extra `go build` flags in HOLLOW_GOFLAGS.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

flavor=$(pw::flavor "$@")
arm=${HOLLOW_ARM:-}
arm_patch=
if [[ ${flavor} == stock ]]; then
  [[ -z ${arm} ]] || pw::die "HOLLOW_ARM=${arm}: an arm is probewheel's, not stock's"
  out=${PW_BIN}/hollow-node-stock
  version=${KUBE_VERSION}
else
  out=${PW_BIN}/hollow-node${arm:+-${arm}}
  version=$(pw::fork_version)
  if [[ -n ${arm} ]]; then
    arm_patch=${PW_ROOT}/bench/ablation/${arm}.patch
    [[ -f ${arm_patch} ]] || pw::die "HOLLOW_ARM=${arm}: no ${arm_patch}"
  fi
fi
overlay=${PW_ROOT}/bench/hollow/overlay
needs=()
if [[ -n ${arm_patch} ]]; then
  mapfile -t needs < <(sed -n 's/^needs: //p' "${arm_patch}")
  for f in "${needs[@]}"; do
    [[ -f ${PW_ROOT}/${f} ]] || pw::die "${arm_patch}: needs ${f}, which is not in the repository"
  done
fi

start=${SECONDS}
pw::prepare_tree "${flavor}" # holds a shared lock on the tree until we exit
copy=${PW_OUTPUT}/src/kubemark-${flavor}${arm:+-${arm}}

mapfile -t files < <(cd "${overlay}" && find . -type f | sed 's#^\./##' | LC_ALL=C sort)
((${#files[@]} > 0)) || pw::die "no overlay files in ${overlay}"
copy_want=$(
  {
    cat "${PW_TREE}/.git/probewheel-stamp" "${BASH_SOURCE[0]}" ${arm_patch:+"${arm_patch}"}
    for f in "${needs[@]}"; do
      echo "${f}"
      cat "${PW_ROOT}/${f}"
    done
    for f in "${files[@]}"; do
      echo "${f}"
      cat "${overlay}/${f}"
    done
  } | sha256sum | cut -d' ' -f1
)
exec {copylock}>"${copy}.lock"
flock -x "${copylock}"
if [[ ! -f ${copy}/.probewheel-stamp || $(<"${copy}/.probewheel-stamp") != "${copy_want}" ]]; then
  pw::log "copying ${PW_TREE} to ${copy} and applying bench/hollow/overlay (${#files[@]} files)"
  rm -rf "${copy}"
  mkdir -p "${copy}"
  # The work tree only: the copy is a build directory, not a repository.
  (cd "${PW_TREE}" && tar --exclude=./.git -cf - .) | (cd "${copy}" && tar -xf -)
  for f in "${files[@]}"; do
    src=${overlay}/${f}
    dst=${copy}/${f}
    mkdir -p "$(dirname "${dst}")"
    if [[ ${f} == *.go ]]; then
      pw::is_overlay "${src}" || pw::die "${src}: no '${PW_OVERLAY_TAG}' line before package"
      # Drop the tag line and the blank line after it (as hack/update-patches.sh exports overlays).
      awk -v tag="${PW_OVERLAY_TAG}" -v bare="${PW_OVERLAY_TAG_BARE}" '
        skip && /^$/ { skip = 0; next }
        !done && ($0 == tag || $0 == bare) { skip = 1; done = 1; next }
        { skip = 0; print }' "${src}" >"${dst}"
    else
      cp "${src}" "${dst}"
    fi
  done
  if [[ -n ${arm_patch} ]]; then
    for f in "${needs[@]}"; do
      cp "${PW_ROOT}/${f}" "${copy}/${f}"
    done
    patch -s -p1 -d "${copy}" <"${arm_patch}" || pw::die "${arm_patch} does not apply to the patched tree"
  fi
  echo "${copy_want}" >"${copy}/.probewheel-stamp"
fi
flock -s "${copylock}"
ldflags=$(cd "${PW_TREE}" && pw::version_ldflags "${version}")
# The build reads the copy only: a re-prepare (new patches/) need not wait for our link.
pw::release_tree
cd "${copy}"
read -ra extra <<<"${HOLLOW_GOFLAGS:-}"
pw::stamped_go_build "${out}" "${version}" "${ldflags}" "${copy_want}" ./cmd/kubemark "${extra[@]}"
