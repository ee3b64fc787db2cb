#!/usr/bin/python3
"""Plots for a hack/scale-bench.sh results directory; its tables are Go's
(bench/hollow/report writes summary.md, with links to these).

Reads runs/<workload>/<kubelet>-<round>.json (bench/hollow/pwscale's output)
and writes, into the directory:
  plots/vs-pods-<period>s-<handlers>.png
                       one node: kubelet CPU, RSS, goroutines, probe lateness p99,
                       missed runs, time to all Ready, restart bursts vs pods per
                       node, one line per kubelet (medians), one dot per round
  plots/nodes-<workload>.png
                       many nodes: pod readiness timelines and what the control
                       plane saw per node, stock vs probewheel
  plots/restart-<workload>.png
                       probes per 100 ms after the kubelet restart (node 0)
"""

import json
import os
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

KUBELETS = ("stock", "probewheel")
STYLE = {"stock": dict(color="tab:red", marker="o"), "probewheel": dict(color="tab:blue", marker="s")}


def g(path):
    """A getter for a dotted path into a result (None when absent)."""

    def get(r):
        for k in path.split("."):
            if r is None:
                return None
            r = r.get(k) if isinstance(r, dict) else None
        return r

    return get


def ready_s(r):
    """Seconds until every pod was Ready; None when some never were."""
    v = r.get("allReadyS")
    return v if v is not None and v >= 0 else None


def load(d):
    """{workload: {kubelet: [result, ...] in round order}}."""
    out = {}
    root = os.path.join(d, "runs")
    for w in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        for name in sorted(os.listdir(os.path.join(root, w))):
            m = re.fullmatch(r"(stock|probewheel)-(\d+)\.json", name)
            if not m:
                continue
            with open(os.path.join(root, w, name)) as f:
                r = json.load(f)
            out.setdefault(w, {}).setdefault(m.group(1), []).append((int(m.group(2)), r))
    return {w: {k: [r for _, r in sorted(v, key=lambda x: x[0])] for k, v in ks.items()} for w, ks in out.items()}


def ok(r):
    return not r.get("error")


def values(rs, get):
    return [v for v in (get(r) for r in rs if ok(r)) if v is not None]


def describe(r):
    lat = f", exec latency {r['execLatencyMs']:g} ms" if r.get("execLatencyMs") else ""
    return (
        f"{r['nodes']} node(s) x {r['podsPerNode']} pods x {r['probesPerPod']} probes, period {r['periodS']:g} s, "
        f"handlers {r['handlers']}{lat}, window {r['windowS']:g} s"
    )


def save(fig, d, name):
    fig.tight_layout()
    fig.savefig(os.path.join(d, "plots", name), dpi=90)
    plt.close(fig)
    return name


def vs_pods(data, d):
    """One figure per (period, handlers, exec latency) over the one-node workloads."""
    groups = {}
    for w, runs in data.items():
        r0 = next(r for rs in runs.values() for r in rs)
        if r0["nodes"] != 1:
            continue
        groups.setdefault((r0["periodS"], r0["handlers"], r0.get("execLatencyMs", 0)), []).append(runs)
    panels = [
        ("kubelet CPU (cores)", g("cpuCores")),
        ("kubelet RSS (MiB)", g("rssMiB")),
        ("kubelet goroutines", g("goroutines")),
        ("probe interval |dev| p99 (ms)", g("lateness.p99AbsMs")),
        ("missed runs in the window", g("lateness.missed")),
        ("time to all pods Ready (s)", ready_s),
        ("restart burst peak/mean,\nfirst full period after all probes ran", g("restart.burstSteady")),
        ("restart burst peak/mean,\nfirst period from the first probe", g("restart.burstFirst")),
    ]
    files = []
    for (period, handlers, lat), wl in sorted(groups.items()):
        fig, axes = plt.subplots(2, 4, figsize=(19, 8))
        for ax, (title, get) in zip(axes.flat, panels):
            for k in KUBELETS:
                xs, ms = [], []
                for runs in sorted(wl, key=lambda rs: next(r for v in rs.values() for r in v)["podsPerNode"]):
                    rs = [r for r in runs.get(k, []) if ok(r)]
                    v = values(rs, get)
                    if not v:
                        continue
                    x = rs[0]["podsPerNode"]
                    ax.scatter([x] * len(v), v, s=12, alpha=0.5, color=STYLE[k]["color"])
                    xs.append(x)
                    ms.append(statistics.median(v))
                if xs:
                    ax.plot(xs, ms, label=k, **STYLE[k])
            ax.set_title(title)
            ax.set_xlabel("pods per node")
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
        axes.flat[0].legend()
        latt = f", exec latency {lat:g} ms" if lat else ""
        fig.suptitle(f"hollow kubelet, one node, 3 probes per pod every {period:g} s ({handlers}{latt}); "
                     "lines: medians, dots: rounds")
        name = f"vs-pods-{period:g}s-{handlers}" + (f"-exec{lat:g}ms" if lat else "") + ".png"
        files.append(save(fig, d, name))
    return files


