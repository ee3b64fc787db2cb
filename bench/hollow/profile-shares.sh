#!/usr/bin/env bash
# bench/hollow/profile-shares.sh RESULTS_DIR [ARTIFACTS_DIR] — where each hollow kubelet's CPU went:
# for every CPU profile a hack/scale-bench.sh run took (SCALE_PROFILE=1: node 0, 10 s after the
# window, in ARTIFACTS_DIR: the run's artifacts line in run.txt, by default
# _output/scale/artifacts/<run>/), the share of its samples in
#   prober    the prober's whole path, handlers included: stock's per-probe worker goroutines,
#             probewheel's loop and executors (`prober.(*worker|executors|scheduler)`)
#   handlers  the probe handlers' own work (`prober.(*prober).runProbe`: dials, HTTP/2 and gRPC
#             handshakes, CRI ExecSync), which both kubelets share
#   gc        the garbage collector's background marking (`runtime.gcBgMarkWorker`), of which
#   gc-idle   the idle-priority mark workers (`runtime.gcDrainMarkWorkerIdle`): the runtime runs
#             them on Ps that have nothing else to do, so they grow with the kubelet's idle time
#             during a cycle, not with its garbage; the rest are the dedicated and fractional
#             workers that the pacer sizes to the heap
#   assist    mark assists (`runtime.gcAssistAlloc`), work charged to goroutines that allocate
#             during a cycle (not part of gc)
#   newstack  goroutine stack growth (`runtime.newstack`)
# as `go tool pprof -top -focus=<frames>` states it ("Showing nodes accounting for ..., N% of ...
# total"). Writes RESULTS_DIR/profile-shares.txt, a table a page can cite; the profiles stay out of
# git (the run's command makes them again).
set -euo pipefail
dir=${1:?usage: bench/hollow/profile-shares.sh RESULTS_DIR [ARTIFACTS_DIR]}
root=$(cd "$(dirname "$0")/../.." && pwd)
art=${2:-${root}/_output/scale/artifacts/$(basename "${dir}")}
compgen -G "${art}/*/*.cpu.pprof" >/dev/null || { echo "no CPU profiles under ${art} (SCALE_PROFILE=1 takes them)" >&2; exit 1; }

# pct <focus regexp> <profile>: the focused frames' share of the profile's samples.
pct() {
  go tool pprof -top -focus="$1" "$2" 2>/dev/null |
    awk '/Showing nodes accounting/ { for (i = 1; i <= NF; i++) if ($i ~ /%$/ && $(i + 1) == "of") { print $i; exit } }'
}
{
  echo "# CPU profile shares (bench/hollow/profile-shares.sh; profiles in ${art#"${root}/"}/)"
  echo
  printf '%-42s %8s %9s %7s %8s %7s %9s\n' profile prober handlers gc gc-idle assist newstack
  for f in "${art}"/*/stock-*.cpu.pprof "${art}"/*/probewheel-*.cpu.pprof; do
    [[ -e ${f} ]] || continue
    printf '%-42s %8s %9s %7s %8s %7s %9s\n' "${f#"${art}/"}" \
      "$(pct 'prober\.\(\*(worker|executors|scheduler)\)' "${f}")" \
      "$(pct 'prober\.\(\*prober\)\.runProbe$' "${f}")" \
      "$(pct 'runtime\.gcBgMarkWorker' "${f}")" \
      "$(pct 'runtime\.gcDrainMarkWorkerIdle' "${f}")" \
      "$(pct 'runtime\.gcAssistAlloc' "${f}")" \
      "$(pct 'runtime\.newstack' "${f}")"
  done
} >"${dir}/profile-shares.txt"
cat "${dir}/profile-shares.txt"
