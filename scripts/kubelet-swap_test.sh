#!/usr/bin/env bash
# Table test of scripts/kubelet-swap.sh (make test runs it): its edits of the kubelet's
# configuration and flag files, each case a file before and after; then whole swaps on a
# scratch node (fake systemctl, kubelet binaries and healthz), a healthy one and one whose
# new kubelet never becomes healthy and is undone.
set -euo pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
failed=0
ok() { echo "ok   $1"; }
fail() {
  echo "FAIL $1"
  failed=1
}

# shellcheck source=scripts/kubelet-swap.sh
source "${here}/kubelet-swap.sh"

# edit <name> <function> <before> <after>
edit() {
  printf '%s\n' "$3" >"${work}/f"
  "$2" "${work}/f"
  if [[ $(cat "${work}/f") == "$4" ]]; then ok "$1"; else fail "$1: got"$'\n'"$(cat "${work}/f")"$'\n'"want"$'\n'"$4"; fi
}
cfg=$'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration'
edit "config: block style, the only gate" drop_gate_config \
  "${cfg}"$'\nfeatureGates:\n  ProbeTimerWheel: false\nport: 10250' "${cfg}"$'\nfeatureGates:\nport: 10250'
edit "config: block style, among others" drop_gate_config \
  "${cfg}"$'\nfeatureGates:\n  A: true\n  ProbeTimerWheel: true\n  B: false' "${cfg}"$'\nfeatureGates:\n  A: true\n  B: false'
edit "config: flow style, first" drop_gate_config \
  "${cfg}"$'\nfeatureGates: {ProbeTimerWheel: false, A: true}' "${cfg}"$'\nfeatureGates: {A: true}'
edit "config: flow style, last" drop_gate_config \
  "${cfg}"$'\nfeatureGates: {A: true, ProbeTimerWheel: false}' "${cfg}"$'\nfeatureGates: {A: true}'
edit "config: other lists keep their commas" drop_gate_config \
  "${cfg}"$'\ntlsCipherSuites: [A, B]\nfeatureGates: {ProbeTimerWheel: false}' "${cfg}"$'\ntlsCipherSuites: [A, B]\nfeatureGates: {}'
edit "config: no gate, unchanged" drop_gate_config "${cfg}"$'\nfeatureGates:\n  A: true' "${cfg}"$'\nfeatureGates:\n  A: true'
edit "flags: the only gate" drop_gate_flags \
  'KUBELET_EXTRA_ARGS=--v=2 --feature-gates=ProbeTimerWheel=false' 'KUBELET_EXTRA_ARGS=--v=2'
edit "flags: first of two" drop_gate_flags \
  'KUBELET_EXTRA_ARGS=--feature-gates=ProbeTimerWheel=false,A=true --v=2' 'KUBELET_EXTRA_ARGS=--feature-gates=A=true --v=2'
edit "flags: last of two, quoted" drop_gate_flags \
  'KUBELET_KUBEADM_ARGS="--feature-gates=A=true,ProbeTimerWheel=true"' 'KUBELET_KUBEADM_ARGS="--feature-gates=A=true"'
edit "flags: the only gate, quoted" drop_gate_flags \
  'KUBELET_KUBEADM_ARGS="--x=1 --feature-gates=ProbeTimerWheel=false"' 'KUBELET_KUBEADM_ARGS="--x=1"'
edit "gate off: no flag yet" set_gate_off 'KUBELET_EXTRA_ARGS=--v=2' 'KUBELET_EXTRA_ARGS=--v=2 --feature-gates=ProbeTimerWheel=false'
edit "gate off: into an existing flag" set_gate_off \
  'KUBELET_EXTRA_ARGS=--feature-gates=A=true' 'KUBELET_EXTRA_ARGS=--feature-gates=ProbeTimerWheel=false,A=true'
edit "gate off: quoted" set_gate_off 'KUBELET_EXTRA_ARGS="--v=2"' 'KUBELET_EXTRA_ARGS="--v=2 --feature-gates=ProbeTimerWheel=false"'
printf 'X=1' >"${work}/g" # no final newline: kind's /etc/default/kubelet
set_gate_off "${work}/g"
if [[ $(cat "${work}/g") == $'X=1\nKUBELET_EXTRA_ARGS= --feature-gates=ProbeTimerWheel=false' ]]; then
  ok "gate off: a file without its final newline"
