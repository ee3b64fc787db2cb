#!/usr/bin/env bash
# Where a TCP probe run's extra CPU goes at 110 pods (220 probes every 1 s), upstream vs
# probewheel: one Steady cell per arm with a 20 s window, measured three ways from outside the
# process while it runs (root, perf and strace installed):
#   cpu      perf record -F 499 -g for 10 s: CPU by Go call path (cpu_split.py), µs per run
#   wakeups  perf record of every futex and epoll_pwait call for 10 s, by runtime path (wakeups.py)
#   netpoll  GOMAXPROCS=1, strace -f -tt of epoll_pwait/connect/futex/nanosleep for 1 s (netpoll.py)
#   trace    a runtime trace of a 5 s window (-test.trace): goroutine and P wake-ups (trace.py)
# Run from the repository's root: bench/results/20261125-110pods-handlers/diagnosis/diagnose.sh
# Writes <arm>-*.txt here; the perf data and traces stay in _output/diagnosis.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scratch=${PWD}/_output/diagnosis
mkdir -p "${scratch}"
go test -c -o "${scratch}/bench.test" ./bench
cell() { # cell <arm> <tool command...>: the arm's Steady cell, the tool attached 8 s in
  local arm=$1
  shift
  PROBEWHEEL_BENCH_SET=full PROBEWHEEL_BENCH_PERIODS=20 PROBEWHEEL_BENCH_WARMUP=1s \
    PROBEWHEEL_BENCH_MAX_WINDOW=20s PROBEWHEEL_BENCH_IMPLS=${arm} "${scratch}/bench.test" -test.run '^$' \
    -test.bench "Steady/handler=tcp/pods=110/period=1s/impl=${arm}\$" -test.benchtime 1x -test.timeout 0 \
    >"${scratch}/${arm}.out" 2>&1 &
  local pid=$!
  sleep 8
  "${@//PID/${pid}}" >/dev/null 2>&1 || true
  wait "${pid}"
  grep '^Benchmark' "${scratch}/${arm}.out" | tr -s ' \t' ' '
}
runs10() { awk '{for (i = 1; i <= NF; i++) if ($(i) == "runs/s") printf "%d", $(i-1) * 10}' <<<"$1"; }
for arm in upstream probewheel; do
  line=$(cell "${arm}" perf record -q -F 499 -g -p PID -o "${scratch}/${arm}-cpu.data" -- sleep 10)
  { echo "${line}"; python3 "${here}/cpu_split.py" "${scratch}/${arm}-cpu.data" "$(runs10 "${line}")" 499; } >"${here}/${arm}-cpu.txt"
  line=$(cell "${arm}" perf record -q -e syscalls:sys_enter_futex -e syscalls:sys_enter_epoll_pwait -g -p PID -o "${scratch}/${arm}-wakeups.data" -- sleep 10)
  { echo "${line}"; python3 "${here}/wakeups.py" "${scratch}/${arm}-wakeups.data" "$(runs10 "${line}")"; } >"${here}/${arm}-wakeups.txt"
  export GOMAXPROCS=1
  line=$(cell "${arm}" timeout -s INT 1 strace -f -tt -e trace=epoll_pwait,connect,futex,nanosleep -p PID -o "${scratch}/${arm}-netpoll.strace")
  unset GOMAXPROCS
  { echo "${line}"; python3 "${here}/netpoll.py" "${scratch}/${arm}-netpoll.strace"; } >"${here}/${arm}-netpoll.txt"
  PROBEWHEEL_BENCH_SET=full PROBEWHEEL_BENCH_PERIODS=5 PROBEWHEEL_BENCH_WARMUP=1s PROBEWHEEL_BENCH_MAX_WINDOW=5s \
    PROBEWHEEL_BENCH_IMPLS=${arm} "${scratch}/bench.test" -test.run '^$' -test.trace "${scratch}/${arm}.trace" \
    -test.bench "Steady/handler=tcp/pods=110/period=1s/impl=${arm}\$" -test.benchtime 1x >"${scratch}/${arm}.out" 2>&1
  { grep '^Benchmark' "${scratch}/${arm}.out" | tr -s ' \t' ' '; python3 "${here}/trace.py" "${scratch}/${arm}.trace"; } >"${here}/${arm}-trace.txt"
done
tail -n +1 "${here}"/*-cpu.txt "${here}"/*-wakeups.txt "${here}"/*-netpoll.txt "${here}"/*-trace.txt
