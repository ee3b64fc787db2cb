#!/usr/bin/env bash
# Swaps a node's kubelet binary in one restart: probewheel in, or back to the stock kubelet of
# the same release, with probewheel's feature gates set or cleared in the same restart
# (docs/operating.md#rolling-back says why it cannot take two). Run it as root on the node; then,
# from where kubectl reaches the cluster, `check` says what the node runs.
#
#   kubelet-swap.sh install <kubelet binary> [--gate=on|off] [--exec-limit=on|off]
#       the probewheel kubelet. --gate=off sets ProbeTimerWheel: false (ship dark); --gate=on,
#       the default, removes every ProbeTimerWheel setting (the gate's default, on).
#       --exec-limit=off sets ProbeExecLimit: false, --exec-limit=on removes it; without it the
#       node's setting is carried, PROBEWHEEL_EXEC_LIMIT=off of kubelets before the gate too.
#   kubelet-swap.sh rollback <stock kubelet binary> [--any-release]
#       the stock kubelet, both gates removed (a stock kubelet refuses to start while either is
#       named, even as false); refused unless it is the release the node's kubelet is built on.
#   kubelet-swap.sh layout
#       what the script found on this node (binary, KubeletConfiguration, environment files).
#   kubelet-swap.sh check <node> <probewheel|gate-off|stock> [--exec-limit=on|off]
#       kubectl: the node's kubelet version, Ready, whether its /metrics/probes serves the
#       scheduler (the gate on) and ProbeExecLimit's kubernetes_feature_enabled; exits 1 if the
#       node is not what the words say.
#
# The layout comes from `systemctl cat kubelet` (KUBELET_UNIT): the binary is ExecStart's, the
# KubeletConfiguration its --config (in ExecStart, an Environment= or an EnvironmentFile), the
# flag files its EnvironmentFiles. That is kubeadm's (DEB: /etc/default/kubelet, RPM:
# /etc/sysconfig/kubelet), kind's, and any unit or drop-in that names the kubelet's binary and
# --config. KUBELET_BIN, KUBELET_CONFIG and KUBELET_FLAG_FILES (space-separated) override it.
# Gates are set in the KubeletConfiguration's featureGates and removed from it and from
# --feature-gates flags in the flag files; a gate named in a unit file is refused (edit it by
# hand), as is a JSON KubeletConfiguration.
#
# install and rollback check the binary first (it runs, it is or is not probewheel, the gates
# it knows), edit copies of the files before the kubelet stops, keep the previous binary and
# files as <file>.before-swap-<UTC time> (one set per swap), and restore them (and restart
# again) if the new kubelet is not healthy within KUBELET_SWAP_WAIT seconds (60), at
# KUBELET_HEALTHZ (http://127.0.0.1:10248/healthz). check runs $KUBECTL (kubectl).
set -euo pipefail
shopt -s inherit_errexit

