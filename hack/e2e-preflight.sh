#!/usr/bin/env bash
# Tells whether this machine can run the local e2e cluster
# (hack/local-up-cluster.sh): exit 0 if it can, otherwise 1 with the reason on
# stderr. `make ci` runs the e2e only when it can; everything the cluster
# needs beyond these is installed by hack/install-e2e-deps.sh.
set -euo pipefail

no() { echo "e2e preflight: $*" >&2; exit 1; }

[[ $(id -u) == 0 ]] || no "not root (containerd, the kubelet and CNI need it)"
[[ $(uname -s) == Linux ]] || no "not Linux"
# cgroup v2 (cgroup.controllers at the root) or v1 with the controllers the kubelet insists on.
if [[ ! -f /sys/fs/cgroup/cgroup.controllers ]]; then
  for c in cpu cpuset memory pids; do
    [[ -d /sys/fs/cgroup/${c} ]] || no "no cgroup v2 and no cgroup v1 ${c} controller under /sys/fs/cgroup"
  done
fi
[[ -w /sys/fs/cgroup ]] || [[ -w /sys/fs/cgroup/memory ]] || no "/sys/fs/cgroup is not writable"
command -v apt-get >/dev/null || command -v containerd >/dev/null ||
  no "neither apt-get (to install containerd, runc, etcd, CNI) nor containerd is available"
# Pod networking: a network namespace and a bridge are created per cluster.
ns=pw-preflight-$$
if command -v ip >/dev/null; then
  ip netns add "${ns}" 2>/dev/null || no "cannot create a network namespace (ip netns add)"
  ip netns delete "${ns}"
fi
echo "e2e preflight: this machine can run the local cluster" >&2
