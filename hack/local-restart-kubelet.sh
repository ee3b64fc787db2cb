#!/usr/bin/env bash
# Restarts the kubelet of the local e2e cluster (hack/local-up-cluster.sh) the
# way a node upgrade or a crash-looping kubelet does: SIGTERM by recorded PID,
# then the same command line again (kubelet.argv). Containers keep running;
# the new kubelet rebuilds its probe workers from the runtime and the API
# server, which is what the e2e kubelet-restart test checks.
#
#   hack/local-restart-kubelet.sh [--down SECONDS]   (default 0: start again at once)
#
# Prints "started <Unix seconds.microseconds>" when the new kubelet was started.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local-cluster-lib.sh"

down=0
case ${1:-} in
  "") ;;
  --down) down=${2:?--down needs seconds} ;;
  *) pw::die "usage: ${0##*/} [--down SECONDS]" ;;
esac
[[ -f ${PW_CLUSTER_DIR}/kubelet.argv ]] || pw::die "no cluster in ${PW_CLUSTER_DIR} (run hack/local-up-cluster.sh)"
pw::cluster_pid kubelet >/dev/null || pw::die "the kubelet of ${PW_CLUSTER_DIR} is not running"
mapfile -t argv <"${PW_CLUSTER_DIR}/kubelet.argv"

pw::cluster_stop kubelet
sleep "${down}"
started=${EPOCHREALTIME}
pw::cluster_start kubelet "${argv[@]}"
# Healthy once its own /healthz answers (the node object may still say Ready
# from before: the node lease outlives a short restart).
port=10248
pw::cluster_wait 60 "kubelet /healthz" curl -sf "http://127.0.0.1:${port}/healthz"
pw::log "kubelet restarted (pid $(pw::cluster_pid kubelet))"
# For callers (e2e/restart_test.go): when the new process was started.
echo "started ${started}"
