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
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"stock": dict(color="tab:red"), "patched": dict(color="tab:blue")}

# (label, getter, format): the rows of the table.
ROWS = [
    ("kubelet CPU, cores (mean over the window)", lambda r: r["cpuCores"], "{:.3f}"),
    ("kubelet RSS, MiB (mean)", lambda r: r["rssMiB"]["mean"], "{:.0f}"),
    ("kubelet RSS, MiB (max)", lambda r: r["rssMiB"]["max"], "{:.0f}"),
    ("kubelet goroutines (mean)", lambda r: r["goroutines"]["mean"], "{:.0f}"),
    ("kubelet goroutines (max)", lambda r: r["goroutines"]["max"], "{:.0f}"),
    ("probe runs in the window", lambda r: r["probeDuration"]["count"], "{:.0f}"),
    ("probe duration, mean ms", lambda r: r["probeDuration"]["meanMs"], "{:.2f}"),
    ("probe duration, p99 ms (bucket bound)", lambda r: r["probeDuration"]["p99Ms"], "{:.1f}"),
    ("probe interval abs(dev) p50, ms (seen by the targets)", lambda r: r["intervals"]["p50AbsDevMs"], "{:.1f}"),
    ("probe interval abs(dev) p99, ms", lambda r: r["intervals"]["p99AbsDevMs"], "{:.1f}"),
    ("probe interval abs(dev) max, ms", lambda r: r["intervals"]["maxAbsDevMs"], "{:.1f}"),
    ("missed runs (all rounds; docs/benchmarks.md#missed-runs)", lambda r: r["intervals"]["missed"], "{:d}"),
    ("readiness flaps (all rounds)", lambda r: r["readyFlaps"], "{:d}"),
    ("container restarts (all rounds)", lambda r: r["restarts"], "{:d}"),
    ("all pods Ready after, s", lambda r: r["allReadySeconds"], "{:.0f}"),
]


def load(d):
    """{flavor: [run, ...]} in round order, stock first."""
    runs = {}
    names = [n for n in os.listdir(d) if n.endswith(".json")]
    for name in sorted(names, key=lambda n: (not n.startswith("stock"), n)):
        m = re.fullmatch(r"(.+?)(?:-(\d+))?\.json", name)
        with open(os.path.join(d, name)) as f:
            runs.setdefault(m.group(1), []).append((int(m.group(2) or 0), json.load(f)))
    return {k: [r for _, r in sorted(v, key=lambda x: x[0])] for k, v in runs.items()}


def cell(vals, fmt, label):
    if "all rounds" in label:
        return fmt.format(sum(vals))
    med = statistics.median(vals)
    text = fmt.format(type(vals[0])(med) if isinstance(vals[0], int) else med)
    if len(vals) > 1:
        text += " (" + " / ".join(fmt.format(v) for v in vals) + ")"
    return text


def table(runs):
    names = list(runs)
    ratio = "stock" in runs and "patched" in runs
    first = runs[names[0]][0]
    rounds = max(len(v) for v in runs.values())
    out = [
        f'{first["pods"]} pods x {first["probesPerPod"]} probes (startup TCP, readiness HTTP, liveness gRPC), '
        f'period {first["periodSeconds"]:g} s, measured over {first["windowSeconds"]:g} s once all pods were Ready; '
        f"{rounds} round(s) per kubelet, order alternating; median (each round).",
        "",
        "| | " + " | ".join(f'{n} ({runs[n][0]["kubelet"]})' for n in names) + (" | patched / stock (medians) |" if ratio else " |"),
        "|---|" + "---|" * (len(names) + ratio),
    ]
    for label, get, fmt in ROWS:
        cells = [cell([get(r) for r in runs[n]], fmt, label) for n in names]
        if ratio:
            s = statistics.median(get(r) for r in runs["stock"])
            p = statistics.median(get(r) for r in runs["patched"])
            cells.append(f"{p / s:.2f}x" if s and "all rounds" not in label else "")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    for r in runs.get("patched", []):
        lat = r.get("schedulerLateness")
        if lat:
            out.append("")
            out.append(
                f'Patched kubelet, prober_scheduler_start_lateness_seconds over a window: {lat["count"]:.0f} runs, '
                f'mean {lat["meanMs"]:.2f} ms, p99 <= {lat["p99Ms"]:g} ms (bucket bound).'
            )
    return "\n".join(out) + "\n"


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
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write(table(runs))
    plot(runs, os.path.join(d, "density.png"))
    print(open(os.path.join(d, "summary.md")).read())


if __name__ == "__main__":
    main()
