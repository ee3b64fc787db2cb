#!/usr/bin/env bash
# Prints the host PID of a kind node's kubelet (the node containers share the
# host's kernel: its CPU time and RSS are in the host's /proc). The density
# test reads them there (e2e/density_test.go, PW_KUBELET_PID_CMD).
#
#   hack/kind-kubelet-pid.sh [<node>]    (node: $PW_NODE_NAME)
set -euo pipefail
node=${1:-${PW_NODE_NAME:-}}
[[ -n ${node} ]] || { echo "usage: ${0##*/} <node>" >&2; exit 2; }
# systemd's MainPID is in the node's PID namespace; map it through NSpid.
inner=$(docker exec "${node}" systemctl show -p MainPID --value kubelet)
[[ ${inner} =~ ^[1-9][0-9]*$ ]] || { echo "kubelet not running on ${node} (MainPID '${inner}')" >&2; exit 1; }
init=$(docker inspect -f '{{.State.Pid}}' "${node}")
ns=$(readlink "/proc/${init}/ns/pid")
for s in /proc/[0-9]*/status; do
  p=${s#/proc/}
  p=${p%/status}
  [[ $(readlink "/proc/${p}/ns/pid" 2>/dev/null) == "${ns}" ]] || continue
  if awk -v want="${inner}" '/^NSpid:/ { found = ($NF == want) } END { exit !found }' "${s}" 2>/dev/null; then
    echo "${p}"
    exit 0
  fi
done
echo "no host process for the kubelet (pid ${inner}) of ${node}" >&2
exit 1
