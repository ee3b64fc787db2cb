#!/usr/bin/env bash
set -u
out=/tmp/ab/raw.txt; : > $out
export PROBEWHEEL_BENCH_SET=default PROBEWHEEL_BENCH_PERIODS=4 PROBEWHEEL_BENCH_WARMUP=1s PROBEWHEEL_BENCH_MAX_WINDOW=20s
for round in 1 2 3 4; do
  if (( round % 2 )); then order="old new"; else order="new old"; fi
  for arm in $order; do
    cd /work/main/bench
    PROBEWHEEL_BENCH_IMPLS=probewheel PROBEWHEEL_BENCH_ROUND="$round/4" /tmp/$arm.test -test.run '^$' -test.bench 'Steady/handler=exec/pods=10000/period=10s$' -test.benchtime 1x -test.count 1 -test.timeout 0 2>>/tmp/ab/progress.log | sed "s/impl=probewheel/impl=$arm/" >> $out
  done
done
echo done >> /tmp/ab/progress.log
