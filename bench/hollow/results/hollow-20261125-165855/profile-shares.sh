#!/usr/bin/env bash
# The share of each run's CPU profile (node 0, 10 s after the window) in the prober's path, the
# probe handlers, the garbage collector's background marking and goroutine stack growth:
# `go tool pprof -top -focus=<frames>` ("Showing nodes accounting for ..., N% of ... total").
# Run from this directory: bash profile-shares.sh > profile-shares.txt
set -euo pipefail
pct() { go tool pprof -top -focus="$1" "$2" 2>/dev/null |
  awk '/Showing nodes accounting/{for(i=1;i<=NF;i++) if($i ~ /%$/ && $(i+1)=="of"){print $i; exit}}'; }
printf '%-45s %8s %9s %6s %9s\n' profile prober handlers gc newstack
for f in runs/*/stock-?.cpu.pprof runs/*/probewheel-?.cpu.pprof; do
  printf '%-45s %8s %9s %6s %9s\n' "${f}" \
    "$(pct 'prober\.\(\*(worker|executors|scheduler)\)' "${f}")" \
    "$(pct 'prober\.\(\*prober\)\.runProbe$' "${f}")" \
    "$(pct 'runtime\.gcBgMarkWorker' "${f}")" \
    "$(pct 'runtime\.newstack' "${f}")"
done
