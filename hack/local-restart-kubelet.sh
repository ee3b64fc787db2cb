#!/usr/bin/env bash
# Restarts the kubelet of the local e2e cluster (hack/local-up-cluster.sh) the
# way a node upgrade or a crash-looping kubelet does: SIGTERM by recorded PID,
# then the same command line again (kubelet.argv). Containers keep running;
# the new kubelet rebuilds its probe workers from the runtime and the API
# server, which is what the e2e kubelet-restart test checks.
#
#   hack/local-restart-kubelet.sh [--down SECONDS] [--feature-gates SPEC]
#
# --down: seconds between stop and start (default 0). --feature-gates
# Name=bool,...: the new kubelet runs with these gates (the command-line flag,
# which overrides the configuration file), and so do later restarts; an empty
# SPEC drops the flag again. E.g. --feature-gates ProbeTimerWheel=false to roll
# a node back to upstream's prober loop without a new binary.
#
# Prints "started <Unix seconds.microseconds>" when the new kubelet was started.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local-cluster-lib.sh"

down=0
gates=unchanged
while (($# > 0)); do
  case $1 in
    --down) down=${2:?--down needs seconds} && shift 2 ;;
    --feature-gates) gates=${2?--feature-gates needs Name=bool,... (or "" to drop them)} && shift 2 ;;
    *) pw::die "usage: ${0##*/} [--down SECONDS] [--feature-gates Name=bool,...]" ;;
  esac
done
[[ -f ${PW_CLUSTER_DIR}/kubelet.argv ]] || pw::die "no cluster in ${PW_CLUSTER_DIR} (run hack/local-up-cluster.sh)"
pw::cluster_pid kubelet >/dev/null || pw::die "the kubelet of ${PW_CLUSTER_DIR} is not running"
mapfile -t argv <"${PW_CLUSTER_DIR}/kubelet.argv"
if [[ ${gates} != unchanged ]]; then
  kept=()
  for a in "${argv[@]}"; do
    [[ ${a} == --feature-gates=* ]] || kept+=("${a}")
  done
  argv=("${kept[@]}")
  if [[ -n ${gates} ]]; then
    argv+=("--feature-gates=${gates}")
  fi
  printf '%s\n' "${argv[@]}" >"${PW_CLUSTER_DIR}/kubelet.argv"
fi

pw::cluster_stop kubelet
sleep "${down}"
started=${EPOCHREALTIME}
pw::cluster_start kubelet "${argv[@]}"
# Healthy once its own /healthz answers (the node object may still say Ready
# from before: the node lease outlives a short restart).
port=10248
pw::wait 60 "kubelet /healthz" curl -sf "http://127.0.0.1:${port}/healthz"
pw::log "kubelet restarted (pid $(pw::cluster_pid kubelet))"
# For callers (e2e/restart_test.go): when the new process was started.
echo "started ${started}"
