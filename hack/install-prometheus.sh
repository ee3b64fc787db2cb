#!/usr/bin/env bash
# Prints the directory holding promtool and prometheus, Prometheus's own tools from Debian's
# prometheus package, fetching them first if missing: make verify-rules tests the alert rules
# with promtool. The package is downloaded and unpacked, not installed: no service, no user,
# nothing outside _output/tools.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dir=${PW_OUTPUT}/tools/prometheus
if [[ -x ${dir}/promtool && -x ${dir}/prometheus ]]; then
  echo "${dir}"
  exit 0
fi
command -v apt-get >/dev/null || pw::die "no promtool in ${dir}, and no apt-get to fetch Debian's prometheus package"
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
chmod 0777 "${work}" # apt's sandbox user writes the download
(cd "${work}" && { apt-get download prometheus >/dev/null 2>&1 || { apt-get update -qq && apt-get download prometheus >/dev/null; }; }) ||
  pw::die "apt-get download prometheus failed"
dpkg-deb -x "${work}"/prometheus_*.deb "${work}/x"
mkdir -p "${dir}"
install -m 0755 "${work}/x/usr/bin/promtool" "${work}/x/usr/bin/prometheus" "${dir}/"
pw::log "Prometheus's tools: $("${dir}/promtool" --version 2>&1 | head -n1) in ${dir#"${PW_ROOT}/"}"
echo "${dir}"
