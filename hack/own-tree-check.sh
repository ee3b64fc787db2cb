#!/usr/bin/env bash
# Checks (`make verify-own-tree`, part of `make ci`) that the README's own-tree
# commands, run as written on a clone-like tree of each supported release,
# give a kubelet that names the fork: upstream's build takes the version
# from `git describe`, which the README's tag makes v<release>-probewheel.<n>.
#
# The clone-like tree is pristine <release> (hack/lib.sh) with the tag a clone
# of kubernetes/kubernetes has (v<release>). The README's block between
# <!-- own-tree --> and <!-- /own-tree --> runs line by line with the
# release and the minor put in for the main line's, /path/to/probewheel
# replaced by this repository, and two lines run differently: `git clone`,
# which needs the network (the tree is made here instead, where the clone would put it), and `make
# WHAT=cmd/kubelet`, a full build of upstream's tree (hack/build-kubelet.sh
# builds the same sources), whose version stamp upstream's
# hack/print-workspace-status.sh prints from the same hack/lib/version.sh.
# The lines run with no git identity but the one they set, as on a reader's machine.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readme=${PW_ROOT}/README.md
block=$(sed -n '/^<!-- own-tree -->$/,/^<!-- \/own-tree -->$/p' "${readme}" | sed -n '/^```sh$/,/^```$/p' | sed '1d;$d')
[[ -n ${block} ]] || pw::die "README.md has no sh block between <!-- own-tree --> and <!-- /own-tree -->"
main=${PW_MAIN_VERSION}
main_fork=$(pw::fork_version)
grep -F "git tag ${main_fork}" <<<"${block}" >/dev/null ||
  pw::die "README.md's own-tree block does not tag the main line's fork version ${main_fork} (series/versions)"
grep -F "git checkout ${main}" <<<"${block}" >/dev/null || grep -F -- "--branch ${main}" <<<"${block}" >/dev/null ||
  pw::die "README.md's own-tree block does not start from the main line's release ${main}"

work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
failed=0
while read -r release; do
  minor=$(pw::minor_of "${release}")
  fork=$(KUBE_VERSION=${release} bash -c 'source "$1/hack/lib.sh" && pw::fork_version' _ "${PW_ROOT}")
  base=$(pw::ensure_pristine "${release}")
  tree=${work}/${release}/kubernetes
  git clone -q --shared --no-checkout "${PW_PRISTINE_GIT}" "${tree}"
  git -C "${tree}" checkout -q --detach "${base}"
  git -C "${tree}" tag "${release}" # what a clone of kubernetes/kubernetes has
  (
    cd "${tree}/.."
    # A reader's git: no identity but what the README's lines set (lib.sh exports one for
    # the series' own commits), so that git am fails here as it would there without it.
    unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL EMAIL
    export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
    while IFS= read -r line; do
      line=${line%%#*} # comments
      [[ -n ${line// /} ]] || continue
      line=${line//${main_fork}/${fork}} # each release's number is its own
      line=${line//${main}/${release}}
      line=${line//v${KUBE_MAJOR}.${KUBE_MINOR}/${minor}}
      line=${line//\/path\/to\/probewheel/${PW_ROOT}}
      case ${line} in
        *"git clone"*) ;; # the tree is made above, at ${tree}
        *"make WHAT=cmd/kubelet"*) bash hack/print-workspace-status.sh >"${work}/${release}.status" ;;
        *) eval "${line}" >/dev/null ;;
      esac
    done <<<"${block}"
  )
  got=$(sed -n 's/^gitVersion //p' "${work}/${release}.status")
  if [[ ${got} == "${fork}" ]]; then
    echo "own-tree: ${release}: the README's commands give ${got}"
  else
    echo "!!! own-tree: ${release}: the README's commands give '${got}', want ${fork}" >&2
    failed=1
  fi
done < <(pw::supported_versions)
exit "${failed}"
