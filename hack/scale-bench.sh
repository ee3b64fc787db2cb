#!/usr/bin/env bash
# The scale benchmark (docs/scale.md, `make scale-bench`): the real
# kubelet code at 110 to 2,000 pods per node, stock vs probewheel, as hollow
# kubelets (hack/build-hollow-node.sh) against a local control plane
# (bench/hollow/control-plane.sh), one measurement per bench/hollow/pwscale run.
#
#   hack/scale-bench.sh [full|reduced|smoke|nodes|flips]  (default full)
#
#   full     one node at SCALE_PODS pods x SCALE_PERIODS, then the many-nodes
#            workloads SCALE_MANY; SCALE_ROUNDS (3) rounds per kubelet
#            -> bench/hollow/results/hollow-<UTC date>/ (~5-6 h on 2 cores)
#   reduced  the one-node targets' figures in ~40-50 min: 250, 1,000 and 2,000
#            pods @1 s (2,000 @1 s included: SCALE_MAX_PODS_AT_1S=0), 2 rounds
#            per kubelet (ABBA), short windows, no many-nodes workload, a 5 min
#            wait for all pods Ready -> bench/hollow/results/hollow-reduced-<UTC date>/
#   smoke    110, 500 and 1,000 pods @1 s and 3 x 200 pods @10 s, one round per
#            kubelet, short windows -> _output/scale/smoke-<UTC date>/ (proves the pipeline)
#   nodes    only the many-nodes workloads
#   flips    the readiness-flip campaign (`make flip-campaign`): 1,000 pods
#            @10 s on one node, readiness of every pod failing for 5 periods
#            every 8 periods, SCALE_FLIP_SPANS (10) times per window: 20,000
#            due flips per kubelet per round (25 status writes a second, half
#            the kubelet's default API QPS); with SCALE_PERIODS=1, one pod in
#            ceil(pods / (100 x period)) flips, the same 25 a second (and
#            SCALE_FLIP_SPANS=100 keeps the window and the 20,000). No restart
#            phase, no profile; 1 round -> bench/hollow/results/hollow-flips-<UTC date>/
#            (~40 min)
#
# Resuming (the full mode takes ~5-6 h; a working session may have less):
# SCALE_RESUME=<results directory> continues a run that stopped or failed
# part-way, with the mode and knobs it started with (scale.env there): runs
# whose JSON is there without an error are kept, the others are measured
# (a failed run's JSON is kept beside as <kubelet>-<round>.failed-<time>.json).
# It refuses to mix kubelets built from another patch set unless
# SCALE_RESUME_FORCE=1. SCALE_STOP_BY=<time> (anything `date -d` reads, e.g.
# "20:30" or "+150 min") starts no round (stock and probewheel of one
# workload) that would end after it, estimated from the workload's rounds
# already measured (else from the longest round so far, else
# SCALE_ROUND_ESTIMATE, 30 min); the results so far are then plotted, run.txt
# says what is missing, and the exit status is 3. Commit the directory as it
# stands and resume later: `SCALE_RESUME=bench/hollow/results/hollow-<date> make
# scale-bench`.
#
# Knobs (environment; lists separated by spaces or commas): SCALE_PODS
# ("110 250 500 1000 2000"), SCALE_PERIODS ("1 10", seconds), SCALE_HANDLERS
# ("mixed"; also net, exec), SCALE_EXEC_LATENCY (fake ExecSync latency, "0s"),
# SCALE_MANY ("10x250@10": nodes x pods @ period; set and empty: none; the
# size measured: 10x500 failed its Ready wait in its one attempt, beside other
# load, docs/scale.md),
# SCALE_ARM=<arm>: the probewheel kubelet with one of the scheduler's mechanisms
# switched off (bench/ablation/<arm>.patch, as scripts/ablation.sh does in
# process; afterfunc: the AfterFunc design in place of the scheduler; the
# patch's "pwscale:" lines are flags for the arm's runs; full mode's results
# then go to hollow-<arm>-<UTC date>).
# SCALE_MAX_PODS_AT_1S (1000: larger 1 s workloads are left out, see below; 0:
# none left out), SCALE_ROUNDS, SCALE_WINDOW (pwscale's default: max(60 s, 13
# periods); short modes: max(30 s, (8 periods + 10 s) x 4/3)), SCALE_SETTLE
# (pwscale's default: max(15 s, 2 periods)), SCALE_READY_TIMEOUT (pwscale's
# default: 5 min + 0.1 s per pod), SCALE_PROFILE (1: a 10 s CPU profile and a
# goroutine summary of node 0 after each window; default 1 in full), SCALE_OUT
# (results directory), SCALE_PWSCALE_ARGS (more pwscale flags). Rounds
# alternate the order of the kubelets per workload (stock first in odd rounds:
# ABBA...), so drift over the run favours neither.
#
# Needs root (hollow kubelets in their own UTS namespace; Debian packages
# etcd-server and python3-matplotlib, installed with apt-get when missing).
# Everything runs on this host and talks over loopback only. Progress on
# stderr; each run's log next to its JSON. Exit status 1 if any run failed
# (the others are still measured and plotted).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/local-cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local-cluster-lib.sh"

