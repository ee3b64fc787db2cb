#!/usr/bin/env bash
# scripts/ablation.sh — what each of the scheduler's mechanisms buys: the product beside itself
# with one mechanism switched off (bench/ablation/<arm>.patch, applied at build time through
# go's -overlay, never to the tree), upstream and the AfterFunc arm (docs/design.md's table).
#
#   scripts/ablation.sh            every arm, 5 interleaved rounds (~2 h on 2 cores; runtime20 and
#                                  runtime80 below add ~30 min)
#
# Every measurement is a process of its own, and within a round every workload runs every arm
# back to back, in an order that rotates by one each round. The workloads are `make bench`'s
# (scripts/bench.sh default), plus:
#   hung50   half the probes of 5,000 pods @1 s hung (PROBEWHEEL_BENCH_HUNG_PERCENT=50): what a
#            bound does when more probes hang than it holds
#   memory   BenchmarkMemory: 10,000 exec pods @10 s with the probe metrics unregistered, the
#            heap in use per probe without the metric series (inuse-B/probe), fragmentation included
#   runtime20  BenchmarkExecRuntime: 10 exec pods @1 s, 20 execs/s against a model container runtime
#            that keeps up with ~47 (bench/execmodel.go): where the exec limit must change nothing
#   runtime80  the same at 40 pods, 80 execs/s: past the runtime's capacity, the healthy probes' runs
#            that time out (timeouts/s) and succeed (ok-runs/s), the exec limit's case (arm no-exec-limit)
#
# Environment: COUNT (rounds, default 5), ARMS (comma list of bench/ablation arms, default all
# but those whose patch has an "ablation: hollow-only" line: afterfunc, which is the bench's own
# afterfunc impl here),
# ONLY (a regexp: run only the workloads whose pattern matches), OUT (default
# bench/results/<UTC date>-ablation). Outputs in OUT: raw.txt (benchstat input, the arms as
# impl=<arm>), benchstat.txt, machine.txt, arms.txt (each arm's patch sum), and
# _output/bench/logs/<OUT's name>/progress.log.
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/lib.sh

