#!/usr/bin/env bash
# scripts/plot.sh RESULTS_DIR — plots from a scripts/bench.sh results directory
# (raw.txt, summaries/) into RESULTS_DIR/plots/:
#   period_error_cdf.png   |interval − period| CDF per implementation, one panel per workload
#   density.png            goroutines and memory vs pods (exec, Steady)
#   cpu.png                CPU cores vs probe runs per second (Steady, all handlers)
#   restart_burst.png      probe starts per 50 ms during the first period after a restart
# or, for a capacity sweep (machine.txt's mode), capacity.md and plots/capacity.png
# (scripts/capacity.py);
# or, for an hack/e2e-density.sh results directory (<flavor>.json), summary.md and
# density.png (scripts/density.py): the real-kubelet A/B.
#
# Needs /usr/bin/python3 with matplotlib from Debian's python3-matplotlib; when it is
# missing and we are root, it is installed with apt-get (set PLOT_NO_INSTALL=1 to refuse).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:-}
if [[ -n $dir && -f $dir/raw.txt ]] && grep -q '^mode: *capacity' "$dir/machine.txt" 2>/dev/null; then
	script=scripts/capacity.py
elif [[ -n $dir && -f $dir/raw.txt ]]; then
	script=scripts/plot.py
elif [[ -n $dir ]] && compgen -G "$dir/*.json" >/dev/null; then
	script=scripts/density.py
else
	echo "usage: $0 RESULTS_DIR   (scripts/bench.sh's, with raw.txt, or hack/e2e-density.sh's, with <flavor>.json)" >&2
	exit 2
fi

PY=/usr/bin/python3
if ! "$PY" -c 'import matplotlib' 2>/dev/null; then
	if [[ ${PLOT_NO_INSTALL:-0} == 1 || $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
		echo "plot: matplotlib is missing; install it with: apt-get install -y python3-matplotlib" >&2
		exit 1
	fi
	echo "plot: installing python3-matplotlib (Debian package)" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends python3-matplotlib >&2
fi
exec "$PY" "$script" "$dir"