unit=${KUBELET_UNIT:-kubelet.service}
healthz=${KUBELET_HEALTHZ:-http://127.0.0.1:10248/healthz}
wait_s=${KUBELET_SWAP_WAIT:-60}
kubectl=${KUBECTL:-kubectl}
# probewheel's feature gates: a stock kubelet knows neither.
gates=(ProbeTimerWheel ProbeExecLimit)
# The exec limit's setting in kubelets before its gate (v1.37.2-probewheel.5 and older).
limit_env=PROBEWHEEL_EXEC_LIMIT

die() {
  echo "kubelet-swap: $*" >&2
  exit 1
}
log() { echo "kubelet-swap: $*" >&2; }
usage() {
  echo "usage: ${0##*/} install <kubelet> [--gate=on|off] [--exec-limit=on|off] | rollback <stock kubelet> [--any-release] | layout | check <node> <probewheel|gate-off|stock> [--exec-limit=on|off] | --help" >&2
  exit 2
}
help() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

# unit_lines: the kubelet unit's lines, its files' headers ("# /path") kept, other comments
# and blank lines dropped.
unit_lines() {
  systemctl cat "${unit}" 2>/dev/null | awk '/^# \//{print; next} /^[[:space:]]*([#;]|$)/{next} {print}'
}

# discover: sets bin, config and flag_files from the unit (or the overrides), and
# unit_gates to the unit file lines that name a gate or the old variable.
discover() {
  local text exec='' line word f
  local -a env_files=() words=()
  unit_gates=()
  if [[ -z ${KUBELET_BIN:-} || -z ${KUBELET_CONFIG:-} || -z ${KUBELET_FLAG_FILES+set} ]]; then
    text=$(unit_lines) || true
    [[ -n ${text} ]] || die "systemctl cat ${unit} shows nothing: no kubelet unit here? Set KUBELET_BIN, KUBELET_CONFIG and KUBELET_FLAG_FILES"
    local file=
    while IFS= read -r line; do
      line=${line#"${line%%[![:space:]]*}"}
      case ${line} in
        "# /"*) file=${line#\# } ;;
        ExecStart=*) exec=${line#ExecStart=} ;; # the last wins; an empty one resets
        EnvironmentFile=) env_files=() ;;
        EnvironmentFile=*) word=${line#EnvironmentFile=} && env_files+=("${word#-}") ;;
      esac
      if [[ ${line} != "# /"* && ${line} =~ ${gates[0]}|${gates[1]}|${limit_env} ]]; then
        unit_gates+=("${file}: ${line}")
      fi
    done <<<"${text}"
    [[ -n ${exec} ]] || die "${unit} has no ExecStart"
    read -ra words <<<"${exec}"
    word=${words[0]}
    word=${word##[-@:+!]}
    word=${word##[-@:+!]}
    [[ ${word} == /* ]] || die "${unit}'s ExecStart does not start with the kubelet's path: ${exec}"
    bin=${word}
    local envs=
    ((${#env_files[@]} == 0)) || envs=$(cat "${env_files[@]}" 2>/dev/null || true)
    config=$(config_flag <<<"${text}"$'\n'"${envs}")
  fi
  # The overrides, then the flag files that exist (an EnvironmentFile=- may be missing).
  bin=${KUBELET_BIN:-${bin}}
  config=${KUBELET_CONFIG:-${config}}
  [[ -z ${KUBELET_FLAG_FILES+set} ]] || read -ra env_files <<<"${KUBELET_FLAG_FILES}"
  flag_files=()
  for f in "${env_files[@]}"; do
    [[ -f ${f} ]] && flag_files+=("${f}")
  done
  return 0
}

# config_flag: the last --config=<path> or --config <path> of the text on stdin (in an
# Environment= too: KUBELET_CONFIG_ARGS=--config=...).
config_flag() {
  { grep -oE '(^|[[:space:]"'"'"'=])--config([[:space:]]+|=)[^[:space:]"'"'"']+' || true; } | tail -n1 |
    sed -E 's/^[[:space:]"'"'"'=]*--config([[:space:]]+|=)//'
}

# drop_gate_config <file> <gate>: removes the gate from a KubeletConfiguration's featureGates,
# block or flow style.
drop_gate_config() {
  sed -i -E \
    -e "/^[[:space:]]+$2:[[:space:]]*(true|false)[[:space:]]*\$/d" \
    -e "/featureGates:/s/,[[:space:]]*$2:[[:space:]]*(true|false)//" \
    -e "/featureGates:/s/$2:[[:space:]]*(true|false),?[[:space:]]*//" \
    "$1"
}

# drop_gate_flags <file> <gate>: removes the gate from --feature-gates flags, and a flag left
# empty.
drop_gate_flags() {
  sed -i -E \
    -e "/--feature-gates=/s/,$2=(true|false)//" \
    -e "/--feature-gates=/s/--feature-gates=$2=(true|false),?/--feature-gates=/" \
    -e 's/ ?--feature-gates=([[:space:]"]|$)/\1/' \
    "$1"
}

# set_gate_config <file> <gate>: <gate>: false in the KubeletConfiguration's featureGates
# (drop_gate_config first), block or flow style, or a new block at the end.
set_gate_config() {
  local f=$1 gate=$2 indent
  if grep -qE '^featureGates:[[:space:]]*\{' "${f}"; then
    sed -i -E "s/^featureGates:[[:space:]]*\{[[:space:]]*\}/featureGates: {${gate}: false}/; t; s/^featureGates:[[:space:]]*\{/featureGates: {${gate}: false, /" "${f}"
  elif grep -qE '^featureGates:[[:space:]]*$' "${f}"; then
    indent=$(awk '/^featureGates:/{getline; match($0, /^[[:space:]]+/); if (RLENGTH > 0) print substr($0, 1, RLENGTH); exit}' "${f}")
    indent=${indent:-  }
    sed -i -E "/^featureGates:[[:space:]]*\$/a\\
${indent}${gate}: false" "${f}"
  else
    [[ -s ${f} && $(tail -c1 "${f}") != "" ]] && echo >>"${f}"
    printf 'featureGates:\n  %s: false\n' "${gate}" >>"${f}"
  fi
}

# drop_env <file>: removes the pre-gate exec limit variable's lines.
drop_env() { sed -i -E "/^(export[[:space:]]+)?${limit_env}=/d" "$1"; }

# set_env_off <file>: the pre-gate exec limit off, as a line of the environment file.
set_env_off() {
  drop_env "$1"
  [[ -s $1 && $(tail -c1 "$1") != "" ]] && echo >>"$1"
  echo "${limit_env}=off" >>"$1"
}

# limit_setting <config> <flag files...>: the node's exec limit, "off", "on" or "fixed <n>":
# ProbeExecLimit false in the configuration or a flag, else the old variable.
limit_setting() {
  local cfg=$1 v
  shift
  if { [[ -f ${cfg} ]] && grep -qE "(^[[:space:]]+|[{,][[:space:]]*)ProbeExecLimit:[[:space:]]*false" "${cfg}"; } ||
    { (($# > 0)) && grep -qE -- "--feature-gates=[^[:space:]\"]*ProbeExecLimit=false" "$@"; }; then
    echo off
    return
  fi
  v=
  if (($# > 0)); then
    v=$({ grep -hoE "^(export[[:space:]]+)?${limit_env}=[^[:space:]]*" "$@" || true; } | tail -n1 | sed -E 's/^.*=//; s/"//g')
  fi
  case ${v} in
    off | 0) echo off ;;
    "" | adaptive) echo on ;;
    *) echo "fixed ${v}" ;;
  esac
}

# release_of <version string>: the Kubernetes release a kubelet is built on.
release_of() {
  local v=${1##* }
  echo "${v%%-probewheel*}"
}

healthy() { curl -fsS --max-time 2 "${healthz}" >/dev/null 2>&1; }

wait_healthy() {
  local i
  for ((i = 0; i < wait_s; i++)); do
    healthy && return 0
    sleep 1
  done
  return 1
}

# swap <new binary> <want: probewheel|stock> <gate: on|off> <limit: on|off|carry> <any release: 0|1>
swap() {
  local new=$1 want=$2 gate=$3 limit=$4 any=$5 version current f knows_limit=0 stamp
  [[ $(id -u) == 0 ]] || die "run it as root on the node"
  [[ -x ${new} ]] || die "${new}: not an executable"
  version=$("${new}" --version 2>&1) || die "${new} --version failed: ${version}"
  version=${version%%$'\n'*}
  discover
  [[ -x ${bin} ]] || die "${bin}: no kubelet there (${unit}'s ExecStart, or KUBELET_BIN)"
  [[ -n ${config} ]] || die "no KubeletConfiguration: ${unit} names no --config (set KUBELET_CONFIG)"
  [[ -f ${config} ]] || die "${config}: the KubeletConfiguration ${unit} names is not there"
  if grep -qE '^[[:space:]]*\{' "${config}"; then
    die "${config} is JSON; this script edits YAML only: set featureGates by hand"
  fi
  if ((${#unit_gates[@]} > 0)); then
    die "a unit file names probewheel's settings, which this script does not edit; remove them by hand: $(printf '\n  %s' "${unit_gates[@]}")"
  fi
  current=$("${bin}" --version 2>&1 | head -n1 || echo unknown)
  case ${want} in
    probewheel)
      [[ ${version} == *probewheel* ]] || die "${new} is ${version}, not a probewheel kubelet"
      if [[ $(release_of "${version}") != "$(release_of "${current}")" ]]; then
        log "note: the node runs ${current}; ${new} is built on $(release_of "${version}"): a rollback will need that release's stock kubelet"
      fi
      ;;
    stock)
      [[ ${version} != *probewheel* ]] || die "${new} is ${version}: a rollback installs the stock kubelet"
      if [[ ${any} == 0 && $(release_of "${version}") != "$(release_of "${current}")" ]]; then
        die "the node's kubelet (${current}) is built on $(release_of "${current}"), ${new} is ${version}: roll back to the same release's stock kubelet (--any-release to install another)"
      fi
      ;;
  esac
  if [[ ${want} == probewheel ]] && { "${new}" --help 2>&1 || true; } | grep 'ProbeExecLimit=true|false' >/dev/null; then
    knows_limit=1
  fi
  if [[ ${limit} == carry ]]; then
    limit=$(limit_setting "${config}" "${flag_files[@]}")
  fi
  if [[ ${limit} == fixed* ]]; then
    if ((knows_limit)); then
      die "${limit_env}=${limit#fixed } fixes the exec limit; ${version}'s limit is adaptive or off: pass --exec-limit=on or --exec-limit=off"
    fi
  fi
  # The flag file an older kubelet's variable goes in: the last one, not kubeadm's own
  # (kubeadm-flags.env, written again by kubeadm join and upgrade).
  local env_file=
  for f in "${flag_files[@]}"; do
    [[ ${f} == */kubeadm-flags.env ]] || env_file=${f}
  done

  # The files to edit and their edited copies, made and checked before the kubelet stops.
  local -a files=("${config}" "${flag_files[@]}") edited=()
  local work i g
  work=$(mktemp -d)
  trap 'rm -rf "${work}"' RETURN
  for i in "${!files[@]}"; do
    f=${files[i]}
    edited[i]=${work}/${i}
    cp -p "${f}" "${edited[i]}"
    for g in "${gates[@]}"; do
      if ((i == 0)); then drop_gate_config "${edited[i]}" "${g}"; else drop_gate_flags "${edited[i]}" "${g}"; fi
    done
    if grep -qE "${gates[0]}|${gates[1]}" "${edited[i]}"; then
      die "${f}: a gate is set in a form this script does not edit; remove it by hand: $(grep -E "${gates[0]}|${gates[1]}" "${edited[i]}")"
    fi
  done
  local limit_note=
  if [[ ${want} == probewheel ]]; then
    [[ ${gate} == on ]] || set_gate_config "${edited[0]}" ProbeTimerWheel
    if ((knows_limit)); then
      [[ ${limit} == on ]] || set_gate_config "${edited[0]}" ProbeExecLimit
      for i in "${!files[@]}"; do ((i == 0)) || drop_env "${edited[i]}"; done
      limit_note="exec limit ${limit}"
    else
      [[ ${limit} != on ]] || for i in "${!files[@]}"; do ((i == 0)) || drop_env "${edited[i]}"; done
      if [[ ${limit} == off ]]; then
        [[ -n ${env_file} ]] || die "${version} has no ProbeExecLimit gate, and ${unit} reads no environment file for ${limit_env}=off"
        for i in "${!files[@]}"; do
          [[ ${files[i]} != "${env_file}" ]] || set_env_off "${edited[i]}"
        done
      fi
      limit_note="exec limit ${limit} (${version} has no ProbeExecLimit gate: ${limit_env})"
    fi
  else
    [[ $(limit_setting "${config}" "${flag_files[@]}") == on ]] || limit_note="the exec limit's setting is dropped: a stock kubelet has none"
  fi

  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  while [[ -e ${bin}.before-swap-${stamp} ]]; do stamp=${stamp}-1; done
  log "${version} -> ${bin} (${current} now), gate ${gate}${limit_note:+, ${limit_note}}, in one restart; backups *.before-swap-${stamp}"
  cp -p "${bin}" "${bin}.before-swap-${stamp}"
  for f in "${files[@]}"; do
    cp -p "${f}" "${f}.before-swap-${stamp}"
  done
  systemctl stop "${unit}"
  install -m 0755 "${new}" "${bin}"
  for i in "${!files[@]}"; do
    cat "${edited[i]}" >"${files[i]}"
  done
  systemctl start "${unit}"
  if wait_healthy; then
    log "the kubelet is healthy: $("${bin}" --version)"
    return 0
  fi
  log "the kubelet is not healthy after ${wait_s}s: restoring the previous binary and files"
  journalctl -u "${unit}" -n 20 --no-pager >&2 || true
  systemctl stop "${unit}"
  install -m 0755 "${bin}.before-swap-${stamp}" "${bin}"
  for f in "${files[@]}"; do
    cat "${f}.before-swap-${stamp}" >"${f}"
  done
  systemctl start "${unit}"
  wait_healthy || log "the restored kubelet is not healthy either"
  die "swap failed; the node runs $("${bin}" --version 2>&1) again"
}

layout() {
  discover
  echo "unit: ${unit}"
  echo "binary: ${bin} ($("${bin}" --version 2>&1 | head -n1 || echo "does not run"))"
  echo "KubeletConfiguration: ${config:-none}"
  echo "flag files: ${flag_files[*]:-none}"
  echo "exec limit: $(limit_setting "${config}" "${flag_files[@]}")"
  if ((${#unit_gates[@]} > 0)); then printf 'set in a unit file (edit by hand): %s\n' "${unit_gates[@]}"; fi
}

# check <node> <probewheel|gate-off|stock> [on|off]
check() {
  local node=$1 want=$2 limit=${3:-} version ready scheduler enabled
  version=$("${kubectl}" get node "${node}" -o jsonpath='{.status.nodeInfo.kubeletVersion}')
  ready=$("${kubectl}" get node "${node}" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')
  scheduler=$("${kubectl}" get --raw "/api/v1/nodes/${node}/proxy/metrics/probes" | grep -c '^prober_scheduler_probes_in_flight' || true)
  enabled=$("${kubectl}" get --raw "/api/v1/nodes/${node}/proxy/metrics" |
    sed -nE 's/^kubernetes_feature_enabled\{name="ProbeExecLimit"[^}]*\} ([01]).*/\1/p' | head -n1 || true)
  case ${enabled} in 1) enabled=on ;; 0) enabled=off ;; *) enabled=none ;; esac
  echo "${node}: kubelet ${version}, Ready ${ready}, scheduler on /metrics/probes: ${scheduler}, ProbeExecLimit: ${enabled}"
  [[ ${ready} == True ]] || die "${node} is not Ready"
  case ${want} in
    probewheel) [[ ${version} == *probewheel* && ${scheduler} == 1 ]] || die "${node} does not run probewheel with the gate on" ;;
    gate-off) [[ ${version} == *probewheel* && ${scheduler} == 0 ]] || die "${node} does not run probewheel with the gate off" ;;
    stock) [[ ${version} != *probewheel* && ${scheduler} == 0 ]] || die "${node} does not run the stock kubelet" ;;
    *) usage ;;
  esac
  [[ -z ${limit} || ${limit} == "${enabled}" ]] || die "${node}'s exec limit is ${enabled}, not ${limit}"
}

# Sourced (scripts/kubelet-swap_test.sh): the functions only.
[[ ${BASH_SOURCE[0]} == "$0" ]] || return 0

cmd=${1:-}
(($# == 0)) || shift
gate=on limit=carry any=0 args=()
# only <command> <flag>...: the flags each command takes
takes() { [[ " $* " == *" ${cmd} "* ]] || usage; }
for a in "$@"; do
  case ${a} in
    --gate=on | --gate=off) takes install && gate=${a#--gate=} ;;
    --exec-limit=on | --exec-limit=off) takes install check && limit=${a#--exec-limit=} ;;
    --any-release) takes rollback && any=1 ;;
    -*) usage ;;
    *) args+=("${a}") ;;
  esac
done
# count <n>: the command's arguments
count() { ((${#args[@]} == $1)) || usage; }
case ${cmd} in
  -h | --help | help) help ;;
  install) count 1 && swap "${args[0]}" probewheel "${gate}" "${limit}" 0 ;;
  rollback) count 1 && swap "${args[0]}" stock on on "${any}" ;;
  layout) count 0 && layout ;;
  check)
    count 2
    [[ ${limit} != carry ]] || limit=
    check "${args[0]}" "${args[1]}" "${limit}"
    ;;
  *) usage ;;
esac
