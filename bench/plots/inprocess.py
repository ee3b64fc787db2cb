#!/usr/bin/python3
"""Plots for a scripts/bench.sh results directory (scripts/plot.sh runs it); the tables are
benchstat's and bench/report's."""

import collections
import glob
import os
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

IMPL_STYLE = {"upstream": dict(color="tab:red"), "probewheel": dict(color="tab:blue"),
              "gate-off": dict(color="tab:orange", linestyle="--"), "afterfunc": dict(color="tab:green", linestyle=":")}
HANDLER_MARK = {"exec": "o", "http": "s", "tcp": "^", "grpc": "D"}


def parse_name(name):
    """'BenchmarkSteady/handler=exec/pods=110/period=1s/impl=upstream-2' -> (scenario, keys)."""
    name = re.sub(r"-\d+$", "", name)
    parts = name.split("/")
    keys = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
    return parts[0].removeprefix("Benchmark"), keys


def read_raw(path):
    """Benchmark lines -> list of (scenario, keys, {unit: value})."""
    rows = []
    with open(path) as f:
        for line in f:
            if not line.startswith("Benchmark"):
                continue
            fields = line.split()
            if len(fields) < 4:
                continue
            sc, keys = parse_name(fields[0])
            metrics = {}
            vals = fields[2:]
            for i in range(0, len(vals) - 1, 2):
                try:
                    metrics[vals[i + 1]] = float(vals[i])
                except ValueError:
                    pass
            rows.append((sc, keys, metrics))
    return rows


def workload(keys):
    return "/".join(f"{k}={v}" for k, v in keys.items() if k != "impl")


def period_s(keys):
    p = keys.get("period", "1s")
    return float(p[:-1]) if p.endswith("s") else float(p)


def median_by(rows, scenario, metric, keyf):
    acc = collections.defaultdict(list)
    for sc, keys, m in rows:
        if sc == scenario and metric in m:
            acc[keyf(keys)].append(m[metric])
    return {k: statistics.median(v) for k, v in acc.items()}


def read_summary(path):
    """A summary of bench/report condense: (bench name, header, [(upper edge us, count)])."""
    header, bins = "", []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                header = line
                continue
            parts = line.split()
            if len(parts) == 2:
                bins.append((float(parts[0]), int(parts[1])))
    m = re.search(r"bench=(\S+)", header)
    return (m.group(1) if m else os.path.basename(path)), header, bins


