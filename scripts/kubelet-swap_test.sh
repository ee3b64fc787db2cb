#!/usr/bin/env bash
# Table test of scripts/kubelet-swap.sh (make test runs it): its edits of the kubelet's
# configuration and flag files, each case a file before and after; the layouts it finds
# (kubeadm's DEB and RPM units, a unit with its own drop-in, kind's), and what it refuses;
# then whole swaps on scratch nodes of each layout (fake systemctl, kubelet binaries and
# healthz): gates set and carried, releases checked, backups kept per swap, and a new kubelet
# that never becomes healthy undone.
set -euo pipefail
shopt -s inherit_errexit
case ${1:-} in
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" && exit 0 ;;
  ?*) echo "usage: $0 [--help]" >&2 && exit 2 ;;
esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
failed=0
ok() { echo "ok   $1"; }
fail() {
  echo "FAIL $1"
  failed=1
}
# expect <name> <got> <want>
expect() {
  if [[ $2 == "$3" ]]; then ok "$1"; else fail "$1: got"$'\n'"$2"$'\n'"want"$'\n'"$3"; fi
}

# shellcheck source=scripts/kubelet-swap.sh
source "${here}/kubelet-swap.sh"

# edit <name> <before> <after> <command...>: the command's edit of a file holding before.
edit() {
  local name=$1 before=$2 after=$3
  shift 3
  printf '%s\n' "${before}" >"${work}/f"
  "$@" "${work}/f"
  expect "${name}" "$(cat "${work}/f")" "${after}"
}
G=ProbeTimerWheel L=ProbeExecLimit
cfg=$'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration'
drop_gate_config_() { drop_gate_config "$2" "$1"; }
drop_gate_flags_() { drop_gate_flags "$2" "$1"; }
set_gate_config_() { set_gate_config "$2" "$1"; }
edit "config: block style, the only gate" "${cfg}"$'\nfeatureGates:\n  ProbeTimerWheel: false\nport: 10250' \
  "${cfg}"$'\nfeatureGates:\nport: 10250' drop_gate_config_ "${G}"
edit "config: block style, among others" "${cfg}"$'\nfeatureGates:\n  A: true\n  ProbeExecLimit: false\n  B: false' \
  "${cfg}"$'\nfeatureGates:\n  A: true\n  B: false' drop_gate_config_ "${L}"
edit "config: flow style, first" "${cfg}"$'\nfeatureGates: {ProbeTimerWheel: false, A: true}' \
  "${cfg}"$'\nfeatureGates: {A: true}' drop_gate_config_ "${G}"
edit "config: flow style, last" "${cfg}"$'\nfeatureGates: {A: true, ProbeTimerWheel: false}' \
  "${cfg}"$'\nfeatureGates: {A: true}' drop_gate_config_ "${G}"
edit "config: other lists keep their commas" "${cfg}"$'\ntlsCipherSuites: [A, B]\nfeatureGates: {ProbeTimerWheel: false}' \
  "${cfg}"$'\ntlsCipherSuites: [A, B]\nfeatureGates: {}' drop_gate_config_ "${G}"
edit "config: the other gate kept" "${cfg}"$'\nfeatureGates:\n  ProbeExecLimit: false' \
  "${cfg}"$'\nfeatureGates:\n  ProbeExecLimit: false' drop_gate_config_ "${G}"
edit "flags: the only gate" 'KUBELET_EXTRA_ARGS=--v=2 --feature-gates=ProbeTimerWheel=false' \
  'KUBELET_EXTRA_ARGS=--v=2' drop_gate_flags_ "${G}"
edit "flags: first of two" 'KUBELET_EXTRA_ARGS=--feature-gates=ProbeExecLimit=false,A=true --v=2' \
  'KUBELET_EXTRA_ARGS=--feature-gates=A=true --v=2' drop_gate_flags_ "${L}"
edit "flags: last of two, quoted" 'KUBELET_KUBEADM_ARGS="--feature-gates=A=true,ProbeTimerWheel=true"' \
  'KUBELET_KUBEADM_ARGS="--feature-gates=A=true"' drop_gate_flags_ "${G}"
edit "flags: the only gate, quoted" 'KUBELET_KUBEADM_ARGS="--x=1 --feature-gates=ProbeTimerWheel=false"' \
  'KUBELET_KUBEADM_ARGS="--x=1"' drop_gate_flags_ "${G}"
edit "set: into a block" "${cfg}"$'\nfeatureGates:\n    A: true' \
  "${cfg}"$'\nfeatureGates:\n    ProbeTimerWheel: false\n    A: true' set_gate_config_ "${G}"
