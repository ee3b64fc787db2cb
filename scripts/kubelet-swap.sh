#!/usr/bin/env bash
# Swaps a node's kubelet binary in one restart: probewheel in, or back to the stock kubelet of
# the same release, with the ProbeTimerWheel gate set or cleared in the same restart
# (docs/operating.md#rolling-back says why it cannot take two). Run it as root on the node
# (kubeadm's layout: kubelet.service, /usr/bin/kubelet, /var/lib/kubelet/config.yaml,
# /etc/default/kubelet; kind's nodes have it too). Then, from where kubectl reaches the
# cluster, `check` says what the node runs.
#
#   kubelet-swap.sh install <kubelet binary> [--gate=on|off]
#       the probewheel kubelet; --gate=off names ProbeTimerWheel=false in KUBELET_EXTRA_ARGS
#       (ship dark), --gate=on (the default) removes every ProbeTimerWheel setting: the
#       gate's default, on.
#   kubelet-swap.sh rollback <stock kubelet binary>
#       the stock kubelet, every ProbeTimerWheel setting removed (a stock kubelet refuses to
#       start while the gate is named, even as false).
#   kubelet-swap.sh check <node> <probewheel|gate-off|stock>
#       kubectl: the node's kubelet version, Ready, and whether its /metrics/probes serves
#       the scheduler (the gate on); exits 1 if the node is not what the second word says.
#
# install and rollback check the binary first (it runs, it is or is not probewheel), edit the
# files before the kubelet stops, keep the previous binary and files as <file>.before-swap,
# and restore them (and restart again) if the new kubelet is not healthy within
# KUBELET_SWAP_WAIT seconds (60). Paths: KUBELET_BIN (/usr/bin/kubelet), KUBELET_CONFIG
# (/var/lib/kubelet/config.yaml), KUBELET_FLAG_FILES (/etc/default/kubelet
# /var/lib/kubelet/kubeadm-flags.env /etc/sysconfig/kubelet: those that exist),
# KUBELET_HEALTHZ (http://127.0.0.1:10248/healthz); check runs $KUBECTL (kubectl).
set -euo pipefail
shopt -s inherit_errexit