mode=${1:-full}
stamp=$(date -u +%Y%m%d-%H%M%S)
resume=${SCALE_RESUME:-}
if [[ -n ${resume} ]]; then
  [[ -f ${resume}/scale.env ]] || pw::die "SCALE_RESUME=${resume}: no scale.env there (not a results directory of this script, or from before resuming existed)"
  resume=$(cd "${resume}" && pwd)
  asked=${mode}
  # The knobs the run started with, whatever the environment says now.
  # shellcheck source=/dev/null
  source "${resume}/scale.env"
  mode=${SCALE_MODE}
  [[ ${asked} == "${mode}" ]] || pw::log "SCALE_RESUME: resuming a ${mode} run (not ${asked})"
  SCALE_OUT=${resume}
fi
# list <value>: a knob's list with commas turned into spaces.
list() { echo "${1//,/ }"; }
max1s_default=1000
case ${mode} in
  full)
    out=${SCALE_OUT:-${PW_ROOT}/bench/hollow/results/hollow${SCALE_ARM:+-${SCALE_ARM}}-${stamp}}
    pods=${SCALE_PODS:-110 250 500 1000 2000}
    periods=${SCALE_PERIODS:-1 10}
    many=${SCALE_MANY-10x250@10}
    rounds=${SCALE_ROUNDS:-3}
    profile=${SCALE_PROFILE:-1}
    ;;
  reduced)
    out=${SCALE_OUT:-${PW_ROOT}/bench/hollow/results/hollow-reduced${SCALE_ARM:+-${SCALE_ARM}}-${stamp}}
    pods=${SCALE_PODS:-250 1000 2000}
    periods=${SCALE_PERIODS:-1}
    many=${SCALE_MANY-}
    rounds=${SCALE_ROUNDS:-2}
    profile=${SCALE_PROFILE:-0}
    max1s_default=0
    ready_timeout=${SCALE_READY_TIMEOUT:-5m}
    short=1
    ;;
  smoke)
    out=${SCALE_OUT:-${PW_OUTPUT}/scale/smoke-${stamp}}
    pods=${SCALE_PODS:-110 500 1000}
    periods=${SCALE_PERIODS:-1}
    many=${SCALE_MANY-3x200@10}
    rounds=${SCALE_ROUNDS:-1}
    profile=${SCALE_PROFILE:-0}
    short=1
    ;;
  nodes)
    out=${SCALE_OUT:-${PW_ROOT}/bench/hollow/results/hollow-nodes-${stamp}}
    pods="" periods=""
    many=${SCALE_MANY-10x250@10}
    rounds=${SCALE_ROUNDS:-3}
    profile=${SCALE_PROFILE:-0}
    ;;
  flips)
    out=${SCALE_OUT:-${PW_ROOT}/bench/hollow/results/hollow-flips-${stamp}}
    pods=${SCALE_PODS:-1000}
    periods=${SCALE_PERIODS:-10}
    many=""
    rounds=${SCALE_ROUNDS:-1}
    profile=0
    flips=1
    ;;
  *) pw::die "usage: $0 [full|reduced|smoke|nodes|flips]" ;;
