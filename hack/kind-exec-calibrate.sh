#!/usr/bin/env bash
# Exec latency against execs in flight on a kind node's containerd: c loops, each running
# `crictl exec --sync --timeout 10 <container> /probetarget check readiness` (ExecSync, as an
# exec probe runs it) back to back for 20 s;
# prints c, execs done, mean latency, execs a second.
set -euo pipefail
node=$1 cid=$2
for c in 1 2 4 8 16; do
  docker exec "${node}" bash -c '
    c=$1 cid=$2 end=$((SECONDS+20))
    for i in $(seq "$c"); do
      ( n=0 t=0
        while (( SECONDS < end )); do
          s=$(date +%s%N); crictl exec --sync --timeout 10 "$cid" /probetarget check readiness >/dev/null 2>&1 || true
          e=$(date +%s%N); t=$((t + (e - s) / 1000000)); n=$((n + 1))
        done
        echo "$n $t" ) &
    done
    wait' _ "${c}" "${cid}" | awk -v c="${c}" '{n+=$1; t+=$2} END {printf "in flight %2d: %4d execs, mean %5.0f ms, %.1f execs/s\n", c, n, t/n, n/20}'
done