COUNT=${COUNT:-5}
stamp=$(date -u +%Y%m%d-%H%M%S)
OUT=${OUT:-bench/results/$stamp-ablation}
LOGS=_output/bench/logs/$(basename "$OUT")
GO=${GO:-go}
mkdir -p "$OUT" "$LOGS"
log() { printf '[ablation.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$LOGS/progress.log" >&2; }

arms=()
if [[ -n ${ARMS:-} ]]; then
	IFS=, read -ra arms <<<"$ARMS"
else
	# An arm for hollow nodes only says so in its patch's header (afterfunc: in process, the
	# bench's afterfunc impl, run beside every arm, is the same manager).
	for p in bench/ablation/*.patch; do
		grep -q '^ablation: hollow-only$' "$p" || arms+=("$(basename "$p" .patch)")
	done
fi

pw::require_committed pkg bench scripts
pw::machine_record "ablation (count $COUNT, arms ${arms[*]})" pkg bench scripts >"$OUT/machine.txt"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log "building the base binary and one per arm"
"$GO" test -c -o "$tmp/base.test" ./bench
: >"$OUT/arms.txt"
for arm in "${arms[@]}"; do
	patch=bench/ablation/$arm.patch
	src=$tmp/src/$arm
	mkdir -p "$src"
	# The files the patch touches, copied and patched outside the tree.
	files=$(sed -n 's|^+++ b/||p' "$patch")
	json='{"Replace":{'
	sep=
	for f in $files; do
		mkdir -p "$src/$(dirname "$f")"
		cp "$f" "$src/$f"
		json+="$sep\"$PWD/$f\":\"$src/$f\""
		sep=,
	done
	patch -s -p1 -d "$src" <"$patch"
	echo "$json}}" >"$tmp/$arm.json"
	"$GO" test -c -overlay "$tmp/$arm.json" -o "$tmp/$arm.test" ./bench
	echo "$arm $(sha256sum "$patch" | cut -c1-12) $files" >>"$OUT/arms.txt"
done

# name|binary|impl: every run's arm, what it runs, and which of the binary's impls.
runs=("upstream|base|upstream" "probewheel|base|probewheel" "afterfunc|base|afterfunc")
for arm in "${arms[@]}"; do runs+=("$arm|$arm|probewheel"); done

cd bench # the binaries run in their package's directory, as go test runs them
workloads=$(PROBEWHEEL_BENCH_LIST=1 "$tmp/base.test" -test.run '^$' -test.bench '^Benchmark(Steady|RestartBurst|Hung|ReadinessFlip)$' -test.benchtime 1x 2>/dev/null | grep '^\^')
hung50='^BenchmarkHung$/^handler=exec$/^pods=5000$/^period=1s$'
memory='^BenchmarkMemory$/^handler=exec$/^pods=10000$/^period=10s$'
runtime20='^BenchmarkExecRuntime$/^handler=exec$/^pods=10$/^period=1s$'
runtime80='^BenchmarkExecRuntime$/^handler=exec$/^pods=40$/^period=1s$'
# pattern|environment|name: the scenario's name in raw.txt, where it is not the benchmark's
jobs=()
while read -r w; do jobs+=("$w|PROBEWHEEL_BENCH_SET=default|"); done <<<"$workloads"
jobs+=("$hung50|PROBEWHEEL_BENCH_SET=full PROBEWHEEL_BENCH_HUNG_PERCENT=50 PROBEWHEEL_BENCH_MAX_WINDOW=10s|Hung50")
jobs+=("$memory|PROBEWHEEL_BENCH_SET=default PROBEWHEEL_BENCH_PROBE_METRICS=0|")
# Their onset, warm-up and window are BenchmarkExecRuntime's own (the first 20 s of a 30 s warm-up,
# and a 10 s window), not the knobs below.
jobs+=("$runtime20|PROBEWHEEL_BENCH_SET=default|")
jobs+=("$runtime80|PROBEWHEEL_BENCH_SET=default|")
cd ..

: >"$OUT/raw.txt"
start=$SECONDS
for ((round = 1; round <= COUNT; round++)); do
	log "round $round/$COUNT, $((SECONDS - start))s elapsed"
	for job in "${jobs[@]}"; do
		IFS='|' read -r pattern env scenario <<<"$job"
		rename=s/^//
		[[ -n $scenario ]] && rename="s/^Benchmark[A-Za-z]*\//Benchmark$scenario\//"
		[[ -n ${ONLY:-} && ! $pattern =~ $ONLY ]] && continue
		for ((i = 0; i < ${#runs[@]}; i++)); do
			IFS='|' read -r name bin impl <<<"${runs[(i + round - 1) % ${#runs[@]}]}"
			log "  $pattern $name"
			(cd bench && env PROBEWHEEL_BENCH_PERIODS=4 PROBEWHEEL_BENCH_WARMUP=1s PROBEWHEEL_BENCH_MAX_WINDOW=20s \
				$env PROBEWHEEL_BENCH_IMPLS="$impl" PROBEWHEEL_BENCH_ROUND="$round/$COUNT" PROBEWHEEL_BENCH_PROGRESS=0 \
				"$tmp/$bin.test" -test.run '^$' -test.bench "$pattern" -test.benchtime 1x -test.count 1 -test.timeout 0) 2>>"$LOGS/progress.log" |
				sed -e "s|/impl=$impl-|/impl=$name-|" -e "$rename" -e "/^PASS$/d" >>"$OUT/raw.txt"
		done
	done
done
log "all rounds done in $((SECONDS - start))s"
"$GO" tool benchstat -col /impl "$OUT/raw.txt" >"$OUT/benchstat.txt"
log "results: $OUT"
