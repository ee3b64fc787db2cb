#!/usr/bin/python3
"""storm.png for a hack/e2e-storm.sh results directory.

Reads <pods>-<n>-<arm>.json (e2e/storm_test.go's windows) and plots, against
the exec probes' nominal rate, what each arm cost the runtime and what the
probes saw: one point per window, the line through the arm's medians.
"""

import itertools
import json
import os
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# An arm named here keeps its colour from run to run; any other arm takes the next of
# EXTRA, never matplotlib's cycle, whose first colour is probewheel's blue.
STYLE = {
    "stock": dict(color="tab:red", marker="o"),
    "probewheel": dict(color="tab:blue", marker="s"),
    "unbounded": dict(color="tab:green", marker="^"),
}
EXTRA = ("tab:purple", "tab:orange", "tab:brown", "tab:olive")
PANELS = (
    ("runtime CPU, cores (mean)", lambda r: r["runtimeCPU"]["mean"]),
    ("runtime CPU, cores (peak of {peak} s means)", lambda r: r["runtimeCPU"]["max"]),
    ("exec duration of successful runs, mean ms", lambda r: r["execDuration"]["meanMs"]),
    ("failed or unknown results of healthy pods / window", lambda r: r["healthyFailed"] + r["healthyUnknown"]),
    ("restarts of healthy containers / window", lambda r: r["healthyRestarts"]),
    ("kubelet threads (max)", lambda r: r["threads"]["max"]),
)


def load(d):
    """{arm: {rate: [window, ...]}}, stock first."""
    arms = {}
    for name in sorted(os.listdir(d)):
        m = re.fullmatch(r"(\d+)-(\d+)-([a-z][a-z0-9]*)\.json", name)
        if not m:
            continue
        with open(os.path.join(d, name)) as f:
            r = json.load(f)
        arms.setdefault(m.group(3), {}).setdefault(r["execPerSecond"], []).append(r)
    return dict(sorted(arms.items(), key=lambda kv: kv[0] != "stock"))


def first_window(arms):
    return next(iter(next(iter(arms.values())).values()))[0]


def plot(arms, path):
    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    extra = itertools.cycle(EXTRA)
    styles = {arm: STYLE.get(arm) or dict(color=next(extra), marker="v") for arm in arms}
    for (title, get), ax in zip(PANELS, axes.flat):
        for arm, by_rate in arms.items():
            style = styles[arm]
            rates = sorted(by_rate)
            for rate in rates:
                ax.scatter([rate] * len(by_rate[rate]), [get(r) for r in by_rate[rate]], s=12, alpha=0.5, color=style.get("color"))
            first = by_rate[rates[0]][0]
            ax.plot(rates, [statistics.median(get(r) for r in by_rate[x]) for x in rates], label=f'{arm} ({first["kubelet"]})', **style)
        ax.set_title(title.format(peak=f'{first_window(arms).get("runtimePeakSeconds", 1):g}'))
        ax.set_xlabel("exec probes per second (nominal)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes.flat[0].legend()
    first = first_window(arms)
    hung = f'{first["hungPods"] / first["pods"]:.0%} of the pods hung' if first["hungPods"] else "no pod hung"
    fig.suptitle(
        "Exec-probe storms on kind's containerd: exec readiness and liveness probes every 1 s, timeout 1 s, "
        f"{hung}\none point per {first['windowSeconds']:g} s window, lines through the medians"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=64)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: storm.py RESULTS_DIR")
    d = sys.argv[1]
    arms = load(d)
    if not arms:
        sys.exit(f"{d}: no <pods>-<n>-<arm>.json")
    plot(arms, os.path.join(d, "storm.png"))


if __name__ == "__main__":
    main()
