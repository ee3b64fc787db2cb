#!/usr/bin/env bash
# scripts/bench.sh MODE — the density benchmarks: upstream's prober vs probewheel's,
# side by side (docs/benchmarks.md).
#
#   smoke    every benchmark once on tiny windows (~3 min incl. compile; part of `make test`)
#   default  a representative subset, 5 interleaved rounds (~105 min on 2 cores; `make bench`)
#   full     every workload, 5 interleaved rounds (~1.5-2 h on 2 cores; `make bench-full`)
#   capacity the capacity sweep: exec and HTTP probes at rising rates, 3 interleaved rounds
#            (~19 min on 2 cores);
#            capacity.md names each implementation's highest rate with a period-error p99
#            <= 5 ms and no missed run (bench/report capacity; `make capacity`)
#   profile  where the CPU of a run goes and what holds up the late ones, in the default
#            set's workloads that docs/design.md's targets miss: COUNT (2) interleaved rounds of
#            BENCH (exec at 1,000 pods @1 s and 10,000 @10 s, HTTP at 1,000 @1 s, gRPC at
#            1,000 @10 s) with a CPU profile of every window at 1,000 Hz and its intervals more
#            than 12 ms off (PROBEWHEEL_BENCH_LATE); shares.md splits each arm's CPU per run by
#            part (bench/report shares), late.txt says when the late intervals came
#            (bench/report late); the profiles stay in _output/bench/profiles/ (~20 min on 2 cores)
#
# Environment:
#   COUNT=n         rounds (default: smoke 1, default/full 5)
#   IMPLS=a,b,...   implementations, rotated each round (default upstream,probewheel,
#                   no-exec-limit,gate-off,afterfunc; profile: upstream,probewheel,afterfunc).
#                   no-exec-limit is probewheel with the ProbeExecLimit gate off, the control
#                   that shows what the exec limit costs where it does not bind; gate-off is
#                   probewheel's binary with the ProbeTimerWheel gate off, which runs upstream's
#                   loop and must match upstream within noise; afterfunc is the same workers on
#                   time.AfterFunc timers and a semaphore, the design docs/design.md compares
#                   probewheel's with
#   BENCH=regexp    -test.bench filter, e.g. 'Steady/handler=exec/pods=5000' (set: no BenchmarkMemory pass)
#   BENCH_OUT=dir   output directory (default: bench/results/<UTC date>-<mode>;
#                   smoke: _output/bench/<UTC date>-smoke)
#   PLOT=0          skip the plots (default/full run scripts/plot.sh at the end)
#   PROBEWHEEL_BENCH_*   harness knobs, see bench/config.go (mode values are only defaults)
#
# Each round runs the compiled benchmark binary once with -benchtime=1x; every workload
# runs the implementations back to back, and their order rotates by one each round
# (round 2 starts with the second of IMPLS), so that they are interleaved in time and
# none always runs first. Outputs in the results directory:
#   raw.txt        benchmark output of all rounds (benchstat input)
#   benchstat.txt  go tool benchstat -col /impl raw.txt
#   headline.md    upstream → probewheel per workload, medians and benchstat's significance
#                  (go run ./bench/report headline; not for capacity)
#   machine.txt    nproc, memory, CPU model, go version, kernel, commit
#   summaries/     per-probe period errors and restart timelines, condensed into histograms
#                  (default/full; the raw dumps stay in _output/bench/dumps/)
#   plots/         scripts/plot.sh output (default/full)
# and outside the tree, in _output/bench/logs/<results directory's name>/: progress.log,
# the harness's progress lines.
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/lib.sh

usage() { awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0" >&2; }
MODE=${1:-}
case "$MODE" in
smoke | default | full | capacity | profile) ;;
-h | --help | help) usage; exit 0 ;;
*) usage; exit 2 ;;
esac

GO=${GO:-go}
stamp=$(date -u +%Y%m%d-%H%M%S)
case "$MODE" in
smoke)
	: "${COUNT:=1}"
	: "${BENCH_OUT:=_output/bench/$stamp-smoke}"
	: "${PROBEWHEEL_BENCH_PERIODS:=1}"
	: "${PROBEWHEEL_BENCH_WARMUP:=200ms}"
	: "${PROBEWHEEL_BENCH_MAX_WINDOW:=1s}"
	;;
default)
	: "${COUNT:=5}"
	: "${BENCH_OUT:=bench/results/$stamp-default}"
	: "${PROBEWHEEL_BENCH_PERIODS:=4}"
	: "${PROBEWHEEL_BENCH_WARMUP:=1s}"
	: "${PROBEWHEEL_BENCH_MAX_WINDOW:=20s}"
	;;
full)
	: "${COUNT:=5}"
	: "${BENCH_OUT:=bench/results/$stamp-full}"
	: "${PROBEWHEEL_BENCH_PERIODS:=5}"
	: "${PROBEWHEEL_BENCH_WARMUP:=1s}"
	: "${PROBEWHEEL_BENCH_MAX_WINDOW:=30s}"
	;;
capacity)
	: "${COUNT:=3}"
	: "${BENCH_OUT:=bench/results/$stamp-capacity}"
	: "${PROBEWHEEL_BENCH_PERIODS:=4}"
	: "${PROBEWHEEL_BENCH_WARMUP:=1s}"
	: "${PROBEWHEEL_BENCH_MAX_WINDOW:=20s}"
	: "${BENCH:=^BenchmarkSteady$}"
	;;
