#!/usr/bin/python3
"""summary.md and density.png for a hack/e2e-density.sh results directory.

Reads <flavor>-<round>.json (or <flavor>.json; e2e/density_test.go's
output; stock first when present) and writes a table of the kubelet's cost and
the probes' timing per kubelet, the median over the rounds with each round's
value, patched/stock ratios of the medians, and a plot of every round's samples
over the window.
"""

import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"stock": dict(color="tab:red"), "patched": dict(color="tab:blue")}

def load(d):
    """{flavor: [run, ...]} in round order, stock first."""
    runs = {}
    names = [n for n in os.listdir(d) if n.endswith(".json")]
    for name in sorted(names, key=lambda n: (not n.startswith("stock"), n)):
        m = re.fullmatch(r"(.+?)(?:-(\d+))?\.json", name)
        with open(os.path.join(d, name)) as f:
            runs.setdefault(m.group(1), []).append((int(m.group(2) or 0), json.load(f)))
    return {k: [r for _, r in sorted(v, key=lambda x: x[0])] for k, v in runs.items()}


def plot(runs, path):
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for name, rs in runs.items():
        style = STYLE.get(name, {})
        for i, r in enumerate(rs):
            t = [s["t"] for s in r["samples"]]
            label = f'{name} ({r["kubelet"]})' if i == 0 else None
            for ax, key in zip(axes, ("cpuCores", "rssMiB", "goroutines")):
                ax.plot(t, [s[key] for s in r["samples"]], label=label, linestyle=("-", "--", ":", "-.")[i % 4], **style)
    for ax, title in zip(axes, ("kubelet CPU (cores, per 5 s)", "kubelet RSS (MiB)", "kubelet goroutines")):
        ax.set_title(title)
        ax.set_xlabel("seconds into the window")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0].legend()
    first = next(iter(runs.values()))[0]
    fig.suptitle(
        f'{first["pods"]} pods x {first["probesPerPod"]} probes every {first["periodSeconds"]:g} s, one node, 2 cores '
        "(one line style per round)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: density.py RESULTS_DIR")
    d = sys.argv[1]
    runs = load(d)
    if not runs:
        sys.exit(f"{d}: no <flavor>.json")
    plot(runs, os.path.join(d, "density.png"))


if __name__ == "__main__":
    main()