edit "set: into a flow" "${cfg}"$'\nfeatureGates: {A: true}' \
  "${cfg}"$'\nfeatureGates: {ProbeExecLimit: false, A: true}' set_gate_config_ "${L}"
edit "set: into an empty flow" "${cfg}"$'\nfeatureGates: {}' \
  "${cfg}"$'\nfeatureGates: {ProbeExecLimit: false}' set_gate_config_ "${L}"
edit "set: an emptied block" "${cfg}"$'\nfeatureGates:\nport: 10250' \
  "${cfg}"$'\nfeatureGates:\n  ProbeTimerWheel: false\nport: 10250' set_gate_config_ "${G}"
edit "set: no featureGates yet" "${cfg}" "${cfg}"$'\nfeatureGates:\n  ProbeTimerWheel: false' set_gate_config_ "${G}"
printf 'X=1' >"${work}/g" # no final newline: kind's /etc/default/kubelet
set_env_off "${work}/g"
expect "old variable: a file without its final newline" "$(cat "${work}/g")" $'X=1\nPROBEWHEEL_EXEC_LIMIT=off'

# limit <name> <want> <config text> <flag file text>
limit() {
  printf '%s\n' "$3" >"${work}/c"
  printf '%s\n' "$4" >"${work}/e"
  expect "exec limit setting: $1" "$(limit_setting "${work}/c" "${work}/e")" "$2"
}
limit "none" on "${cfg}" 'KUBELET_EXTRA_ARGS='
limit "gate false in the config" off "${cfg}"$'\nfeatureGates:\n  ProbeExecLimit: false' ''
limit "gate false in a flow" off "${cfg}"$'\nfeatureGates: {A: true, ProbeExecLimit: false}' ''
limit "gate false in a flag" off "${cfg}" 'KUBELET_EXTRA_ARGS="--feature-gates=A=true,ProbeExecLimit=false"'
limit "old variable off" off "${cfg}" 'PROBEWHEEL_EXEC_LIMIT=off'
limit "old variable 0" off "${cfg}" 'PROBEWHEEL_EXEC_LIMIT=0'
limit "old variable adaptive" on "${cfg}" 'PROBEWHEEL_EXEC_LIMIT=adaptive'
limit "old variable fixed" "fixed 8" "${cfg}" 'PROBEWHEEL_EXEC_LIMIT=8'

expect "release of a probewheel kubelet" "$(release_of 'Kubernetes v1.37.2-probewheel.6')" v1.37.2
expect "release of a stock kubelet" "$(release_of 'Kubernetes v1.38.0-beta.0')" v1.38.0-beta.0

# A scratch node of a layout, under root $1: the unit's files (systemctl cat prints them, with
# their "# /path" headers), systemctl and journalctl fakes on PATH; "healthy" is a file the
# fake systemctl start writes when the installed kubelet's version does not say "broken".
# node <root> <layout>: deb, rpm, dropin, kind
node() {
  local r=$1 layout=$2 unitdir drop
  rm -rf "${r}"
  mkdir -p "${r}/bin" "${r}/usr/bin" "${r}/usr/local/bin" "${r}/opt/bin" "${r}/etc/default" "${r}/etc/sysconfig" \
    "${r}/etc/kubernetes" "${r}/var/lib/kubelet"
  case ${layout} in
    deb | rpm | kind)
      unitdir=${r}/lib/systemd/system
      [[ ${layout} != kind ]] || unitdir=${r}/etc/systemd/system
      local user=${r}/etc/default/kubelet
      [[ ${layout} != rpm ]] || user=${r}/etc/sysconfig/kubelet
      mkdir -p "${unitdir}/kubelet.service.d"
      printf '[Unit]\nDescription=kubelet\n\n[Service]\nExecStart=%s/usr/bin/kubelet\nRestart=always\n' "${r}" >"${unitdir}/kubelet.service"
      cat >"${unitdir}/kubelet.service.d/10-kubeadm.conf" <<UNIT