else fail "gate off: a file without its final newline: $(cat "${work}/g")"; fi

# A scratch node: systemctl and journalctl are fakes on PATH; "healthy" is a file the fake
# systemctl start writes when the installed kubelet's version does not say "broken".
node=${work}/node
mkdir -p "${node}/bin" "${node}/usr/bin" "${node}/etc/default" "${node}/var/lib/kubelet"
cat >"${node}/bin/systemctl" <<FAKE
#!/usr/bin/env bash
case \$1 in
  stop) rm -f "${node}/healthy" ;;
  start) "${node}/usr/bin/kubelet" --version | grep broken >/dev/null || touch "${node}/healthy" ;;
esac
FAKE
printf '#!/bin/sh\nexit 0\n' >"${node}/bin/journalctl"
printf '#!/bin/sh\n[ -f "%s/healthy" ] || exit 7\n' "${node}" >"${node}/bin/curl"
chmod +x "${node}/bin/"*
kubelet_of() { printf '#!/bin/sh\necho "Kubernetes %s"\n' "$2" >"$1" && chmod +x "$1"; }
kubelet_of "${node}/usr/bin/kubelet" v1.37.2
kubelet_of "${work}/pw" v1.37.2-probewheel.3
kubelet_of "${work}/stock" v1.37.2
kubelet_of "${work}/broken" v1.37.2-probewheel.3-broken
swap_() {
  PATH=${node}/bin:${PATH} KUBELET_BIN=${node}/usr/bin/kubelet KUBELET_CONFIG=${node}/var/lib/kubelet/config.yaml \
    KUBELET_FLAG_FILES="${node}/etc/default/kubelet ${node}/var/lib/kubelet/kubeadm-flags.env" \
    KUBELET_HEALTHZ=unused KUBELET_SWAP_WAIT=2 "${here}/kubelet-swap.sh" "$@"
}
printf '%s\nfeatureGates:\n  A: true\n' "${cfg}" >"${node}/var/lib/kubelet/config.yaml"
printf 'KUBELET_KUBEADM_ARGS="--x=1"\n' >"${node}/var/lib/kubelet/kubeadm-flags.env"
touch "${node}/healthy"
# state: the installed version and where ProbeTimerWheel is named
state() {
  echo "$("${node}/usr/bin/kubelet" --version) gates:$(grep -ho 'ProbeTimerWheel[=:][^,}" ]*' "${node}/etc/default/kubelet" "${node}/var/lib/kubelet/"* 2>/dev/null | tr '\n' ' ')"
}
# run <name> <want: pass|fail> <want state> <args...>
run() {
  local name=$1 want=$2 want_state=$3 got=pass
  shift 3
  swap_ "$@" >"${work}/out" 2>&1 || got=fail
  if [[ ${got} == "${want}" && $(state) == "${want_state}" ]]; then ok "${name}"; else
    fail "${name}: ${got} (want ${want}), state '$(state)' (want '${want_state}')"$'\n'"$(cat "${work}/out")"
  fi
}
run "install, gate off (ship dark)" pass "Kubernetes v1.37.2-probewheel.3 gates:ProbeTimerWheel=false " install "${work}/pw" --gate=off
run "install again, gate on: the flag goes" pass "Kubernetes v1.37.2-probewheel.3 gates:" install "${work}/pw"
run "rollback refuses a probewheel binary" fail "Kubernetes v1.37.2-probewheel.3 gates:" rollback "${work}/pw"
run "install refuses a stock binary" fail "Kubernetes v1.37.2-probewheel.3 gates:" install "${work}/stock"
swap_ install "${work}/pw" --gate=off >/dev/null 2>&1
run "rollback: stock binary, gate gone, in one restart" pass "Kubernetes v1.37.2 gates:" rollback "${work}/stock"
run "a kubelet that never gets healthy is undone" fail "Kubernetes v1.37.2 gates:" install "${work}/broken" --gate=off
[[ -f ${node}/healthy ]] && ok "the undone node is healthy again" || fail "the undone node is not healthy"
grep -q '^  A: true$' "${node}/var/lib/kubelet/config.yaml" && ok "other gates kept" || fail "other gates lost"

exit "${failed}"