bin=${KUBELET_BIN:-/usr/bin/kubelet}
config=${KUBELET_CONFIG:-/var/lib/kubelet/config.yaml}
read -ra flag_files <<<"${KUBELET_FLAG_FILES:-/etc/default/kubelet /var/lib/kubelet/kubeadm-flags.env /etc/sysconfig/kubelet}"
healthz=${KUBELET_HEALTHZ:-http://127.0.0.1:10248/healthz}
wait_s=${KUBELET_SWAP_WAIT:-60}
kubectl=${KUBECTL:-kubectl}

die() {
  echo "kubelet-swap: $*" >&2
  exit 1
}
log() { echo "kubelet-swap: $*" >&2; }
usage() { die "usage: ${0##*/} install <kubelet> [--gate=on|off] | rollback <stock kubelet> | check <node> <probewheel|gate-off|stock>"; }

# drop_gate_config <file>: removes ProbeTimerWheel from a KubeletConfiguration's featureGates,
# block or flow style.
drop_gate_config() {
  sed -i -E \
    -e '/^[[:space:]]+ProbeTimerWheel:[[:space:]]*(true|false)[[:space:]]*$/d' \
    -e '/featureGates:/s/,[[:space:]]*ProbeTimerWheel:[[:space:]]*(true|false)//' \
    -e '/featureGates:/s/ProbeTimerWheel:[[:space:]]*(true|false),?[[:space:]]*//' \
    "$1"
}

# drop_gate_flags <file>: removes ProbeTimerWheel from --feature-gates flags, and a flag left
# empty.
drop_gate_flags() {
  sed -i -E \
    -e '/--feature-gates=/s/,ProbeTimerWheel=(true|false)//' \
    -e '/--feature-gates=/s/--feature-gates=ProbeTimerWheel=(true|false),?/--feature-gates=/' \
    -e 's/ ?--feature-gates=([[:space:]"]|$)/\1/' \
    "$1"
}

# set_gate_off <file>: names ProbeTimerWheel=false in the file's KUBELET_EXTRA_ARGS.
set_gate_off() {
  local f=$1
  [[ -s ${f} && $(tail -c1 "${f}") != "" ]] && echo >>"${f}"
  grep -q '^KUBELET_EXTRA_ARGS=' "${f}" || echo 'KUBELET_EXTRA_ARGS=' >>"${f}"
  if grep -q '^KUBELET_EXTRA_ARGS=.*--feature-gates=' "${f}"; then
    sed -i -E 's/^(KUBELET_EXTRA_ARGS=.*--feature-gates=)/\1ProbeTimerWheel=false,/' "${f}"
  elif grep -q '^KUBELET_EXTRA_ARGS=".*"[[:space:]]*$' "${f}"; then
    sed -i -E 's/^(KUBELET_EXTRA_ARGS=".*)"[[:space:]]*$/\1 --feature-gates=ProbeTimerWheel=false"/' "${f}"
  else
    sed -i -E 's/^(KUBELET_EXTRA_ARGS=.*)$/\1 --feature-gates=ProbeTimerWheel=false/' "${f}"
  fi
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

# swap <new binary> <want: probewheel|stock> <gate: on|off>
swap() {
  local new=$1 want=$2 gate=$3 version f
  [[ $(id -u) == 0 ]] || die "run it as root on the node"
  [[ -x ${new} ]] || die "${new}: not an executable"
  version=$("${new}" --version 2>&1) || die "${new} --version failed: ${version}"
  case ${want} in
    probewheel) [[ ${version} == *probewheel* ]] || die "${new} is ${version}, not a probewheel kubelet" ;;
    stock) [[ ${version} != *probewheel* ]] || die "${new} is ${version}: a rollback installs the stock kubelet" ;;
  esac
  [[ -x ${bin} ]] || die "${bin}: no kubelet there (KUBELET_BIN)"
  # The files to edit, their edited copies (made and checked before the kubelet stops).
  local -a files=() edited=()
  local work i
  work=$(mktemp -d)
  trap 'rm -rf "${work}"' RETURN
  [[ -f ${config} ]] && files+=("${config}")
  for f in "${flag_files[@]}"; do
    [[ -f ${f} ]] && files+=("${f}")
  done
  if [[ ${gate} == off && ! -f ${flag_files[0]} ]]; then
    files+=("${flag_files[0]}")
  fi
  for i in "${!files[@]}"; do
    f=${files[i]}
    edited[i]=${work}/${i}
    if [[ -f ${f} ]]; then cp -p "${f}" "${edited[i]}"; else : >"${edited[i]}"; fi
    if [[ ${f} == "${config}" ]]; then drop_gate_config "${edited[i]}"; else drop_gate_flags "${edited[i]}"; fi
    if grep -q ProbeTimerWheel "${edited[i]}"; then
      die "${f}: ProbeTimerWheel is set in a form this script does not edit; remove it by hand: $(grep ProbeTimerWheel "${edited[i]}")"
    fi
    if [[ ${gate} == off && ${f} == "${flag_files[0]}" ]]; then
      set_gate_off "${edited[i]}"
    fi
  done

  log "${version%%$'\n'*} -> ${bin} ($("${bin}" --version 2>&1 || echo unknown) now), gate ${gate}, in one restart"
  cp -p "${bin}" "${bin}.before-swap"
  for f in "${files[@]}"; do
    if [[ -f ${f} ]]; then cp -p "${f}" "${f}.before-swap"; else : >"${f}.before-swap"; fi
  done
  systemctl stop kubelet
  install -m 0755 "${new}" "${bin}"
  for i in "${!files[@]}"; do
    cat "${edited[i]}" >"${files[i]}"
  done
  systemctl start kubelet
  if wait_healthy; then
    log "the kubelet is healthy: $("${bin}" --version)"
    return 0
  fi
  log "the kubelet is not healthy after ${wait_s}s: restoring the previous binary and files"
  journalctl -u kubelet -n 20 --no-pager >&2 || true
  systemctl stop kubelet
  install -m 0755 "${bin}.before-swap" "${bin}"
  for f in "${files[@]}"; do
    cat "${f}.before-swap" >"${f}"
  done
  systemctl start kubelet
  wait_healthy || log "the restored kubelet is not healthy either"
  die "swap failed; the node runs $("${bin}" --version 2>&1) again"
}

# check <node> <probewheel|gate-off|stock>
check() {
  local node=$1 want=$2 version ready scheduler
  version=$("${kubectl}" get node "${node}" -o jsonpath='{.status.nodeInfo.kubeletVersion}')
  ready=$("${kubectl}" get node "${node}" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')
  scheduler=$("${kubectl}" get --raw "/api/v1/nodes/${node}/proxy/metrics/probes" | grep -c '^prober_scheduler_probes_in_flight' || true)
  echo "${node}: kubelet ${version}, Ready ${ready}, scheduler on /metrics/probes: ${scheduler}"
  [[ ${ready} == True ]] || die "${node} is not Ready"
  case ${want} in
    probewheel) [[ ${version} == *probewheel* && ${scheduler} == 1 ]] || die "${node} does not run probewheel with the gate on" ;;
    gate-off) [[ ${version} == *probewheel* && ${scheduler} == 0 ]] || die "${node} does not run probewheel with the gate off" ;;
    stock) [[ ${version} != *probewheel* && ${scheduler} == 0 ]] || die "${node} does not run the stock kubelet" ;;
    *) usage ;;
  esac
}

# Sourced (scripts/kubelet-swap_test.sh): the functions only.
[[ ${BASH_SOURCE[0]} == "$0" ]] || return 0

case ${1:-} in
  install)
    [[ $# -ge 2 && $# -le 3 ]] || usage
    gate=on
    if [[ $# == 3 ]]; then
      case $3 in --gate=on) gate=on ;; --gate=off) gate=off ;; *) usage ;; esac
    fi
    swap "$2" probewheel "${gate}"
    ;;
  rollback)
    [[ $# == 2 ]] || usage
    swap "$2" stock on
    ;;
  check)
    [[ $# == 3 ]] || usage
    check "$2" "$3"
    ;;
  *) usage ;;
esac