# Note: This dropin only works with kubeadm and kubelet v1.11+
[Service]
Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"
Environment="KUBELET_CONFIG_ARGS=--config=${r}/var/lib/kubelet/config.yaml"
EnvironmentFile=-${r}/var/lib/kubelet/kubeadm-flags.env
EnvironmentFile=-${user}
ExecStart=
ExecStart=${r}/usr/bin/kubelet \$KUBELET_KUBECONFIG_ARGS \$KUBELET_CONFIG_ARGS \$KUBELET_KUBEADM_ARGS \$KUBELET_EXTRA_ARGS
UNIT
      if [[ ${layout} == kind ]]; then
        printf '[Service]\nExecStartPre=/bin/sh -euc "true"\n' >"${unitdir}/kubelet.service.d/11-kind.conf"
        printf 'KUBELET_EXTRA_ARGS=--v=2' >"${user}" # kind's: no final newline
      else
        printf 'KUBELET_EXTRA_ARGS=\n' >"${user}"
      fi
      printf 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n' \
        >"${r}/var/lib/kubelet/kubeadm-flags.env"
      printf '%s\nfeatureGates:\n  A: true\n' "${cfg}" >"${r}/var/lib/kubelet/config.yaml"
      ;;
    dropin)
      unitdir=${r}/etc/systemd/system
      drop=${unitdir}/kubelet.service.d
      mkdir -p "${drop}"
      printf '[Service]\nExecStart=%s/usr/local/bin/kubelet --config %s/etc/kubernetes/old.yaml\n' "${r}" "${r}" >"${unitdir}/kubelet.service"
      cat >"${drop}/20-local.conf" <<UNIT
[Service]
; the node's own flags
EnvironmentFile=${r}/etc/kubernetes/kubelet.env
ExecStart=
ExecStart=${r}/opt/bin/kubelet --config=${r}/etc/kubernetes/kubelet-config.yaml \$KUBELET_ARGS
UNIT
      printf 'KUBELET_ARGS="--node-ip=127.0.0.1"\n' >"${r}/etc/kubernetes/kubelet.env"
      printf '%s\nfeatureGates: {A: true}\n' "${cfg}" >"${r}/etc/kubernetes/kubelet-config.yaml"
      ;;
  esac
  cat >"${r}/bin/systemctl" <<FAKE
#!/usr/bin/env bash
kubelet=\$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "${r}/unit.txt" | tail -n1)
case \$1 in
  cat) cat "${r}/unit.txt" ;;
  stop) rm -f "${r}/healthy" ;;
  start) "\${kubelet}" --version | grep broken >/dev/null || touch "${r}/healthy" ;;
