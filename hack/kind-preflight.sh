#!/usr/bin/env bash
# Tells whether this machine can build probewheel's kind node image and run
# kind clusters (make kind-image, make kind-up): exit 0 if it can, otherwise
# 1 with the reason on stderr. `make ci` runs the kind e2e only when it can.
# Whether `docker run --privileged` works is not a reason to skip: where it
# fails, kind-up runs kind behind hack/kind/docker (docs/kind.md).
set -euo pipefail

no() { echo "kind preflight: $*" >&2; exit 1; }

[[ $(uname -s) == Linux ]] || no "not Linux"
[[ $(id -u) == 0 ]] || no "not root (debootstrap, and kind-up's host routes to the pod CIDRs, need it)"
command -v go >/dev/null || no "no Go toolchain on PATH"
command -v docker >/dev/null || no "no docker CLI on PATH (apt-get install docker.io)"
if ! err=$(docker version --format '{{.Server.Version}}' 2>&1); then
  no "no Docker engine answers (${err##*$'\n'})"
fi
server=${err}
ostype=$(docker info --format '{{.OSType}}' 2>/dev/null || true)
[[ ${ostype} == linux ]] || no "the Docker engine runs ${ostype:-an unknown OS} containers, not linux"
command -v debootstrap >/dev/null || command -v apt-get >/dev/null || no "neither debootstrap nor apt-get (to install it) is available"
command -v iptables >/dev/null || no "no iptables (kind-up's egress rule)"
command -v ip >/dev/null || no "no ip (iproute2)"
# The node image (~1.1 GB), its build stages and a cluster's volumes.
root=$(docker info --format '{{.DockerRootDir}}' 2>/dev/null || true)
if [[ -d ${root} ]]; then
  avail=$(df -Pk "${root}" | awk 'NR == 2 {print int($4 / 1048576)}')
  ((avail >= 8)) || no "only ${avail} GiB free under ${root}; the node image and a cluster need about 8"
fi
mem=$(awk '/MemAvailable/ {print int($2 / 1048576)}' /proc/meminfo)
((mem >= 3)) || no "only ${mem} GiB of memory available; a 3-node cluster needs about 3"
echo "kind preflight: this machine can build the node image and run kind clusters (Docker ${server})" >&2
