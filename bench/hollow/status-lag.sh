#!/usr/bin/env bash
# bench/hollow/status-lag.sh RESULTS_DIR [LOGS_DIR] — how far each hollow kubelet's status writes
# lagged behind its readiness results, from the kubelets' logs a hack/scale-bench.sh run kept
# (LOGS_DIR, by default _output/scale/logs/<run>/: kept for runs with a lost or extra flip). The
# logs must be at -v=3 or more (SCALE_PWSCALE_ARGS=-kubelet-v=3), where the status manager logs
# each write with the status it wrote.
#
# A flip is a readiness "SyncLoop (probe)" line that changes the pod's readiness, counted once the
# pod has been written Ready (its start-up is not a flip); a shown change, a status write ("Status
# for pod updated successfully") whose Ready condition differs from the pod's last write. They
# pair as pwscale pairs the targets' due flips with the API server's changes (matchFlips): flip i
# with the first unpaired change the same way at or after it and before flip i+2. Lag: from a
# flip to its change; lost: a flip left unpaired (the status manager writes a pod's latest
# status, so a spell that ends before its write never shows). Writes: all status writes in the
# log; the median gap between two in a row is the status manager's pace while it has a backlog
# (a GET and a PATCH per write under kubeAPIQPS). Writes RESULTS_DIR/status-lag.txt, a table a
# page can cite; the logs stay out of git.
set -euo pipefail
dir=${1:?usage: bench/hollow/status-lag.sh RESULTS_DIR [LOGS_DIR]}
root=$(cd "$(dirname "$0")/../.." && pwd)
logs=${2:-${root}/_output/scale/logs/$(basename "${dir}")}
compgen -G "${logs}/*/*.log.gz" >/dev/null || { echo "no kept kubelet logs under ${logs}" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT

# One log on stdin -> one table row (without its name).
lag() {
  awk '
    # klog stamps carry no date: a stamp far below the last one is the next day.
    function secs(s,   a, v) {
      split(s, a, ":"); v = a[1] * 3600 + a[2] * 60 + a[3] + day
      if (v < prevsecs - 43200) { day += 86400; v += 86400 }
      prevsecs = v; return v
    }
    function field(line, key,   i, rest) {
      i = index(line, key "=\""); if (!i) return ""
      rest = substr(line, i + length(key) + 2); return substr(rest, 1, index(rest, "\"") - 1)
    }
    /"SyncLoop \(probe\)" probe="readiness"/ {
      pod = field($0, "pod"); r = (field($0, "status") == "ready")
      if ((pod in last) && last[pod] == r) next
      last[pod] = r
      if (pod in armed) { flips++; due[pod] = due[pod] " " secs($2) ":" r }
      next
    }
    /"Status for pod updated successfully"/ {
      t = secs($2); if (writes++) gaps[writes - 1] = t - prev; prev = t
      pod = field($0, "pod"); i = index($0, "{\"type\":\"Ready\""); if (!i) next
      rest = substr($0, i); j = index(rest, "\"status\":\""); if (!j) next
      r = (substr(rest, j + 10, 4) == "True")
      if (!(pod in armed)) { if (r) { armed[pod] = 1; last[pod] = 1; shown_r[pod] = 1 }; next }
      if (shown_r[pod] != r) { shown_r[pod] = r; shown[pod] = shown[pod] " " t ":" r }
    }
    END {
      # pwscale'"'"'s matchFlips on each pod: flip i pairs with the first unpaired shown change
      # the same way, at or after it and before flip i+2.
      for (pod in due) {
        nd = split(due[pod], d, " "); ns = split(shown[pod], sh, " "); k0 = 1
        for (i = 1; i <= nd; i++) {
          split(d[i], di, ":"); stop = 1e9; if (i + 2 <= nd) { split(d[i + 2], dn, ":"); stop = dn[1] }
          for (k = k0; k <= ns; k++) {
            split(sh[k], sk, ":"); if (sk[1] + 0 >= stop + 0) break
            if (sk[2] == di[2] && sk[1] + 0 >= di[1] + 0) { lags[++n] = sk[1] - di[1]; k0 = k + 1; break }
          }
        }
      }
      if (!n) { print "no flip written (is the log at -v=3?)" >"/dev/stderr"; exit 1 }
      for (i = 1; i <= n; i++) print lags[i] >lagf
      for (i = 1; i < writes; i++) print gaps[i] >gapf
      print flips, n, flips - n, writes
    }' lagf="${tmp}/lags" gapf="${tmp}/gaps" >"${tmp}/counts"
  sort -g "${tmp}/lags" -o "${tmp}/lags"
  sort -g "${tmp}/gaps" -o "${tmp}/gaps"
  read -r flips n lost writes <"${tmp}/counts"
  # q FILE P: the P quantile of a sorted file of COUNT lines (nearest rank)
  q() { awk -v p="$2" -v c="$3" 'NR == (int(p * c) + 1 > c ? c : int(p * c) + 1) { print; exit }' "$1"; }
  printf '%6d %8d %6d %8.1f %8.1f %8.1f %8.1f %7d %10.1f\n' "${flips}" "${n}" "${lost}" \
    "$(q "${tmp}/lags" 0.5 "${n}")" "$(q "${tmp}/lags" 0.9 "${n}")" "$(q "${tmp}/lags" 0.99 "${n}")" \
    "$(tail -1 "${tmp}/lags")" "${writes}" "$(awk -v g="$(q "${tmp}/gaps" 0.5 "$((writes - 1))")" 'BEGIN { print g * 1000 }')"
}
{
  echo "# Status write lag behind readiness results (bench/hollow/status-lag.sh; logs in ${logs#"${root}/"}/)"
  echo
  printf '%-52s %6s %8s %6s %8s %8s %8s %8s %7s %10s\n' log flips written lost 'p50 s' 'p90 s' 'p99 s' 'max s' writes 'gap p50 ms'
  for f in "${logs}"/*/*.log.gz; do
    printf '%-52s %s\n' "${f#"${logs}/"}" "$(gzip -dc "${f}" | lag)"
  done
} >"${dir}/status-lag.txt"
cat "${dir}/status-lag.txt"