def plot_cdf(summaries, out):
    groups = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    for path in summaries:
        name, _, bins = read_summary(path)
        sc, keys = parse_name(name)
        for edge, count in bins:
            groups[f"{sc} {workload(keys)}"][keys.get("impl", "?")][edge] += count
    if not groups:
        return False
    n = len(groups)
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 3.8 * rows), squeeze=False)
    for ax, (title, impls) in zip(axes.flat, sorted(groups.items())):
        for impl, hist in sorted(impls.items()):
            k = sum(hist.values())
            if k == 0:
                continue
            xs, ys, acc = [], [], 0
            for edge in sorted(hist):
                acc += hist[edge]
                xs.append(min(edge, 1e9) / 1e3)  # ms; the overflow bin at the top edge
                ys.append(acc / k)
            ax.plot(xs, ys, marker=".", markersize=3, label=f"{impl} (n={k})", **IMPL_STYLE.get(impl, {}))
        ax.set_xscale("log")
        ax.set_xlabel("|interval − period| (ms, bin upper edges)")
        ax.set_ylabel("fraction of intervals")
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.suptitle("Period error CDF (all rounds)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def plot_density(rows, out):
    def key(k):
        return (k.get("handler"), k.get("period"), k.get("startup", "off"), k.get("impl"), int(k.get("pods", 0)))

    gor = median_by(rows, "Steady", "goroutines", key)
    mem = median_by(rows, "Steady", "B/probe", key)
    if not gor:
        return False
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.2))
    series = collections.defaultdict(list)
    for (h, per, st, impl, pods), g in gor.items():
        series[(h, per, st, impl)].append((pods, g, mem.get((h, per, st, impl, pods))))
    for (h, per, st, impl), pts in sorted(series.items(), key=lambda x: str(x[0])):
        pts.sort()
        lbl = f"{impl} {h} {per}" + (" +startup" if st == "on" else "")
        style = dict(IMPL_STYLE.get(impl, {}), marker=HANDLER_MARK.get(h, "o"),
                     linestyle="-" if per == "1s" else "--")
        a1.plot([p[0] for p in pts], [p[1] for p in pts], label=lbl, **style)
        mp = [(p[0], p[2] / 1024) for p in pts if p[2] is not None]
        if mp:
            a2.plot([p[0] for p in mp], [p[1] for p in mp], label=lbl, **style)
    a1.set_xlabel("pods")
    a1.set_ylabel("goroutines above baseline")
    a1.set_xscale("log")
    a1.set_yscale("symlog")
    a1.set_ylim(bottom=0)
    a1.set_title("Goroutines vs pods (Steady)")
    a2.set_xlabel("pods")
    a2.set_ylabel("heap+stack per probe (KiB)")
    a2.set_xscale("log")
    a2.set_title("Memory per probe vs pods (Steady)")
    for a in (a1, a2):
        a.grid(True, which="both", alpha=0.3)
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def plot_cpu(rows, out):
    pts = collections.defaultdict(list)
    for sc, keys, m in rows:
        if sc == "Steady" and "cpu-cores" in m and "runs/s" in m:
            pts[(keys.get("impl"), keys.get("handler"))].append((m["runs/s"], m["cpu-cores"]))
    if not pts:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (impl, h), v in sorted(pts.items(), key=lambda x: str(x[0])):
        ax.scatter([p[0] for p in v], [p[1] for p in v], label=f"{impl} {h}",
                   marker=HANDLER_MARK.get(h.split("-")[0] if h else "exec", "o"),
                   alpha=0.7, **IMPL_STYLE.get(impl, {}))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("probe runs per second (observed at the targets)")
    ax.set_ylabel("CPU cores (benchmark process)")
    ax.set_title("CPU vs probe rate (Steady, every round)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def plot_restart(summaries, out):
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    periods = {}
    for path in summaries:
        name, header, bins = read_summary(path)
        sc, keys = parse_name(name)
        m = re.search(r"period_ns=(\d+)", header)
        w = workload(keys)
        periods[w] = int(m.group(1)) / 1e9 if m else period_s(keys)
        groups[w][keys.get("impl", "?")].append(dict(bins))
    if not groups:
        return False
    n = len(groups)
    fig, axes = plt.subplots(n, 1, figsize=(9, 3.2 * n), squeeze=False)
    for ax, (w, impls) in zip(axes.flat, sorted(groups.items())):
        per = periods[w]
        nb = 20 if per <= 1 else 100
        edges = [per * i / nb for i in range(nb + 1)]
        upper_us = [per * 1e6 * (i + 1) / nb for i in range(nb)]  # bench/report condense's bins
        for impl, runs in sorted(impls.items()):
            counts = [0.0] * nb
            for r in runs:
                for i, e in enumerate(upper_us):
                    counts[i] += next((c for edge, c in r.items() if abs(edge - e) <= 1e-6 * e), 0)
            counts = [c / len(runs) for c in counts]
            ax.stairs(counts, edges, label=f"{impl} (mean of {len(runs)})", **IMPL_STYLE.get(impl, {}))
        ax.set_xlabel("seconds after the manager was created (all pods added at t0)")
        ax.set_ylabel(f"probe starts per {per / nb * 1000:.0f} ms")
        ax.set_title(f"RestartBurst {w}", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: inprocess.py RESULTS_DIR")
    d = sys.argv[1]
    rows = read_raw(os.path.join(d, "raw.txt"))
    outdir = os.path.join(d, "plots")
    os.makedirs(outdir, exist_ok=True)
    summaries = os.path.join(d, "summaries")  # bench/report condense, from the raw dumps
    made = []
    for fname, ok in [
        ("period_error_cdf.png", lambda p: plot_cdf(sorted(glob.glob(os.path.join(summaries, "BenchmarkSteady__*.intervals"))), p)),
        ("density.png", lambda p: plot_density(rows, p)),
        ("cpu.png", lambda p: plot_cpu(rows, p)),
        ("restart_burst.png", lambda p: plot_restart(sorted(glob.glob(os.path.join(summaries, "*.restart"))), p)),
    ]:
        path = os.path.join(outdir, fname)
        if ok(path):
            made.append(path)
        else:
            print(f"plot: no data for {fname}", file=sys.stderr)
    for p in made:
        print(f"plot: wrote {p}", file=sys.stderr)


if __name__ == "__main__":
    main()
