#!/usr/bin/env bash
# scripts/plot.sh RESULTS_DIR — the tables and plots of a results directory:
#   scripts/bench.sh's (raw.txt, summaries/): plots/ (bench/plots/inprocess.py)
#     period_error_cdf.png   |interval − period| CDF per implementation, one panel per workload
#     density.png            goroutines and memory vs pods (exec, Steady)
#     cpu.png                CPU cores vs probe runs per second (Steady, all handlers)
#     restart_burst.png      probe starts per 50 ms during the first period after a restart
#   a capacity sweep's (machine.txt's mode): capacity.md (`go run ./bench/report capacity`)
#     and plots/capacity.png (bench/plots/capacity.py);
#   hack/scale-bench.sh's (runs/), the hollow nodes: summary.md (`go run ./bench/report
#     hollow`) and plots/ (bench/plots/hollow.py);
#   hack/e2e-density.sh's (<flavor>.json), the real-kubelet A/B: summary.md
#     (`go run ./bench/report density`) and density.png (bench/plots/density.py);
#   hack/e2e-storm.sh's (<pods>-<n>-<arm>.json), exec-probe storms on kind: summary.md
#     (`go run ./bench/report storm`) and storm.png (bench/plots/storm.py).
# Tables are Go's (bench/report), plots Python's (bench/plots/).
#
# Needs /usr/bin/python3 with matplotlib from Debian's python3-matplotlib; when it is
# missing and we are root, it is installed with apt-get (set PLOT_NO_INSTALL=1 to refuse).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:-}
report=
if [[ -n $dir && -f $dir/raw.txt ]] && grep -q '^mode: *capacity' "$dir/machine.txt" 2>/dev/null; then
	script=bench/plots/capacity.py report=capacity
elif [[ -n $dir && -f $dir/raw.txt ]]; then
	script=bench/plots/inprocess.py
elif [[ -n $dir ]] && compgen -G "$dir/runs/*/*-[0-9]*.json" >/dev/null; then
	script=bench/plots/hollow.py report=hollow
elif [[ -n $dir ]] && compgen -G "$dir/[0-9][0-9][0-9]-[0-9]*-*.json" >/dev/null; then
	script=bench/plots/storm.py report=storm
elif [[ -n $dir ]] && compgen -G "$dir/*.json" >/dev/null; then
	script=bench/plots/density.py report=density
else
	echo "usage: $0 RESULTS_DIR   (scripts/bench.sh's, with raw.txt; hack/scale-bench.sh's, with runs/; hack/e2e-storm.sh's, with <pods>-<n>-<arm>.json; or hack/e2e-density.sh's, with <flavor>.json)" >&2
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
# The plots first: a summary links the plots it finds.
"$PY" "$script" "$dir" >/dev/null
if [[ -n $report ]]; then
	"${GO:-go}" run ./bench/report "$report" "$dir"
fi