profile)
	: "${COUNT:=2}"
	: "${BENCH_OUT:=bench/results/$stamp-profile}"
	: "${PROBEWHEEL_BENCH_PERIODS:=4}"
	: "${PROBEWHEEL_BENCH_WARMUP:=1s}"
	: "${PROBEWHEEL_BENCH_MAX_WINDOW:=20s}"
	: "${BENCH:=^BenchmarkSteady$/^handler=(exec|http|grpc)$/^pods=(1000|10000)$}"
	: "${IMPLS:=upstream,probewheel,afterfunc}"
	bench_set=default # the default set's workloads, profiled
	profiles=_output/bench/profiles/$(basename "$BENCH_OUT")
	rm -rf "$profiles"
	export PROBEWHEEL_BENCH_CPUPROFILE=$profiles PROBEWHEEL_BENCH_LATE=$profiles PROBEWHEEL_BENCH_CPUPROFILE_HZ=1000
	;;
esac
IMPLS=${IMPLS:-upstream,probewheel,no-exec-limit,gate-off,afterfunc}
export PROBEWHEEL_BENCH_SET=${bench_set:-$MODE} PROBEWHEEL_BENCH_PERIODS PROBEWHEEL_BENCH_WARMUP PROBEWHEEL_BENCH_MAX_WINDOW
if [[ $MODE == default || $MODE == full ]]; then
	# Raw per-probe dumps are megabytes: they stay under _output/; the results
	# directory gets their condensed summaries (`go run ./bench/report condense`).
	export PROBEWHEEL_BENCH_DUMP=${PROBEWHEEL_BENCH_DUMP:-_output/bench/dumps/$(basename "$BENCH_OUT")}
fi
[[ -n ${BENCH:-} ]] && BENCH_SET_BY_USER=1
BENCH=${BENCH:-'^Benchmark(Steady|RestartBurst|Hung|ReadinessFlip|ExecRuntime)$'}
OUT=$BENCH_OUT
LOGS=_output/bench/logs/$(basename "$OUT")
mkdir -p "$OUT" "$LOGS"

log() { printf '[bench.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# Results a page can cite come from committed code only (hack/lib.sh); smoke runs are throw-away.
[[ $MODE == smoke ]] || pw::require_committed pkg bench scripts
pw::machine_record "$MODE (count $COUNT, bench '$BENCH')" pkg bench scripts >"$OUT/machine.txt"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/bench.test
log "mode $MODE: building the benchmark binary and benchstat"
"$GO" test -c -o "$bin" ./bench
"$GO" tool benchstat -h >/dev/null 2>&1 || true # builds and caches the pinned benchstat

: >"$OUT/raw.txt"
start=$SECONDS
IFS=, read -ra impls <<<"$IMPLS"
for ((round = 1; round <= COUNT; round++)); do
	# Each round starts with the next implementation: every one runs first, middle and last.
	order=
	for ((i = 0; i < ${#impls[@]}; i++)); do
		order+=${order:+,}${impls[(i + round - 1) % ${#impls[@]}]}
	done
	log "round $round/$COUNT (order $order), $((SECONDS - start))s elapsed; results in $OUT"
	# stdout (benchmark lines) → raw.txt; stderr (progress) → terminal + $LOGS/progress.log.
	PROBEWHEEL_BENCH_IMPLS=$order PROBEWHEEL_BENCH_ROUND="$round/$COUNT" \
		"$bin" -test.run '^$' -test.bench "$BENCH" -test.benchtime 1x -test.count 1 -test.timeout 0 \
		2> >(tee -a "$LOGS/progress.log" >&2) | tee -a "$OUT/raw.txt"
done
# BenchmarkMemory runs in a process of its own, with the probe metrics unregistered.
if [[ $MODE != capacity && $MODE != profile && -z ${BENCH_SET_BY_USER:-} ]]; then
	for ((round = 1; round <= COUNT; round++)); do
		order=
		for ((i = 0; i < ${#impls[@]}; i++)); do
			order+=${order:+,}${impls[(i + round - 1) % ${#impls[@]}]}
		done
		log "memory round $round/$COUNT (order $order)"
		PROBEWHEEL_BENCH_IMPLS=$order PROBEWHEEL_BENCH_ROUND="memory $round/$COUNT" PROBEWHEEL_BENCH_PROBE_METRICS=0 \
			"$bin" -test.run '^$' -test.bench '^BenchmarkMemory$' -test.benchtime 1x -test.count 1 -test.timeout 0 \
			2> >(tee -a "$LOGS/progress.log" >&2) | tee -a "$OUT/raw.txt"
	done
fi
log "all rounds done in $((SECONDS - start))s"

if ! grep -q '^Benchmark' "$OUT/raw.txt"; then
	log "no benchmark results (BENCH='$BENCH' matched nothing?)"
	exit 1
fi
"$GO" tool benchstat -col /impl "$OUT/raw.txt" | tee "$OUT/benchstat.txt"
case $MODE in
capacity) ;;
profile)
	# The profiler's cost is in every figure: no headline, the parts instead.
	"$GO" run ./bench/report shares "$OUT" "$PROBEWHEEL_BENCH_CPUPROFILE" >/dev/null
	"$GO" run ./bench/report late "$PROBEWHEEL_BENCH_LATE"/*.late >"$OUT/late.txt"
	;;
*)
	# upstream → probewheel per workload, with benchstat's significance: the README's table.
	"$GO" run ./bench/report headline "$OUT" >/dev/null
	;;
esac

if [[ -n ${PROBEWHEEL_BENCH_DUMP:-} && -d $PROBEWHEEL_BENCH_DUMP ]]; then
	"$GO" run ./bench/report condense "$PROBEWHEEL_BENCH_DUMP" "$OUT"
fi
if [[ ($MODE == default || $MODE == full || $MODE == capacity) && ${PLOT:-1} != 0 ]]; then
	scripts/plot.sh "$OUT" || log "plotting failed (see above); raw results are in $OUT"
fi
log "results: $OUT"
