#!/usr/bin/env bash
# Installs the Debian packages the local cluster (hack/local-up-cluster.sh)
# needs, if any is missing: a fresh machine has none of them. Idempotent;
# needs root. Nothing is started here: local-up-cluster.sh starts every
# daemon itself, by PID.
set -euo pipefail

# busybox-static and bash-static: the images of upstream's e2e specs (hack/build-e2e-images.sh --upstream).
pkgs=(containerd runc etcd-server containernetworking-plugins openssl iproute2 iptables busybox-static bash-static)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "${p}" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("${p}")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "+++ installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
