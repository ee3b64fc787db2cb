#!/usr/bin/env bash
# hack/local-restart-kubelet.sh for a kind node: stops the node's kubelet,
# starts it again, and prints "started <Unix seconds.microseconds>" (when the
# new kubelet was started) once its /healthz answers. Containers keep
# running. e2e/restart_test.go runs it on kind (PW_KUBELET_RESTART_CMD).
#
#   hack/kind-restart-kubelet.sh [--down SECONDS] [--feature-gates SPEC] [<node>]    (node: $PW_NODE_NAME)
#
# --feature-gates Name=bool,...: as hack/local-restart-kubelet.sh's, the new
# kubelet runs with these gates on its command line (KUBELET_EXTRA_ARGS in the
# node's /etc/default/kubelet, which overrides the KubeletConfiguration), and
# so do later restarts; an empty SPEC drops the flag again.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/kind-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/kind-lib.sh"

down=0 node=${PW_NODE_NAME:-} gates=unchanged
while (($# > 0)); do
  case $1 in
    --down) down=${2:?--down needs seconds}; shift ;;
    --feature-gates) gates=${2?--feature-gates needs Name=bool,... (or "" to drop them)}; shift ;;
    -*) pw::die "usage: ${0##*/} [--down SECONDS] [--feature-gates Name=bool,...] [<node>]" ;;
    *) node=$1 ;;
  esac
  shift
done
[[ -n ${node} ]] || pw::die "no node: pass one or set PW_NODE_NAME"
[[ $(docker inspect -f '{{.State.Running}}' "${node}" 2>/dev/null) == true ]] || pw::die "node container ${node} is not running"

if [[ ${gates} != unchanged ]]; then
  pw::kind_set_feature_gates "${node}" "${gates}" >&2
fi
docker exec "${node}" systemctl stop kubelet
sleep "${down}"
started=${EPOCHREALTIME}
docker exec "${node}" systemctl start kubelet
pw::wait 60 "kubelet /healthz on ${node}" docker exec "${node}" curl -sf http://127.0.0.1:10248/healthz
pw::log "kubelet on ${node} restarted"
echo "started ${started}"