esac
# Results a page can cite come from committed code only (hack/lib.sh).
[[ ${mode} == smoke ]] || pw::require_committed patches bench/hollow bench/ablation hack/build-hollow-node.sh hack/scale-bench.sh
pods=$(list "${pods}")
periods=$(list "${periods}")
many=$(list "${many}")
ready_timeout=${ready_timeout:-${SCALE_READY_TIMEOUT:-}}
stop_by=""
if [[ -n ${SCALE_STOP_BY:-} ]]; then
  stop_by=$(date -d "${SCALE_STOP_BY}" +%s) || pw::die "SCALE_STOP_BY=${SCALE_STOP_BY}: date -d cannot read it"
fi
round_estimate=${SCALE_ROUND_ESTIMATE:-1800}
[[ ${round_estimate} =~ ^[0-9]+$ ]] || pw::die "SCALE_ROUND_ESTIMATE=${round_estimate}: want seconds"
# window_for <period s>: the -window flag's value ("" = pwscale's default).
# Smoke windows are as short as the readiness flip allows (pwscale checks:
# window >= window/4 + 8 periods + 10 s), at least 30 s. A flips window holds
# SCALE_FLIP_SPANS failure spans 8 periods apart: the last one ends 3 periods
# + 10 s before the window does, and the first starts at a quarter of it.
flip_spans=${SCALE_FLIP_SPANS:-10}
[[ ${flip_spans} =~ ^[1-9][0-9]*$ ]] || pw::die "SCALE_FLIP_SPANS=${flip_spans}: want a positive integer"
window_for() {
  if [[ -n ${SCALE_WINDOW:-} ]]; then
    echo "${SCALE_WINDOW}"
  elif [[ -n ${flips:-} ]]; then
    echo "$(((8 * $1 * flip_spans + 10) * 4 / 3 + 1))s"
  elif [[ -n ${short:-} ]]; then
    echo "$(((8 * $1 + 10) * 4 / 3 + 1 > 30 ? (8 * $1 + 10) * 4 / 3 + 1 : 30))s"
  fi
}
handlers=$(list "${SCALE_HANDLERS:-mixed}")
exec_latency=${SCALE_EXEC_LATENCY:-0s}
[[ ${rounds} =~ ^[1-9][0-9]*$ ]] || pw::die "SCALE_ROUNDS=${rounds}: want a positive integer"
for x in ${pods} ${periods}; do
  [[ ${x} =~ ^[1-9][0-9]*$ ]] || pw::die "SCALE_PODS/SCALE_PERIODS: '${x}' is not a positive integer (periods in whole seconds)"
done
for x in ${handlers}; do
  [[ ${x} =~ ^(mixed|net|exec)$ ]] || pw::die "SCALE_HANDLERS: '${x}' is not mixed, net or exec"
done
[[ $(id -u) == 0 ]] || pw::die "must run as root (UTS namespaces for the hollow kubelets, apt-get)"
command -v unshare >/dev/null || pw::die "unshare not found (util-linux)"

# The workloads, one line each: nodes pods period handlers. At a 1 s period
# a loaded 2-core machine may not serve more than ~1,000 pods x 3 probes (the
# kubelet's gRPC probes alone dial 1,000 connections a second at 2,000 pods;
# probes time out, liveness restarts containers, the pods never all turn
# Ready): SCALE_MAX_PODS_AT_1S (default 1000 except in reduced, which exists
# for the 2,000-pod figure; 0 = no cap) leaves those out.
max1s=${SCALE_MAX_PODS_AT_1S:-${max1s_default}}
[[ ${max1s} =~ ^[0-9]+$ ]] || pw::die "SCALE_MAX_PODS_AT_1S=${max1s}: want a number"
skipped=()
workloads=()
for period in ${periods}; do
  for h in ${handlers}; do
    for p in ${pods}; do
      if ((period == 1 && max1s > 0 && p > max1s)); then
        skipped+=("${p}@1s")
        continue
      fi
      workloads+=("1 ${p} ${period} ${h}")
    done
  done
done
for m in ${many}; do
  [[ ${m} =~ ^([0-9]+)x([0-9]+)@([0-9]+)$ ]] || pw::die "SCALE_MANY: '${m}' is not <nodes>x<pods>@<period seconds>"
  for h in ${handlers}; do workloads+=("${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]} ${h}"); done
