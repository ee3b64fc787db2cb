# shellcheck shell=bash
# shellcheck disable=SC2034 # the PW_* settings are used by the sourcing scripts
# Shared helpers for the hack/ scripts that turn pkg/ into a patch set against
# pristine k8s.io/kubernetes and build/test the patched tree. Source it; do not
# run it.
#
# Layout under _output/ (all throw-away, `make clean` removes it):
#   pristine/kubernetes.git   bare repo, one root commit per imported release,
#                             tagged pristine/<version>. A single repo (not one
#                             per version) so `git am -3` can find the blobs a
#                             patch was made against when moving to a new release.
#   src/kubernetes-<version>-<flavor>
#                             build trees (flavor: probewheel = pristine+patches,
#                             stock = pristine), --shared clones of the above.
#   bin/kubelet, bin/kubelet-stock

set -euo pipefail
shopt -s inherit_errexit

PW_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The supported releases. The main line's lives in go.mod only (its series,
# patches/v1.<minor>/, is generated from pkg/); each older supported minor has
# series/minors/v1.<minor>/release, one line naming its patch release (its series,
# patches/v1.<minor>/, is generated from the main line's by
# hack/update-minors.sh). `make` exports KUBE_VERSION; unset, it is the main line.
PW_MAIN_VERSION=$("${PW_ROOT}/hack/kube-version.sh")
# The Go the main line builds with. A machine runs its own Go (GOTOOLCHAIN=local)
# and ignores go.mod's toolchain line, so when hack/set-kube-version.sh wrote one (the
# release needs a newer Go than the host's: 1.38 needs Go 1.27), every script takes it
# from here, and the Makefile exports the same; the go command fetches it through the
# module proxy once per machine.
PW_MAIN_TOOLCHAIN=$(sed -n 's/^toolchain \(go[0-9][0-9.]*\)$/\1/p' "${PW_ROOT}/go.mod")
if [[ -n ${PW_MAIN_TOOLCHAIN} ]]; then
  export GOTOOLCHAIN=${PW_MAIN_TOOLCHAIN}
