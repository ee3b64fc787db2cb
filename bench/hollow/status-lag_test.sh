#!/usr/bin/env bash
# Tests bench/hollow/status-lag.sh on a made-up kubelet log (part of make scale-test): a pod
# written Ready, then a NotReady spell written in time (lags 2 s and 1 s), a spell that ends
# before its write (both flips lost, the write that follows changes nothing), and a NotReady
# written only after its Ready came (pwscale pairs it: late, not lost; lags 5 s and 2 s); the
# log crosses midnight.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT
mkdir -p "${tmp}/logs/run-stock-1" "${tmp}/results"
# at S seconds from 23:59:39.5, so the second spell's write comes after midnight
at() {
  local ms=$(((86379500 + $1 * 1000) % 86400000))
  printf '%02d:%02d:%02d.%03d' $((ms / 3600000)) $((ms / 60000 % 60)) $((ms / 1000 % 60)) $((ms % 1000))
}
probe() { echo "I1128 $(at "$1")   1 kubelet.go:2877] \"SyncLoop (probe)\" probe=\"readiness\" status=\"$2\" pod=\"ns/p\""; }
write() { echo "I1128 $(at "$1")   1 status_manager.go:1286] \"Status for pod updated successfully\" pod=\"ns/p\" statusVersion=1 status={\"conditions\":[{\"type\":\"Ready\",\"observedGeneration\":1,\"status\":\"$2\"}]}"; }
{
  probe 0 "not ready"; probe 1 ready; write 2 True
  probe 10 "not ready"; write 12 False; probe 20 ready; write 21 True
  probe 30 "not ready"; probe 35 ready; write 36 True
  probe 40 "not ready"; probe 44 ready; write 45 False; write 46 True
} | gzip >"${tmp}/logs/run-stock-1/node.log.gz"
"$(dirname "$0")/status-lag.sh" "${tmp}/results" "${tmp}/logs" >/dev/null
got=$(awk 'NR == 4 { $1 = ""; print }' "${tmp}/results/status-lag.txt")
# flips written lost p50 p90 p99 max writes gap-p50 (ms): lags 1, 2, 2, 5; gaps 10, 9, 15, 9, 1 s
want=' 6 4 2 2.0 5.0 5.0 5.0 6 9000.0'
if [[ $(echo ${got}) != $(echo ${want}) ]]; then
  echo "status-lag.sh: got '${got}', want '${want}'" >&2
  cat "${tmp}/results/status-lag.txt" >&2
  exit 1
fi
echo "ok   bench/hollow/status-lag.sh"