esac
FAKE
  printf '#!/bin/sh\nexit 0\n' >"${r}/bin/journalctl"
  printf '#!/bin/sh\n[ -f "%s/healthy" ] || exit 7\n' "${r}" >"${r}/bin/curl"
  chmod +x "${r}/bin/"*
  # systemctl cat: each file under a "# /path" header, the unit first, then its drop-ins.
  local f
  for f in "${unitdir}/kubelet.service" "${unitdir}"/kubelet.service.d/*.conf; do
    printf '# %s\n' "${f}"
    cat "${f}"
    echo
  done >"${r}/unit.txt"
  touch "${r}/healthy"
}
# kubelet_of <path> <version> [gates its --help lists...]
kubelet_of() {
  local gates=() g
  for g in "${@:3}"; do gates+=("      ${g}=true|false (BETA - default=true)"); done
  printf '#!/bin/sh\ncase "$1" in --version) echo "Kubernetes %s" ;; --help) cat <<EOF\n      --feature-gates mapStringBool\n%s\nEOF\n;; esac\n' \
    "$2" "$(printf '%s\n' "${gates[@]}")" >"$1"
  chmod +x "$1"
}
kubelet_of "${work}/pw6" v1.37.2-probewheel.6 ProbeExecLimit ProbeTimerWheel
kubelet_of "${work}/pw5" v1.37.2-probewheel.5 ProbeTimerWheel
kubelet_of "${work}/stock" v1.37.2
kubelet_of "${work}/stock-next" v1.37.3
kubelet_of "${work}/broken" v1.37.2-probewheel.6-broken ProbeExecLimit ProbeTimerWheel

# on_node <root> <command...>: the command with the node's fakes first on PATH, nothing overridden.
on_node() {
  local r=$1
  shift
  env -u KUBELET_BIN -u KUBELET_CONFIG -u KUBELET_FLAG_FILES PATH="${r}/bin:${PATH}" KUBELET_HEALTHZ=unused \
    KUBELET_SWAP_WAIT=2 "$@"
}
# layout <name> <root> <layout> <want: the script's layout output, paths relative to root>
layout_of() {
  local r=${work}/$2
  node "${r}" "$3"
  kubelet_of "${r}/usr/bin/kubelet" v1.37.2
  kubelet_of "${r}/opt/bin/kubelet" v1.37.2
  expect "layout: $1" "$(on_node "${r}" "${here}/kubelet-swap.sh" layout 2>&1 | sed "s#${r}##g")" "$4"
}
layout_of "kubeadm, DEB" l-deb deb $'unit: kubelet.service\nbinary: /usr/bin/kubelet (Kubernetes v1.37.2)
KubeletConfiguration: /var/lib/kubelet/config.yaml\nflag files: /var/lib/kubelet/kubeadm-flags.env /etc/default/kubelet
exec limit: on'
layout_of "kubeadm, RPM" l-rpm rpm $'unit: kubelet.service\nbinary: /usr/bin/kubelet (Kubernetes v1.37.2)
KubeletConfiguration: /var/lib/kubelet/config.yaml\nflag files: /var/lib/kubelet/kubeadm-flags.env /etc/sysconfig/kubelet
exec limit: on'
layout_of "kind" l-kind kind $'unit: kubelet.service\nbinary: /usr/bin/kubelet (Kubernetes v1.37.2)
KubeletConfiguration: /var/lib/kubelet/config.yaml\nflag files: /var/lib/kubelet/kubeadm-flags.env /etc/default/kubelet
exec limit: on'
layout_of "a unit and its drop-in: ExecStart and --config replaced" l-dropin dropin $'unit: kubelet.service
binary: /opt/bin/kubelet (Kubernetes v1.37.2)\nKubeletConfiguration: /etc/kubernetes/kubelet-config.yaml
flag files: /etc/kubernetes/kubelet.env\nexec limit: on'

# run <name> <root> <want: pass|fail> <want state> <args...>; state: the installed version,
# where the gates and the old variable are named, and the output's last line if it failed.
state() {
  local r=$1 bin
  bin=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "${r}/unit.txt" | tail -n1)
  echo "$("${bin}" --version) |$(grep -rhoE '(ProbeTimerWheel|ProbeExecLimit)[=:] ?[a-z]+|PROBEWHEEL_EXEC_LIMIT=[^ ]*' \
    --exclude='*.before-swap-*' "${r}/etc" "${r}/var" 2>/dev/null | sort | tr '\n' ' ')"
}
run() {
  local name=$1 r=${work}/$2 want=$3 want_state=$4 got=pass
  shift 4
  on_node "${r}" "${here}/kubelet-swap.sh" "$@" >"${work}/out" 2>&1 || got=fail
  if [[ ${got} == "${want}" && $(state "${r}") == "${want_state}" ]]; then ok "${name}"; else
    fail "${name}: ${got} (want ${want}), state '$(state "${r}")' (want '${want_state}')"$'\n'"$(cat "${work}/out")"
  fi
}
# said <name> <text>: the last run's output says text.
said() { if grep -qF -- "$2" "${work}/out"; then ok "$1"; else fail "$1: the output does not say '$2':"$'\n'"$(cat "${work}/out")"; fi; }

S=" v1.37.2 |" P6=" v1.37.2-probewheel.6 |" P5=" v1.37.2-probewheel.5 |" # the version, then the settings
for layout in deb rpm dropin kind; do
  r=${work}/${layout}
  node "${r}" "${layout}"
  bin=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "${r}/unit.txt" | tail -n1)
  kubelet_of "${bin}" v1.37.2
  run "${layout}: install, gate off (ship dark)" "${layout}" pass "Kubernetes${P6}ProbeTimerWheel: false " install "${work}/pw6" --gate=off
  run "${layout}: install again, gate on: the setting goes" "${layout}" pass "Kubernetes${P6}" install "${work}/pw6"
  run "${layout}: rollback refuses a probewheel binary" "${layout}" fail "Kubernetes${P6}" rollback "${work}/pw6"
  run "${layout}: install refuses a stock binary" "${layout}" fail "Kubernetes${P6}" install "${work}/stock"
  run "${layout}: exec limit off" "${layout}" pass "Kubernetes${P6}ProbeExecLimit: false " install "${work}/pw6" --exec-limit=off
  run "${layout}: the exec limit's setting carried" "${layout}" pass "Kubernetes${P6}ProbeExecLimit: false ProbeTimerWheel: false " install "${work}/pw6" --gate=off
  run "${layout}: rollback refuses another release's stock kubelet" "${layout}" fail \
    "Kubernetes${P6}ProbeExecLimit: false ProbeTimerWheel: false " rollback "${work}/stock-next"
  said "${layout}: ... and says which release" "roll back to the same release's stock kubelet"
  run "${layout}: rollback: stock binary, both gates gone, in one restart" "${layout}" pass "Kubernetes${S}" rollback "${work}/stock"
  said "${layout}: ... and says the exec limit's setting is dropped" "the exec limit's setting is dropped"
  run "${layout}: a kubelet that never gets healthy is undone" "${layout}" fail "Kubernetes${S}" install "${work}/broken" --gate=off
  [[ -f ${r}/healthy ]] && ok "${layout}: the undone node is healthy again" || fail "${layout}: the undone node is not healthy"
  cfgf=$(on_node "${r}" "${here}/kubelet-swap.sh" layout | sed -n 's/^KubeletConfiguration: //p')
  grep -qE '(^  A: true$|\{A: true)' "${cfgf}" && ok "${layout}: other gates kept" || fail "${layout}: other gates lost: $(cat "${cfgf}")"
  n=$(find "$(dirname "${bin}")" -name 'kubelet.before-swap-*' | wc -l)
  expect "${layout}: a backup of the binary per swap" "${n}" 6
  first=$(find "$(dirname "${cfgf}")" -name "$(basename "${cfgf}").before-swap-*" | sort | head -n1)
  grep -qE 'A: true' "${first}" && ! grep -q Probe "${first}" && ok "${layout}: the first swap's backup is the file before it" ||
    fail "${layout}: the first backup ${first}: $(cat "${first}")"
done

# The old variable of kubelets before the exec limit's gate, carried both ways (kubeadm, DEB).
r=${work}/deb
printf 'PROBEWHEEL_EXEC_LIMIT=off\n' >>"${r}/etc/default/kubelet"
run "old variable: carried into the gate" deb pass "Kubernetes${P6}ProbeExecLimit: false " install "${work}/pw6"
run "old variable: back to a kubelet without the gate" deb pass "Kubernetes${P5}PROBEWHEEL_EXEC_LIMIT=off " install "${work}/pw5"
run "old variable: --exec-limit=on removes it" deb pass "Kubernetes${P5}" install "${work}/pw5" --exec-limit=on
printf 'PROBEWHEEL_EXEC_LIMIT=8\n' >>"${r}/etc/default/kubelet"
run "old variable: a fixed limit is refused by a kubelet with the gate" deb fail "Kubernetes${P5}PROBEWHEEL_EXEC_LIMIT=8 " install "${work}/pw6"
said "old variable: ... with what to pass" "pass --exec-limit=on or --exec-limit=off"
run "old variable: ... unless told" deb pass "Kubernetes${P6}" install "${work}/pw6" --exec-limit=on

# What it refuses, before anything is touched.
r=${work}/refuse
node "${r}" deb
kubelet_of "${r}/usr/bin/kubelet" v1.37.2
printf '[Service]\nEnvironment="KUBELET_EXTRA_ARGS=--feature-gates=ProbeTimerWheel=false"\n' >"${r}/drop.conf"
cp "${r}/unit.txt" "${r}/unit.orig"
{ cat "${r}/unit.orig" && printf '# %s/drop.conf\n' "${r}" && cat "${r}/drop.conf"; } >"${r}/unit.txt"
run "a gate named in a unit file is refused" refuse fail "Kubernetes${S}" install "${work}/pw6"
said "... naming the file" "${r}/drop.conf"
sed -E 's#--config=[^"]*##' "${r}/unit.orig" >"${r}/unit.txt"
run "a unit without --config is refused" refuse fail "Kubernetes${S}" install "${work}/pw6"
said "... saying what to set" "set KUBELET_CONFIG"
cp "${r}/unit.orig" "${r}/unit.txt"
printf '{"kind": "KubeletConfiguration"}\n' >"${r}/var/lib/kubelet/config.yaml"
run "a JSON KubeletConfiguration is refused" refuse fail "Kubernetes${S}" install "${work}/pw6"
expect "nothing was backed up" "$(find "${r}" -name '*.before-swap-*' | wc -l)" 0

# The command line.
"${here}/kubelet-swap.sh" --help >"${work}/out" 2>&1 && said "--help exits 0 with the usage" "kubelet-swap.sh install <kubelet binary>" ||
  fail "--help: $(cat "${work}/out")"
for args in "" "install" "install a b" "rollback a --gate=off" "install a --exec-limit=maybe" "layout a" "frobnicate"; do
  code=0
  # shellcheck disable=SC2086 # the words are the arguments
  "${here}/kubelet-swap.sh" ${args} >/dev/null 2>&1 || code=$?
  expect "usage error exits 2: '${args}'" "${code}" 2
done

exit "${failed}"