fi
PW_MINORS_DIR=${PW_ROOT}/series/minors
# pw::minor_of v1.36.3 -> v1.36
pw::minor_of() {
  local v=${1#v}
  echo "v${v%%.*}.$(cut -d. -f2 <<<"${v}")"
}
# pw::supported_versions: the main line's release, then each older minor's, newest first.
pw::supported_versions() {
  echo "${PW_MAIN_VERSION}"
  local f
  while read -r f; do
    head -n1 "${f}"
  done < <(find "${PW_MINORS_DIR}" -mindepth 2 -maxdepth 2 -name release 2>/dev/null | LC_ALL=C sort -rV)
}
KUBE_VERSION=${KUBE_VERSION:-${PW_MAIN_VERSION}}
if [[ ! ${KUBE_VERSION} =~ ^v1\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "hack/lib.sh: KUBE_VERSION '${KUBE_VERSION}' is not a k8s.io/kubernetes v1.X.Y version (supported: $(pw::supported_versions | tr '\n' ' '))" >&2
  exit 1
fi
PW_KUBE_MINOR=$(pw::minor_of "${KUBE_VERSION}")
# The series for KUBE_VERSION, and where its binaries go (the main line's in
# _output/bin, so that e2e and kind find them where they always were).
PW_PATCHES_ROOT=${PW_ROOT}/patches
PW_PATCHES_DIR=${PW_PATCHES_ROOT}/${PW_KUBE_MINOR}
if [[ ${KUBE_VERSION} == "${PW_MAIN_VERSION}" ]]; then
  PW_IS_MAIN=1
else
  PW_IS_MAIN=
  # PW_ANY_VERSION=1: a script that only reads pristine trees of other releases
  # (hack/move-release.sh) skips the check below.
  if [[ -z ${PW_ANY_VERSION:-} ]]; then
    if [[ -f ${PW_MINORS_DIR}/${PW_KUBE_MINOR}/release ]]; then
      pw_release=$(head -n1 "${PW_MINORS_DIR}/${PW_KUBE_MINOR}/release")
      if [[ ${KUBE_VERSION} != "${pw_release}" ]]; then
        echo "!!! KUBE_VERSION=${KUBE_VERSION}: patches/${PW_KUBE_MINOR} is made for ${pw_release}; use KUBE_VERSION=${pw_release}, or move the series with hack/move-release.sh ${KUBE_VERSION}" >&2
        exit 1
      fi
    elif [[ ${PW_KUBE_MINOR} == "$(pw::minor_of "${PW_MAIN_VERSION}")" ]]; then
      echo "!!! KUBE_VERSION=${KUBE_VERSION}: the main line is on ${PW_MAIN_VERSION} (go.mod); use it, or move it with hack/move-release.sh ${KUBE_VERSION}" >&2
      exit 1
    else
      echo "!!! KUBE_VERSION=${KUBE_VERSION}: Kubernetes ${PW_KUBE_MINOR#v} is not supported; supported: $(pw::supported_versions | tr '\n' ' ')(docs/fork.md says how to add a minor)" >&2
      exit 1
    fi
  fi
fi
export KUBE_VERSION
# Staging modules (k8s.io/api, k8s.io/client-go, ...) are tagged v0.X.Y for kubernetes v1.X.Y.
KUBE_STAGING_VERSION="v0.${KUBE_VERSION#v1.}"
# "1", "36": what upstream's release builds stamp into gitMajor/gitMinor.
KUBE_MAJOR=${KUBE_VERSION#v}
KUBE_MAJOR=${KUBE_MAJOR%%.*}
KUBE_MINOR=${KUBE_VERSION#v*.}
KUBE_MINOR=${KUBE_MINOR%%.*}

# pw::version_of <release> [patch set]: the fork version series/versions gives
# <release>'s patch set (default: its series' as it is in patches/); fails when
# there is none.
pw::version_of() {
  local release=$1 sum=${2:-} v
  if [[ -z ${sum} ]]; then
    sum=$(pw::series_sum "$(pw::minor_of "${release}")" 2>/dev/null) || return 1
  fi
  v=$(awk -v r="${release}-probewheel." -v s="${sum}" '$1 !~ /^#/ && index($1, r) == 1 && $2 == s {print $1}' "${PW_VERSIONS}" 2>/dev/null)
  [[ -n ${v} ]] || return 1
  echo "${v}"
}
# pw::fork_version: KUBE_VERSION's fork version, for a script that builds or names a
# kubelet; dies when patches/ holds a patch set series/versions has no version for.
pw::fork_version() {
  pw::version_of "${KUBE_VERSION}" ||
    pw::die "patches/${PW_KUBE_MINOR} (patch set $(pw::series_sum "${PW_KUBE_MINOR}")) has no fork version in series/versions: run make patches, which gives it the next one"
}
# pw::assign_version <release> <patch set>: gives the patch set a fork version in
# series/versions unless it has one: the next number on its release after every one
# that HEAD's series/versions has used (a number once committed is never reused),
# replacing an uncommitted line of the release (an earlier make patches of the same
# uncommitted change). Prints the version.
pw::assign_version() {
  local release=$1 sum=$2 v committed n
  if v=$(pw::version_of "${release}" "${sum}"); then
    echo "${v}"
    return 0
  fi
  # The lines to keep: all but the release's uncommitted ones ("-" marks a version
  # of several builds, which stays whatever HEAD has).
  # Without make patches' private index and object store (update-patches.sh exports them):
  # HEAD and its objects are this repository's.
  committed=$(env -u GIT_INDEX_FILE -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES \
    git -C "$(dirname "${PW_VERSIONS}")" show "HEAD:./$(basename "${PW_VERSIONS}")" 2>/dev/null || true)
  touch "${PW_VERSIONS}"
  awk -v r="${release}-probewheel." -v c="${committed}" '
    BEGIN { k = split(c, lines, "\n"); for (i = 1; i <= k; i++) keep[lines[i]] = 1 }
    $0 ~ /^#/ || index($1, r) != 1 || $2 == "-" || ($0 in keep)' "${PW_VERSIONS}" >"${PW_VERSIONS}.tmp"
  n=$(awk -v r="${release}-probewheel." '$1 !~ /^#/ && index($1, r) == 1 {n = substr($1, length(r) + 1) + 0; if (n > max) max = n} END {print max + 1}' "${PW_VERSIONS}.tmp")
  v=${release}-probewheel.${n}
  echo "${v} ${sum}" >>"${PW_VERSIONS}.tmp"
  mv "${PW_VERSIONS}.tmp" "${PW_VERSIONS}"
  pw::log "series/versions: ${v} is patch set ${sum}"
  echo "${v}"
}
# The fork versions: series/versions gives each patch set of a release its own
# "<release>-probewheel.<N>", one line "<fork version> <patch set>" each (the patch
# set as pw::series_sum names it). make patches writes it (pw::assign_version), make
# test checks it (hack/versions.sh --check); nobody edits it. A script that builds or
# names a kubelet asks pw::fork_version, which says why when there is none; it is
# looked up when asked (a sum of the series), not whenever lib.sh is sourced.
PW_VERSIONS=${PW_VERSIONS:-${PW_ROOT}/series/versions}

PW_OUTPUT=${PW_OUTPUT:-${PW_ROOT}/_output}
# Overridable so tests running in a scratch copy can share the imported trees.
PW_PRISTINE_GIT=${PW_PRISTINE_GIT:-${PW_OUTPUT}/pristine/kubernetes.git}
# Binaries of another release than the main line's go to a directory of their own.
if [[ -n ${PW_IS_MAIN} ]]; then
  PW_BIN=${PW_OUTPUT}/bin
else
  PW_BIN=${PW_OUTPUT}/bin/${KUBE_VERSION}
fi
# Upstream fixes carried ahead of the release that has them (cherry-picks of
# merged kubernetes PRs), one git format-patch file each, applied in name
# order before pkg/: the first patches of the series, so that a fork can take
# them alone.
PW_PICKS_DIR=${PW_ROOT}/series/picks
# The series by concept that follows the picks (see pw::series_dirs); what no
# commit there takes goes into one commit per directory after it.
PW_SERIES_DIR=${PW_ROOT}/series
PW_MODULE=$(awk '$1 == "module" {print $2; exit}' "${PW_ROOT}/go.mod")
PW_UPSTREAM_MODULE=k8s.io/kubernetes
# Everything under this directory goes into the first patch; every other
# directory under pkg/ gets a small patch of its own.
PW_PRIMARY_DIR=pkg/kubelet/prober
# Marks a partial copy of an upstream file that only compiles inside the
# kubernetes tree; stripped (with the blank line after it) when exported.
# `ignore` keeps the file out of `go mod tidy` too, which otherwise enables
# every custom build tag and would pull the overlay's imports (cadvisor, ...)
# into our go.mod. The bare form is accepted, with a warning.
PW_OVERLAY_TAG='//go:build ignore && probewheel_overlay'
PW_OVERLAY_TAG_BARE='//go:build probewheel_overlay'
# The build tag under which pkg/ builds as the kubernetes tree has it: a file
# that exists only in the probewheel module carries the constraint
# PW_MODULE_ONLY_LINE before `package`, so that `go list -tags
# ${PW_EXPORT_TAG}` leaves it out as the export does (a stand-in for something
# the patched tree has, such as pkg/features/module_shim.go, the AfterFunc arm
# the benchmarks measure, tests that read the repository's docs).
PW_EXPORT_TAG=probewheel_export
PW_MODULE_ONLY_LINE="//go:build !${PW_EXPORT_TAG}"

# Fixed identity and dates: the same pkg/ must always produce byte-identical
# patches/ (and the same commit ids in the build tree), whoever runs it, whenever.
PW_PATCH_AUTHOR_NAME='probewheel maintainers'
PW_PATCH_AUTHOR_EMAIL='maintainers@probewheel.invalid'
PW_PATCH_DATE='2026-01-01T00:00:00+0000'
PW_BUILD_DATE='2026-01-01T00:00:00Z' # the same instant, in buildDate's format

# Make every git call independent of the caller's ~/.gitconfig and /etc/gitconfig
# (signing, diff.noprefix, format.signature, ... would change the output).
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=${PW_PATCH_AUTHOR_NAME} GIT_AUTHOR_EMAIL=${PW_PATCH_AUTHOR_EMAIL}
export GIT_COMMITTER_NAME=${PW_PATCH_AUTHOR_NAME} GIT_COMMITTER_EMAIL=${PW_PATCH_AUTHOR_EMAIL}
export GIT_AUTHOR_DATE=${PW_PATCH_DATE} GIT_COMMITTER_DATE=${PW_PATCH_DATE}
# The pristine tree has no staging/ and we never want a go.work to leak in.
export GOWORK=off

pw::log() { echo "+++ $*" >&2; }

# pw::version_ldflags <gitVersion>: the -X flags that stamp a binary built in
# the current tree the way upstream's hack/lib/version.sh does, for both
# packages that carry a version (`<binary> --version` prints "Kubernetes
# <gitVersion>"; kubectl refuses to parse an unstamped server version).
pw::version_ldflags() {
  local version=$1 commit pkg kv ldflags=""
  commit=$(git rev-parse HEAD)
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    for kv in "gitVersion=${version}" "gitMajor=${KUBE_MAJOR}" "gitMinor=${KUBE_MINOR}" \
      "gitCommit=${commit}" "gitTreeState=clean" "buildDate=${PW_BUILD_DATE}"; do
      ldflags+="-X '${pkg}.${kv}' "
    done
  done
  echo "${ldflags}"
}
# The build tags of upstream's release builds (hack/lib/golang.sh).
PW_KUBELET_TAGS=selinux,notest,grpcnotrace
# pw::tree_go <go arguments>: go in a kubernetes tree (the current directory).
# With PW_RELEASE_GO=1 (release records), the Go upstream builds the release
# with, which its .go-version names, through GOTOOLCHAIN from the module proxy;
# so too for a release whose go.mod needs a newer Go than the host's (1.38 needs
# Go 1.27, the host has 1.26), which the host's Go could not build at all.
pw::tree_go() {
  if [[ ${PW_RELEASE_GO:-} == 1 ]] || pw::go_too_old go.mod; then
    [[ -f .go-version ]] || pw::die "${PWD} has no .go-version to take the release's Go from"
    GOTOOLCHAIN=go$(<.go-version) go "$@"
  else
    # The host's Go, not the main line's (PW_MAIN_TOOLCHAIN), as before the main line needed one.
    GOTOOLCHAIN=local go "$@"
  fi
}
# pw::go_too_old <go.mod>: true when its go line names a newer Go than the host's.
pw::go_too_old() {
  local want have
  want=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$1" 2>/dev/null)
  have=$(GOTOOLCHAIN=local go env GOVERSION)
  have=${have#go}
  [[ -n ${want} && ${want} != "${have}" && $(printf '%s\n%s\n' "${want}" "${have}" | sort -V | tail -n1) == "${want}" ]]
}

# pw::stamped_go_build <out> <version> <ldflags> <inputs> <package> [go build flag...]
# builds <package> in the current directory as upstream's releases are built
# (-trimpath, stripped, tags PW_KUBELET_TAGS, <ldflags> from
# pw::version_ldflags) into <out>, unless <out>.stamp shows it was built from
# the same <inputs> (a digest of the tree), toolchain and flags; then checks
# that `<out> --version` prints "Kubernetes <version>".
pw::stamped_go_build() {
  local out=$1 version=$2 ldflags=$3 inputs=$4 pkg=$5 start=${SECONDS} want got
  shift 5
  # -mod=mod: the module zip ships an empty vendor/ and no go.sum lines for the
  # released staging modules; go fills them in from the proxy (checked against
  # sum.golang.org).
  local args=(-mod=mod -trimpath -buildvcs=false "-tags=${PW_KUBELET_TAGS}" "-ldflags=${ldflags}-s -w" "$@")
  want=$(printf '%s\n' "${inputs}" "$(pw::tree_go version)" \
    "$(pw::tree_go env CGO_ENABLED GOOS GOARCH GOAMD64 CC)" "${args[@]}" | sha256sum | cut -d' ' -f1)
  if [[ -x ${out} && -f ${out}.stamp && $(<"${out}.stamp") == "${want}" ]]; then
    echo "${out} is up to date ($("${out}" --version), $((SECONDS - start))s)"
    return 0
  fi
  pw::log "go build ${pkg} in ${PWD} (first build: several minutes)"
  mkdir -p "$(dirname "${out}")"
  rm -f "${out}.stamp"
  pw::tree_go build "${args[@]}" -o "${out}.tmp" "${pkg}"
  mv -f "${out}.tmp" "${out}"
  echo "${want}" >"${out}.stamp"
  got=$("${out}" --version)
  [[ ${got} == "Kubernetes ${version}" ]] || pw::die "${out} --version printed '${got}', want 'Kubernetes ${version}'"
  echo "built ${out}: ${got} ($((SECONDS - start))s)"
}

pw::die() {
  echo "!!! $*" >&2
  exit 1
}

# pw::flavor prints which tree a build/test script works on, from its arguments
# and KUBELET_FLAVOR: probewheel (pristine + patches/, the default) or stock
# (pristine; --stock or KUBELET_FLAVOR=stock, e.g. `make kubelet KUBELET_FLAVOR=stock`).
pw::flavor() {
  local flavor=${KUBELET_FLAVOR:-probewheel}
  case ${1:-} in
    "") ;;
    --stock) flavor=stock ;;
    *) pw::die "usage: ${0##*/} [--stock]" ;;
  esac
  [[ ${flavor} == probewheel || ${flavor} == stock ]] || pw::die "KUBELET_FLAVOR must be probewheel or stock"
  echo "${flavor}"
}

# pw::pgit runs git against the pristine repo.
pw::pgit() { git --git-dir="${PW_PRISTINE_GIT}" "$@"; }

# pw::module_dir prints the module cache directory of k8s.io/kubernetes@$1,
# downloading it through the module proxy if needed. Runs outside our module
# so that looking up another version never touches our go.mod/go.sum.
pw::module_dir() {
  local version=$1 json dir
  # GOTOOLCHAIN=auto: a release whose go.mod needs a newer Go than the host's (1.38's go
  # 1.27.0) is downloaded by that Go, itself fetched through the module proxy.
  json=$(cd / && GOTOOLCHAIN=auto GOFLAGS=-mod=mod go mod download -json "${PW_UPSTREAM_MODULE}@${version}" 2>&1) ||
    pw::die "go mod download ${PW_UPSTREAM_MODULE}@${version}: $(sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' <<<"${json}" | head -n1 | sed 's/\\n.*//') (is ${version} a release the module proxy has? supported: $(pw::supported_versions | tr '\n' ' '))"
  dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"${json}")
  [[ -n ${dir} && -d ${dir} ]] || pw::die "no module directory for ${PW_UPSTREAM_MODULE}@${version}: ${json}"
  echo "${dir}"
}

# pw::module_sum prints the h1: hash of the k8s.io/kubernetes@$1 module zip.
pw::module_sum() {
  (cd / && GOTOOLCHAIN=auto GOFLAGS=-mod=mod go mod download -json "${PW_UPSTREAM_MODULE}@$1") |
    sed -n 's/^[[:space:]]*"Sum": "\(.*\)",\{0,1\}$/\1/p'
}

# pw::pristine_ref prints the ref under which release $1 is imported.
pw::pristine_ref() { echo "refs/tags/pristine/${1:-${KUBE_VERSION}}"; }

# pw::ensure_pristine [version] imports the k8s.io/kubernetes module zip
# (the exact bytes `go mod download` verified against sum.golang.org) as one
# commit, once, and prints its commit id. Takes seconds once imported.
pw::ensure_pristine() {
  local version=${1:-${KUBE_VERSION}} ref commit
  ref=$(pw::pristine_ref "${version}")
  if commit=$(pw::pgit rev-parse -q --verify "${ref}^{commit}" 2>/dev/null); then
    echo "${commit}"
    return 0
  fi
  mkdir -p "$(dirname "${PW_PRISTINE_GIT}")"
  (
    # Serialise concurrent imports (make -j, verify racing build).
    exec 9>"${PW_PRISTINE_GIT}.lock"
    flock 9
    if pw::pgit rev-parse -q --verify "${ref}^{commit}" >/dev/null 2>&1; then
      exit 0
    fi
    if [[ ! -d ${PW_PRISTINE_GIT} ]]; then
      git init -q --bare "${PW_PRISTINE_GIT}"
      # Store files byte for byte: the in-tree .gitattributes (text=auto eol=lf)
      # must not normalise anything on import; info/attributes wins over it.
      printf '* -text\n' >"${PW_PRISTINE_GIT}/info/attributes"
    fi
    local moddir sum index tree
    moddir=$(pw::module_dir "${version}")
    sum=$(pw::module_sum "${version}")
    pw::log "importing pristine ${PW_UPSTREAM_MODULE}@${version} from ${moddir}"
    # A private index and the read-only module cache dir as work tree: no copy.
    index=$(mktemp "${PW_PRISTINE_GIT}/import-index.XXXXXX")
    rm -f "${index}"
    GIT_INDEX_FILE=${index} pw::pgit --work-tree="${moddir}" add -A -f .
    tree=$(GIT_INDEX_FILE=${index} pw::pgit write-tree)
    rm -f "${index}"
    commit=$(printf 'pristine %s %s\n\nThe Go module zip of %s@%s, imported verbatim\n(module sum %s). It has no staging/ and no vendor/.\n' \
      "${PW_UPSTREAM_MODULE}" "${version}" "${PW_UPSTREAM_MODULE}" "${version}" "${sum}" |
      pw::pgit commit-tree "${tree}")
    pw::pgit update-ref "${ref}" "${commit}"
  )
  pw::pgit rev-parse --verify "${ref}^{commit}"
}

# pw::package_dir <path>: the Go package directory a pkg/ file belongs to.
pw::package_dir() {
  if [[ $1 == */testdata/* ]]; then
    echo "${1%%/testdata/*}"
  else
    dirname "$1"
  fi
}

# pw::group_of <path>: which patch a pkg/ file goes into (its directory, or
# PW_PRIMARY_DIR for anything below that).
pw::group_of() {
  if [[ $1 == "${PW_PRIMARY_DIR}"/* ]]; then
    echo "${PW_PRIMARY_DIR}"
  else
    pw::package_dir "$1"
  fi
}

# pw::is_overlay <file>: the overlay build constraint appears before `package`.
pw::is_overlay() {
  awk -v tag="${PW_OVERLAY_TAG}" -v bare="${PW_OVERLAY_TAG_BARE}" '
    /^package[[:space:]]/ { exit }
    $0 == tag || $0 == bare { found = 1; exit }
    END { exit !found }' "$1"
}

# pw::is_module_only <file>: the module-only constraint appears before `package`.
pw::is_module_only() {
  awk -v line="${PW_MODULE_ONLY_LINE}" '
    /^package[[:space:]]/ { exit }
    $0 == line { found = 1; exit }
    END { exit !found }' "$1"
}

# pw::scan_pkg lists what pkg/ exports (see hack/update-patches.sh), module-only
# files left out:
#   PW_FILES      *.go files and testdata/ files, sorted, relative to PW_ROOT
#   PW_OURS       the same as a set
#   PW_OVERLAY    the set of overlay files
#   PW_FULL_DIRS  the set of directories mirrored fully (a non-overlay .go file)
pw::scan_pkg() {
  PW_FILES=()
  declare -gA PW_OURS=() PW_OVERLAY=() PW_FULL_DIRS=()
  if [[ -d ${PW_ROOT}/pkg ]]; then
    mapfile -t PW_FILES < <(cd "${PW_ROOT}" && find pkg -type f \( -name '*.go' -o -path '*/testdata/*' \) | LC_ALL=C sort)
  fi
  local f exported=()
  for f in "${PW_FILES[@]}"; do
    if [[ ${f} == *.go ]] && pw::is_module_only "${PW_ROOT}/${f}"; then
      continue
    fi
    exported+=("${f}")
  done
  PW_FILES=("${exported[@]}")
  for f in "${PW_FILES[@]}"; do
    PW_OURS[${f}]=1
    if [[ ${f} == *.go && ${f} != */testdata/* ]]; then
      if pw::is_overlay "${PW_ROOT}/${f}"; then
        PW_OVERLAY[${f}]=1
      else
        PW_FULL_DIRS[$(dirname "${f}")]=1
      fi
    fi
  done
}

# pw::series_dirs prints the commits of series/ in apply order: one
# directory each, NN-slug/, holding
#   message       the commit message (subject, blank line, body)
#   files         pkg/ paths this commit brings to their final version, one per
#                 line (# comments allowed); a line ending in / takes every file
#                 below that directory that no commit names one by one, and
#                 the deletions there (upstream files pkg/ does not have)
#   changes.patch optional `git diff` applied before the files: what this commit
#                 changes in files outside pkg/ (an overlay kept as its own lines)
#                 or in pkg/ files that a later commit finishes (an intermediate
#                 version). Kept by hand; hack/rebase-patches.sh rewrites it.
pw::series_dirs() {
  find "${PW_SERIES_DIR}" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*' -print 2>/dev/null | LC_ALL=C sort
}

# pw::series_plan (after pw::scan_pkg) sets PW_CLAIM[file]=series dir for every
# exported pkg/ file a series commit takes, and PW_CLAIM_DIR[dir]=series dir for
# directories taken whole (that commit carries the deletions below them). Dies on an entry that
# names no exported file or a file taken twice.
pw::series_plan() {
  declare -gA PW_CLAIM=() PW_CLAIM_DIR=()
  local sdir entry f n pass
  # Files named one by one first, in any commit; then the directories, each
  # taking what is left below it.
  for pass in files dirs; do
    while read -r sdir; do
      [[ -f ${sdir}/files ]] || continue
      while read -r entry; do
        entry=${entry%%#*}
        entry=${entry//[[:space:]]/}
        [[ -n ${entry} ]] || continue
        if [[ ${entry} == */ ]]; then
          [[ ${pass} == dirs ]] || continue
          n=0
          for f in "${PW_FILES[@]}"; do
            if [[ ${f} == "${entry}"* && -z ${PW_CLAIM[${f}]:-} ]]; then
              PW_CLAIM[${f}]=${sdir}
              n=$((n + 1))
            fi
          done
          [[ -z ${PW_CLAIM_DIR[${entry%/}]:-} ]] || pw::die "${sdir#"${PW_ROOT}/"}/files: ${entry} is taken whole twice"
          PW_CLAIM_DIR[${entry%/}]=${sdir}
          ((n > 0)) || pw::log "warning: ${sdir#"${PW_ROOT}/"}/files: ${entry} has no file left to take"
        elif [[ ${pass} == files ]]; then
          [[ -n ${PW_OURS[${entry}]:-} ]] || pw::die "${sdir#"${PW_ROOT}/"}/files: ${entry} is not an exported pkg/ file"
          [[ -z ${PW_CLAIM[${entry}]:-} ]] || pw::die "${sdir#"${PW_ROOT}/"}/files: ${entry} is taken by ${PW_CLAIM[${entry}]#"${PW_ROOT}/"} already"
          PW_CLAIM[${entry}]=${sdir}
        fi
      done <"${sdir}/files"
    done < <(pw::series_dirs)
  done
}

# pw::pick_files prints series/picks/*.patch in apply order.
pw::pick_files() { pw::patch_files "${PW_PICKS_DIR}"; }

# How every series file is written (git format-patch <these> ...): nothing in
# the output depends on commit ids, the git version or the repo's abbreviation
# length, so the same commits always give byte-identical files.
PW_FORMAT_PATCH_ARGS=(-q --zero-commit --no-signature --full-index --no-renames --diff-algorithm=myers)

# pw::patch_subject <file>: the Subject of a git format-patch file.
pw::patch_subject() { git mailinfo /dev/null /dev/null <"$1" | sed -n 's/^Subject: //p'; }

# pw::machine: this machine as a recorded result names it, "<CPU model>, <n> cores".
pw::machine() { echo "$(sed -n '/^model name[[:space:]]*: /{s///p;q}' /proc/cpuinfo), $(nproc) cores"; }

# pw::patch_name <patch file>: its name without the NNNN- number and .patch (a
# fixup's name: series/minors/v1.Y/fixups/<name>.patch).
pw::patch_name() {
  local n=${1##*/}
  n=${n#[0-9][0-9][0-9][0-9]-}
  echo "${n%.patch}"
}
# pw::scratch_repo <dir> <commit> [objects dir...]: a fresh repository at <dir>
# checked out at <commit>, borrowing the pristine objects (and those given).
pw::scratch_repo() {
  local dir=$1 commit=$2
  shift 2
  rm -rf "${dir}"
  mkdir -p "${dir}"
  git init -q "${dir}"
  printf '%s\n' "${PW_PRISTINE_GIT}/objects" "$@" >"${dir}/.git/objects/info/alternates"
  git -C "${dir}" checkout -q --detach "${commit}"
}
# pw::patch_files prints patches/*.patch (or those of dir $1) in apply order.
pw::patch_files() {
  local dir=${1:-${PW_PATCHES_DIR}}
  find "${dir}" -maxdepth 1 -type f -name '*.patch' -print 2>/dev/null | LC_ALL=C sort
}

# pw::series_sum <v1.minor> [patches dir]: the first 12 hex digits of the
# sha256 of that series' patch files (under patches/, or the directory given),
# in apply order: what a recorded result names as the patch set it checked.
pw::series_sum() { pw::dir_sum "${2:-${PW_PATCHES_ROOT}}/$1"; }
# pw::dir_sum <dir>: the same sum of the series in <dir> (a generator's output).
pw::dir_sum() {
  local -a files
  mapfile -t files < <(pw::patch_files "$1")
  ((${#files[@]} > 0)) || pw::die "${1#"${PW_ROOT}/"} has no patches"
  cat "${files[@]}" | sha256sum | cut -c1-12
}
# pw::generated_version <release> <dir>: the fork version of the series a generator
# wrote to <dir>: into patches/ (make patches) it assigns one; elsewhere (a check's
# regeneration) it only looks it up, and a patch set with none gets a name that no
# committed README has, so the check's diff fails with what to run.
pw::generated_version() {
  local release=$1 dir=$2 sum
  sum=$(pw::dir_sum "${dir}")
  if [[ ${dir} == "${PW_PATCHES_ROOT}/$(pw::minor_of "${release}")" ]]; then
    pw::assign_version "${release}" "${sum}"
  else
    pw::version_of "${release}" "${sum}" || echo "${release}-probewheel.NONE-patch-set-${sum}-has-no-version-run-make-patches"
  fi
}

# The folders runs write their results to: a run's own output, or another's,
# is not a change to the code it measures.
PW_RESULTS_EXCLUDE=(':!bench/results' ':!bench/hollow/results' ':!e2e/results')

# pw::uncommitted <path>...: the uncommitted changes under <path>, untracked
# files included, as `git status --porcelain` lists them (a change of stat
# only is none); results folders are left out.
pw::uncommitted() {
  git -C "${PW_ROOT}" status --porcelain -- "$@" "${PW_RESULTS_EXCLUDE[@]}"
}

# pw::dirty_suffix <path>...: nothing when <path> are committed, else the mark
# every record of a run or a check carries: " + uncommitted changes in <path>
# (not citable)". make verify-figures refuses a page's link to a result whose
# record carries it (bench/resultsindex, NotCitable).
pw::dirty_suffix() {
  [[ -z $(pw::uncommitted "$@") ]] || echo " + uncommitted changes in $* (not citable)"
}

# pw::run_stamp <path>...: the code a result measured, as its run record names
# it: "commit <short hash>[<pw::dirty_suffix>], patch set <main line's series
# sum>"; the paths are those whose uncommitted changes would make the figures
# another code's.
pw::run_stamp() {
  echo "commit $(git -C "${PW_ROOT}" rev-parse --short HEAD)$(pw::dirty_suffix "$@"), patch set $(pw::series_sum "${PW_KUBE_MINOR}")"
}

# pw::require_committed <path>...: results are made from committed code only.
# Refuses (dies) when <path> have uncommitted changes (pw::uncommitted),
# unless PROBEWHEEL_DIRTY_OK=1: then it warns, and the record carries
# pw::dirty_suffix's mark.
pw::require_committed() {
  local changes
  changes=$(pw::uncommitted "$@")
  [[ -z ${changes} ]] && return 0
  if [[ ${PROBEWHEEL_DIRTY_OK:-} == 1 ]]; then
    pw::log "uncommitted changes in $* (PROBEWHEEL_DIRTY_OK=1): the record says so and is not citable"
    return 0
  fi
  pw::die "uncommitted changes in $*: commit them first, or set PROBEWHEEL_DIRTY_OK=1 for a record marked not citable
${changes}"
}

# pw::machine_record <mode> <path>...: machine.txt of a benchmark run, which
# measured <path>: the machine, its load, the commit and patch set
# (pw::run_stamp), the Go and Kubernetes versions and the benchmark's knobs.
pw::machine_record() {
  local mode=$1
  shift
  echo "date:        $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "mode:        ${mode}"
  echo "nproc:       $(nproc)"
  echo "memory:      $(awk '/^MemTotal:/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
  echo "cpu:         $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
  echo "go:          $(${GO:-go} version)"
  echo "kernel:      $(uname -srvm)"
  echo "loadavg:     $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "commit:      $(git -C "${PW_ROOT}" rev-parse --short HEAD)"
  echo "measured:    $(pw::run_stamp "$@")"
  echo "kubernetes:  ${PW_MAIN_VERSION}"
  echo "knobs:       $(env | grep '^PROBEWHEEL_BENCH_' | sort | tr '\n' ' ')"
  echo "nofile:      $(ulimit -Sn)/$(ulimit -Hn)"
  echo "ports:       $(tr '\t' '-' </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)"
}

# pw::tree_dir <flavor> prints the stable path of a build tree.
pw::tree_dir() { echo "${PW_OUTPUT}/src/kubernetes-${KUBE_VERSION}-$1"; }

# pw::prepare_tree <probewheel|stock> makes the build tree of the flavor ready
# and sets PW_TREE to its path: pristine $KUBE_VERSION, plus `git am
# patches/*.patch` for probewheel, with go.mod pointed at the released staging
# modules. The tree is redone only when its inputs (version, patches, this
# file) change, so a warm call takes a second. The caller keeps a shared lock
# on the tree until it exits: a build and a test run can share the tree, but
# nobody re-prepares it under a running build.
# Not to be called in $(...): the lock would die with the subshell.
pw::prepare_tree() {
  local flavor=$1 dir base stamp want lockfd
  case ${flavor} in probewheel | stock) ;; *) pw::die "unknown flavor ${flavor}" ;; esac
  dir=$(pw::tree_dir "${flavor}")
  base=$(pw::ensure_pristine "${KUBE_VERSION}")
  want=$(
    {
      echo "${flavor} ${KUBE_VERSION} $(pw::version_of "${KUBE_VERSION}" || true) ${base}"
      cat "${PW_ROOT}/hack/lib.sh"
      pw::substitutes_file | xargs -r cat
      if [[ ${flavor} == probewheel ]]; then
        local p
        while read -r p; do
          cat "${p}"
        done < <(pw::patch_files "${PW_PATCHES_DIR}")
      fi
    } | sha256sum | cut -d' ' -f1
  )
  stamp=${dir}/.git/probewheel-stamp
  mkdir -p "$(dirname "${dir}")"
  exec {lockfd}>"${dir}.lock"
  PW_TREE_LOCK_FD=${lockfd}
  flock -s "${lockfd}"
  if [[ -f ${stamp} && $(<"${stamp}") == "${want}" ]]; then
    PW_TREE=${dir}
    return 0
  fi
  flock -u "${lockfd}"
  flock -x "${lockfd}"
  if [[ ! -f ${stamp} || $(<"${stamp}") != "${want}" ]]; then
    pw::log "preparing ${flavor} tree ${dir}"
    (
      rm -f "${stamp}"
      if [[ ! -d ${dir}/.git ]]; then
        rm -rf "${dir}"
        # --shared: borrow the pristine objects instead of copying them.
        git clone -q --shared --no-checkout "${PW_PRISTINE_GIT}" "${dir}"
      fi
      cd "${dir}"
      git am --abort >/dev/null 2>&1 || true
      git checkout -q -f --detach "${base}"
      git clean -q -ffdx
      if [[ ${flavor} == probewheel ]]; then
        local -a patches
        mapfile -t patches < <(pw::patch_files "${PW_PATCHES_DIR}")
        if ((${#patches[@]} > 0)); then
          # --committer-date-is-author-date: with the fixed dates above the
          # resulting commit ids (stamped as gitCommit) are reproducible.
          git am -q --committer-date-is-author-date "${patches[@]}" || {
            git am --abort >/dev/null 2>&1 || true
            pw::die "${PW_PATCHES_DIR#"${PW_ROOT}/"} does not apply to pristine ${KUBE_VERSION}: run make verify-patches, which says what to regenerate"
          }
        fi
      fi
      pw::use_released_staging go.mod
      pw::substitute
      # go.work lists ./staging/src/... which the module zip does not have.
      rm -f go.work go.work.sum
      echo "${want}" >"${stamp}"
    )
  fi
  flock -s "${lockfd}"
  PW_TREE=${dir}
}

# pw::release_tree lets go of the shared lock pw::prepare_tree took, for a
# caller that no longer reads the tree (it copied what it needs).
pw::release_tree() {
  if [[ -n ${PW_TREE_LOCK_FD:-} ]]; then
    exec {PW_TREE_LOCK_FD}>&-
    PW_TREE_LOCK_FD=
  fi
}

# pw::wait <seconds> <what> <command...>: polls the command every 0.2 s until it succeeds; after
# <seconds> it fails through ${PW_WAIT_FAIL:-pw::die} (kind-lib.sh's scripts name their step).
pw::wait() {
  local timeout=$1 what=$2 deadline
  shift 2
  deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || "${PW_WAIT_FAIL:-pw::die}" "timed out after ${timeout}s waiting for ${what}"
    sleep 0.2
  done
}

# pw::substitutes_file prints the path of KUBE_VERSION's substitutes, if it has any:
# series/minors/<minor>/substitutes (series/substitutes for the main line), for a
# release whose go.mod requires modules the Go module proxy does not serve (1.38's
# pre-releases: staging modules not yet published, a dependency whose zip it refuses).
pw::substitutes_file() {
  local f=${PW_MINORS_DIR}/${PW_KUBE_MINOR}/substitutes
  [[ -n ${PW_IS_MAIN} ]] && f=${PW_SERIES_DIR}/substitutes
  [[ ! -f ${f} ]] || echo "${f}"
}
# pw::substitutes: the substitutes' lines without comments and blank lines, or nothing.
pw::substitutes() {
  local f
  f=$(pw::substitutes_file)
  [[ -z ${f} ]] || sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${f}"
}
# pw::substitutes_line: what a record says of them, or nothing.
pw::substitutes_line() {
  local f
  f=$(pw::substitutes_file)
  [[ -n ${f} ]] || return 0
  echo "substitutes (${f#"${PW_ROOT}/"}, modules the module proxy does not serve): $(pw::substitutes | paste -sd ';' | sed 's/;/; /g')"
}
# pw::substitute, in a tree whose go.mod the staging rewrite made: each module of
# pw::substitutes_file, one a line, "<module> <instead>", <instead> being
#   vX.Y.Z               another version of it, which the proxy serves;
#   empty                a module with nothing in it: nothing built imports it, but
#                        go.mod requires it, and the go command reads every requirement;
#   from <release> <dir> <release>'s package tree <dir> as that module (a package that
#                        became a staging module), its imports of itself rewritten, its
#                        tests and examples left out;
#   none                 nothing: no version is served and no earlier code can stand in;
#                        what imports it is not built, and says so (pw::unbuilt).
pw::substitute() {
  local f mod what rel dir target
  f=$(pw::substitutes_file)
  [[ -n ${f} ]] || return 0
  while read -r mod what rel dir; do
    case ${what} in
      none) continue ;; # nothing in its place: what imports it does not build (pw::unbuilt)
      v*) target="${mod} ${what}" ;;
      empty | from)
        target=./_substitutes/${mod}
        mkdir -p "${target}"
        if [[ ${what} == from ]]; then
          cp -r "$(pw::module_dir "${rel}")/${dir}/." "${target}/"
          chmod -R u+w "${target}"
          rm -rf "${target}/examples"
          find "${target}" -name '*_test.go' -delete
          grep -rlF "${PW_UPSTREAM_MODULE}/${dir}" "${target}" | xargs -r sed -i "s#${PW_UPSTREAM_MODULE}/${dir}#${mod}#g"
        fi
        printf 'module %s\n\ngo 1.26\n' "${mod}" >"${target}/go.mod"
        ;;
      *) pw::die "${f#"${PW_ROOT}/"}: '${mod} ${what}': want a version, empty or from <release> <dir>" ;;
    esac
    pw::tree_go mod edit -dropreplace="${mod}" -replace="${mod}=${target/ /@}"
  done < <(pw::substitutes)
}

# pw::unbuilt <package>..., in a prepared tree: each package whose build (tests included)
# needs a module its substitutes mark "none" (no version served, nothing that could stand
# in), as "<package> <module>", one a line; nothing when every one builds.
pw::unbuilt() {
  local mods p m
  mods=$(pw::substitutes | awk '$2 == "none" {print $1}')
  [[ -n ${mods} ]] || return 0
  for p in "$@"; do
    m=$(pw::tree_go list -e -mod=mod -deps -test "-tags=${PW_KUBELET_TAGS}" "${p}" 2>/dev/null |
      grep -oFf <(sed 's#$#/#' <<<"${mods}") | head -n1 || true)
    [[ -z ${m} ]] || echo "${p} ${m%/}"
  done
}

# pw::use_released_staging <go.mod> rewrites the replace directives
# `k8s.io/X => ./staging/src/k8s.io/X` to the released `k8s.io/X v0.Y.Z`: the
# module zip does not contain staging/, the module proxy has every staging
# module at the matching v0.Y.Z tag.
pw::use_released_staging() {
  local gomod=$1
  sed -E -i "s#^([[:space:]]*)(k8s\.io/[^[:space:]]+)[[:space:]]+=>[[:space:]]+\./staging/src/k8s\.io/[^[:space:]]+[[:space:]]*\$#\1\2 => \2 ${KUBE_STAGING_VERSION}#" "${gomod}"
  if grep -q '=> \./staging/' "${gomod}"; then
    pw::die "${gomod}: unexpected staging replace left after rewrite"
  fi
}