done
((${#workloads[@]} > 0)) || pw::die "no workloads"
total=$((${#workloads[@]} * rounds * 2))

# ---------------------------------------------------------------- dependencies
missing=()
command -v etcd >/dev/null || missing+=(etcd-server)
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || missing+=(python3-matplotlib)
if ((${#missing[@]} > 0)); then
  pw::log "installing ${missing[*]} (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# ---------------------------------------------------------------------- builds
t_start=${SECONDS}
pw::log "building (each step is a no-op when up to date)"
nice -n 10 "${PW_ROOT}/hack/build-hollow-node.sh" --stock >&2
HOLLOW_ARM=${SCALE_ARM:-} nice -n 10 "${PW_ROOT}/hack/build-hollow-node.sh" >&2
nice -n 10 "${PW_ROOT}/hack/build-cluster-binaries.sh" kube-apiserver >&2
(cd "${PW_ROOT}" && nice -n 10 go build -o "${PW_BIN}/pwscale" ./bench/hollow/pwscale)
declare -A bin=([stock]=${PW_BIN}/hollow-node-stock [probewheel]=${PW_BIN}/hollow-node${SCALE_ARM:+-${SCALE_ARM}})
# The pwscale flags an arm's patch asks for on its "pwscale:" lines (afterfunc:
# -no-wheel, as its kubelet has no scheduler metrics).
arm_args=()
[[ -z ${SCALE_ARM:-} ]] || read -ra arm_args <<<"$(sed -n 's/^pwscale: //p' "${PW_ROOT}/bench/ablation/${SCALE_ARM}.patch")"

# ------------------------------------------------------------- control plane
export PW_SCALE_DIR=${PW_OUTPUT}/scale
rundir=${PW_SCALE_DIR}/run
kubeconfig=${PW_SCALE_DIR}/cluster/admin.kubeconfig
cleanup() {
  local rc=$? f pid b
  # Hollow kubelets left by a killed pwscale (it records "PID binary" per kubelet).
  for f in "${rundir}"/*/*.pid; do
    [[ -f ${f} ]] || continue
    read -r pid b <"${f}" || continue
    if [[ -r /proc/${pid}/cmdline ]] && tr '\0' ' ' <"/proc/${pid}/cmdline" | grep -F -- "${b}" >/dev/null; then
      pw::log "stopping leftover hollow kubelet ${pid}"
      kill -KILL "${pid}" 2>/dev/null || true
    fi
    rm -f "${f}"
  done
  "${PW_ROOT}/bench/hollow/control-plane.sh" down || rc=1
  exit "${rc}"
}
trap cleanup EXIT
child=""
# A signal stops the running pwscale (it tears its run down), then us.
on_signal() {
  [[ -n ${child} ]] && kill -TERM "${child}" 2>/dev/null && wait "${child}" 2>/dev/null
  exit 130
}
trap on_signal INT TERM
"${PW_ROOT}/bench/hollow/control-plane.sh" down >/dev/null 2>&1 || true # a previous run's
"${PW_ROOT}/bench/hollow/control-plane.sh" up >&2
host_ip=$(pw::cluster_host_ip)

mkdir -p "${out}/runs"
patchset=$(pw::series_sum "${PW_KUBE_MINOR}")
if [[ -n ${resume} ]]; then
  if [[ ${SCALE_PATCHSET} != "${patchset}" ]]; then
    [[ ${SCALE_RESUME_FORCE:-0} == 1 ]] || pw::die "SCALE_RESUME: the run started with patches/ sha256 ${SCALE_PATCHSET}, this tree has ${patchset}; its figures would mix two probewheels (SCALE_RESUME_FORCE=1 to do it anyway)"
    pw::log "SCALE_RESUME_FORCE=1: patches/ sha256 ${SCALE_PATCHSET} before, ${patchset} now"
  fi
  {
    echo "resumed: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(cd "${PW_ROOT}" && git rev-parse --short HEAD), patches/ sha256 ${patchset}"
  } >>"${out}/run.txt"
else
  {
    echo "# hack/scale-bench.sh's knobs for this run (SCALE_RESUME reads them)"
    for v in mode pods periods many rounds profile handlers exec_latency ready_timeout max1s; do
      case ${v} in
        mode) k=SCALE_MODE ;; pods) k=SCALE_PODS ;; periods) k=SCALE_PERIODS ;; many) k=SCALE_MANY ;;
        rounds) k=SCALE_ROUNDS ;; profile) k=SCALE_PROFILE ;; handlers) k=SCALE_HANDLERS ;;
        exec_latency) k=SCALE_EXEC_LATENCY ;; ready_timeout) k=SCALE_READY_TIMEOUT ;; max1s) k=SCALE_MAX_PODS_AT_1S ;;
      esac
      printf '%s=%q\n' "${k}" "${!v}"
    done
    printf 'SCALE_WINDOW=%q\nSCALE_SETTLE=%q\nSCALE_PWSCALE_ARGS=%q\nSCALE_FLIP_SPANS=%q\nSCALE_PATCHSET=%q\nSCALE_ARM=%q\n' \
      "${SCALE_WINDOW:-}" "${SCALE_SETTLE:-}" "${SCALE_PWSCALE_ARGS:-}" "${flip_spans}" "${patchset}" "${SCALE_ARM:-}"
  } >"${out}/scale.env"
fi
# What a run leaves besides its JSON (logs, profiles) stays out of the tree.
art=${PW_SCALE_DIR}/artifacts/$(basename "${out}")
[[ -n ${resume} ]] || {
  echo "command: hack/scale-bench.sh ${mode}"
  echo "workloads (nodes pods period handlers): $(printf '[%s] ' "${workloads[@]}")"
  ((${#skipped[@]} == 0)) || echo "left out (SCALE_MAX_PODS_AT_1S=${max1s}): ${skipped[*]}"
  echo "rounds per kubelet: ${rounds} (ABBA), window: ${SCALE_WINDOW:-$(if [[ -n ${flips:-} ]]; then echo "flips ((8 periods x ${flip_spans} + 10 s) x 4/3 + 1 s)"; elif [[ -n ${short:-} ]]; then echo "short (max(30 s, (8 periods + 10 s) x 4/3))"; else echo "pwscale default (max(60 s, 13 periods))"; fi)}, settle: ${SCALE_SETTLE:-pwscale default (max(15 s, 2 periods))}, ready timeout: ${ready_timeout:-pwscale default (5 min + 0.1 s per pod)}, exec latency: ${exec_latency}, profile: ${profile}"
  echo "extra pwscale flags: ${SCALE_PWSCALE_ARGS:-none}"
  [[ -z ${flips:-} ]] || echo "flips: one pod in ceil(pods / (100 x period)) fails its readiness check for 5 periods every 8 periods, ${flip_spans} times per window (-flip-every, -flip-cycle); -restart=false"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r), $(go version)"
  echo "kubelets: $("${bin[stock]}" --version) (stock), $("${bin[probewheel]}" --version) (probewheel, patches/ sha256 ${patchset})"
  if [[ -n ${SCALE_ARM:-} ]]; then
    echo "ablation arm: ${SCALE_ARM}: probewheel with bench/ablation/${SCALE_ARM}.patch (sha256 $(sha256sum "${PW_ROOT}/bench/ablation/${SCALE_ARM}.patch" | cut -c1-12))"
  fi
  echo "commit: $(pw::run_stamp patches bench/hollow bench/ablation hack/build-hollow-node.sh hack/scale-bench.sh)"
  echo "artifacts (not in git; the command above makes them again): ${art#"${PW_ROOT}/"}/ (pwscale's log of each run, and node 0's goroutine summary, CPU and heap profiles with profile 1)"
} >"${out}/run.txt"
cat "${out}/run.txt" >&2

# run_ok <json>: the run is there and did not fail.
run_ok() {
  [[ -f $1 ]] && /usr/bin/python3 -c 'import json,sys; sys.exit(1 if json.load(open(sys.argv[1])).get("error") else 0)' "$1" 2>/dev/null
}
# flips_off <json>: the run saw a readiness flip lost or extra.
flips_off() {
  /usr/bin/python3 -c 'import json,sys; t=json.load(open(sys.argv[1])).get("transitions") or {}; sys.exit(0 if t.get("lost") or t.get("extra") else 1)' "$1" 2>/dev/null
}
# run_seconds <json>: how long a finished run took (its start to the file's write).
run_seconds() {
  /usr/bin/python3 - "$1" <<'PY' 2>/dev/null || echo 0
import datetime, json, os, sys
r = json.load(open(sys.argv[1]))
start = datetime.datetime.fromisoformat(r["started"].replace("Z", "+00:00")).timestamp()
print(max(0, int(os.path.getmtime(sys.argv[1]) - start)))
PY
}

# ------------------------------------------------------------------------ runs
rc=0
k=0
measured=0 # runs measured by this invocation (for the ETA)
# to_measure: the runs this invocation has to measure (all but the kept ones),
# so that the ETA of a resumed run counts what is left, not what was kept.
to_measure=0
for wl in "${workloads[@]}"; do
  read -r nodes p period h <<<"${wl}"
  name="${nodes}x${p}-${period}s-${h}"
  [[ ${exec_latency} == 0s || ${exec_latency} == 0 ]] || name+="-exec${exec_latency}"
  for ((round = 1; round <= rounds; round++)); do
    for flavor in stock probewheel; do
      run_ok "${out}/runs/${name}/${flavor}-${round}.json" || to_measure=$((to_measure + 1))
    done
  done
done
longest=0  # the longest round (both kubelets) so far, seconds
stopped=""
for wl in "${workloads[@]}"; do
  read -r nodes p period h <<<"${wl}"
  name="${nodes}x${p}-${period}s-${h}"
  [[ ${exec_latency} == 0s || ${exec_latency} == 0 ]] || name+="-exec${exec_latency}"
  mkdir -p "${out}/runs/${name}"
  for ((round = 1; round <= rounds; round++)); do
    order="stock probewheel"
    ((round % 2 == 0)) && order="probewheel stock"
    # The round's estimate: this workload's rounds measured so far, else the
    # longest round, else SCALE_ROUND_ESTIMATE.
    est=0
    for ((r = 1; r <= rounds; r++)); do
      s=0
      for flavor in stock probewheel; do
        f=${out}/runs/${name}/${flavor}-${r}.json
        run_ok "${f}" && s=$((s + $(run_seconds "${f}")))
      done
      ((s > est)) && est=${s}
    done
    ((est > 0)) || est=${longest}
    ((est > 0)) || est=${round_estimate}
    todo=""
    for flavor in ${order}; do
      run_ok "${out}/runs/${name}/${flavor}-${round}.json" || todo+=" ${flavor}"
    done
    if [[ -n ${stopped} || (-n ${todo} && -n ${stop_by} && $(($(date +%s) + est)) -gt ${stop_by}) ]]; then
      [[ -n ${stopped} ]] || pw::log "SCALE_STOP_BY: ${name} round ${round} (~$((est / 60)) min) would end after $(date -d "@${stop_by}" +%H:%M); stopping here"
      [[ -z ${todo} ]] || stopped+=" ${name}/r${round}:${todo# }"
      k=$((k + 2))
      continue
    fi
    t_round=${SECONDS}
    for flavor in ${order}; do
      k=$((k + 1))
      if ! [[ ${todo} == *${flavor}* ]]; then
        pw::log "[${k}/${total}] ${name} round ${round}/${rounds}: ${flavor} measured before (kept)"
        continue
      fi
      f=${out}/runs/${name}/${flavor}-${round}.json
      if [[ -f ${f} ]]; then # a failed run's, kept beside (the report and the plots read <kubelet>-<round>.json only)
        failed=${f%.json}.failed-$(date -u -r "${f}" +%Y%m%d-%H%M%S)
        mv "${f}" "${failed}.json"
        log=${art}/${name}/${flavor}-${round}.log
        [[ ! -f ${log} ]] || mv "${log}" "${art}/${name}/$(basename "${failed}").log"
      fi
      elapsed=$((SECONDS - t_start))
      eta=""
      ((measured > 0)) && eta=", ~$(((elapsed * (to_measure - measured) / measured + 59) / 60)) min left"
      measured=$((measured + 1))
      pw::log "[${k}/${total}] ${name} round ${round}/${rounds}: ${flavor} ($((elapsed / 60)) min elapsed${eta})"
      args=(-kubeconfig "${kubeconfig}" -hollow-node "${bin[${flavor}]}" -flavor "${flavor}" -round "${round}"
        -run-id "${flavor:0:1}${round}-${nodes}x${p}-${period}s" -nodes "${nodes}" -pods "${p}"
        -period "${period}s" -handlers "${h}" -exec-latency "${exec_latency}" -node-ip "${host_ip}"
        -out "${out}/runs/${name}/${flavor}-${round}.json" -rundir "${rundir}/${name}-${flavor}-${round}"
        -profile-dir "${art}/${name}")
      mkdir -p "${art}/${name}"
      window=$(window_for "${period}")
      [[ -n ${window} ]] && args+=(-window "${window}")
      [[ -n ${SCALE_SETTLE:-} ]] && args+=(-settle "${SCALE_SETTLE}")
      [[ -n ${ready_timeout} ]] && args+=(-ready-timeout "${ready_timeout}")
      [[ ${profile} == 1 ]] && args+=(-profile)
      [[ ${flavor} == probewheel ]] && args+=("${arm_args[@]}")
      [[ -z ${flips:-} ]] || args+=(-restart=false -flip-cycle "$((8 * period))s"
        -flip-every "$(((p + 100 * period - 1) / (100 * period)))")
      read -ra extra <<<"${SCALE_PWSCALE_ARGS:-}"
      # pwscale's progress goes to stderr and into the run's log. In the
      # background, so that a signal reaches the trap at once.
      "${PW_BIN}/pwscale" "${args[@]}" "${extra[@]}" 2> >(tee "${art}/${name}/${flavor}-${round}.log" >&2) &
      child=$!
      status=0
      wait "${child}" || status=$?
      child=""
      if ((status != 0)); then
        rc=1
        pw::log "run failed: ${art}/${name}/${flavor}-${round}.log"
        # A failed run may have left the control plane unhealthy: start it afresh.
        "${PW_ROOT}/bench/hollow/control-plane.sh" down >&2 || true
        "${PW_ROOT}/bench/hollow/control-plane.sh" up >&2
      fi
      # The kubelets' logs of a failed run stay (for the post-mortem), a
      # successful run's go (2,000 pods log hundreds of MB) unless a readiness
      # flip was lost or extra: then they are kept, compressed, in
      # ${PW_SCALE_DIR}/logs (not committed; the kubelet's "SyncLoop (probe)"
      # lines tell a probe result from a status write).
      if ((status == 0)) && flips_off "${out}/runs/${name}/${flavor}-${round}.json"; then
        keep=${PW_SCALE_DIR}/logs/$(basename "${out}")/${name}-${flavor}-${round}
        mkdir -p "${keep}"
        for log in "${rundir}/${name}-${flavor}-${round}"/*.log; do
          [[ -f ${log} ]] && gzip -c "${log}" >"${keep}/$(basename "${log}").gz"
        done
        pw::log "readiness flips lost or extra: the kubelets' logs are kept in ${keep}"
      fi
      if ((status == 0)); then
        rm -rf "${rundir:?}/${name}-${flavor}-${round}"
      else
        rm -rf "${rundir}/${name}-${flavor}-${round}"/*/root
      fi
    done
    ((SECONDS - t_round > longest)) && longest=$((SECONDS - t_round))
  done
done
if [[ -n ${stopped} ]]; then
  echo "incomplete ($(date -u +%Y-%m-%dT%H:%M:%SZ), SCALE_STOP_BY): not measured yet:${stopped}" >>"${out}/run.txt"
fi

if compgen -G "${out}/runs/*/*-[0-9]*.json" >/dev/null; then
  pw::log "plots and summary.md (scripts/plot.sh)"
  "${PW_ROOT}/scripts/plot.sh" "${out}" >/dev/null || rc=1
  if [[ ${profile} == 1 ]]; then
    pw::log "profile-shares.txt (bench/hollow/profile-shares.sh)"
    "${PW_ROOT}/bench/hollow/profile-shares.sh" "${out}" "${art}" >/dev/null || rc=1
  fi
  # At -v=3 or more the kept kubelets' logs carry each status write: say how far they lagged.
  if [[ ${SCALE_PWSCALE_ARGS:-} =~ -kubelet-v[=\ ]*([3-9]|[1-9][0-9]) ]] &&
    compgen -G "${PW_SCALE_DIR}/logs/$(basename "${out}")/*/*.log.gz" >/dev/null; then
    pw::log "status-lag.txt (bench/hollow/status-lag.sh)"
    "${PW_ROOT}/bench/hollow/status-lag.sh" "${out}" >/dev/null || rc=1
  fi
fi
pw::log "done in $(((SECONDS - t_start) / 60)) min: ${out}/summary.md"
echo "results: ${out}"
if [[ -n ${stopped} ]]; then
  pw::log "stopped by SCALE_STOP_BY; to finish: SCALE_RESUME=${out} make scale-bench"
  ((rc == 0)) && rc=3
fi
exit "${rc}"