def restart_plots(data, d):
    files = []
    for w, runs in data.items():
        fig, ax = plt.subplots(figsize=(10, 3.5))
        any_ = False
        for k in KUBELETS:
            for i, r in enumerate(x for x in runs.get(k, []) if ok(x) and x.get("restart")):
                tl = r["restart"].get("timelineNode0") or []
                b = r["restart"].get("timelineBucketS", 0.1)
                ax.plot([j * b for j in range(len(tl))], tl, color=STYLE[k]["color"], alpha=0.8,
                        linestyle=("-", "--", ":", "-.")[i % 4], label=k if i == 0 else None)
                any_ = True
        if not any_:
            plt.close(fig)
            continue
        ax.set_xlabel("seconds after the new kubelet process started")
        ax.set_ylabel("probes per 100 ms (node 0)")
        ax.set_title(f"{w}: probes after a kubelet restart (one line per round)")
        ax.grid(alpha=0.3)
        ax.legend()
        name = f"restart-{w}.png"
        files.append(save(fig, d, name))
    return files


def nodes_plots(data, d):
    files = []
    for w, runs in data.items():
        r0 = next(r for rs in runs.values() for r in rs)
        if r0["nodes"] == 1:
            continue
        fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
        for k in KUBELETS:
            for i, r in enumerate(x for x in runs.get(k, []) if ok(x)):
                q = r["readyQuantilesS"]
                axes[0].plot(q, [j * 5 for j in range(len(q))], color=STYLE[k]["color"],
                             linestyle=("-", "--", ":", "-.")[i % 4], label=k if i == 0 else None)
        axes[0].set_xlabel("seconds after the first pod was created")
        axes[0].set_ylabel("% of pods Ready")
        axes[0].set_title("pod readiness timeline (one line per round)")
        for ax, key, title in [(axes[1], "podUpdatesStartup", "pod status writes per node, until the window"),
                               (axes[2], "leaseUpdatesPerMin", "lease renewals per node per minute")]:
            for j, k in enumerate(KUBELETS):
                for r in (x for x in runs.get(k, []) if ok(x)):
                    v = [n[key] for n in r["perNode"]]
                    ax.scatter([i + (j - 0.5) * 0.3 for i in range(len(v))], v, color=STYLE[k]["color"], s=14,
                               label=k if r is runs[k][0] else None)
            ax.set_xlabel("node")
            ax.xaxis.get_major_locator().set_params(integer=True)
            ax.set_title(title)
            ax.set_ylim(bottom=0)
        for ax in axes:
            ax.grid(alpha=0.3)
            ax.legend()
        fig.suptitle(describe(r0))
        name = f"nodes-{w}.png"
        files.append(save(fig, d, name))
    return files


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: hollow.py RESULTS_DIR")
    d = sys.argv[1]
    data = load(d)
    if not data:
        sys.exit(f"{d}: no runs/<workload>/<kubelet>-<round>.json")
    os.makedirs(os.path.join(d, "plots"), exist_ok=True)
    for f in vs_pods(data, d) + nodes_plots(data, d) + restart_plots(data, d):
        print(os.path.join(d, "plots", f))


if __name__ == "__main__":
    main()
