#!/usr/bin/python3
"""summary.md and plots for a hack/scale-bench.sh results directory.

Reads runs/<workload>/<kubelet>-<round>.json (bench/hollow/pwscale's output)
and writes, into the directory:
  summary.md           the issue-10 targets at 1,000 pods/node x 3 probes @1 s,
                       a 5,000-node fleet on paper (fleet.py), then per
                       workload every figure: the median over the rounds
                       with each round's value, probewheel/stock ratio
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

import fleet

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


# (label, getter, format, sum over rounds instead of median)
ROWS = [
    ("kubelet CPU, cores (per node, window mean)", g("cpuCores"), "{:.3f}", False),
    ("kubelet CPU per probe run, us", g("cpuPerProbeUs"), "{:.0f}", False),
    ("kubelet RSS, MiB (mean)", g("rssMiB"), "{:.1f}", False),
    ("kubelet RSS, MiB (max)", g("rssMaxMiB"), "{:.1f}", False),
    ("Go heap in use, MiB (mean)", g("heapInuseMiB"), "{:.1f}", False),
    ("GC cycles per 1,000 probe runs (whole kubelet)", g("gcPer1kRuns"), "{:.2f}", False),
    ("KiB allocated per probe run (whole kubelet)", g("allocKiBPerRun"), "{:.1f}", False),
    ("kubelet goroutines (mean)", g("goroutines"), "{:.0f}", False),
    ("probe runs in the window (all nodes)", g("probeRuns"), "{:.0f}", False),
    ("probe interval \\|dev\\| p50, ms (targets)", g("lateness.p50AbsMs"), "{:.1f}", False),
    ("probe interval \\|dev\\| p99, ms", g("lateness.p99AbsMs"), "{:.1f}", False),
    ("probe interval \\|dev\\| p99.9, ms", g("lateness.p999AbsMs"), "{:.1f}", False),
    ("probe interval \\|dev\\| max, ms", g("lateness.maxAbsMs"), "{:.1f}", False),
    ("missed runs (all rounds; docs/benchmarks.md#missed-runs)", g("lateness.missed"), "{:d}", True),
    ("liveness probe failures in the window (all rounds; none intended)", g("livenessFailures"), "{:d}", True),
    ("container restarts (all rounds; none intended)", g("restarts"), "{:d}", True),
    ("flipped pods whose target answered 3+ failures in a row (all rounds)", g("transitions.exercised"), "{:d}", True),
    ("readiness flips due by the targets' answers (all rounds)", g("transitions.expected"), "{:d}", True),
    ("readiness flips lost (all rounds)", g("transitions.lost"), "{:d}", True),
    ("readiness flips extra (all rounds)", g("transitions.extra"), "{:d}", True),
    ("pods not Ready at the window's start, left out of the flip count (all rounds)", g("transitions.skipped"),
     "{:d}", True),
    ("all pods Ready after, s (-1: not all)", ready_s, "{:.1f}", False),
    ("pods not Ready when the wait gave up (all rounds; 0 = healthy)", g("notReadyAtTimeout"), "{:d}", True),
    ("restart: first probe, max s after the new process", g("restart.firstMaxS"), "{:.2f}", False),
    ("restart: probes never run (all rounds)", g("restart.unprobed"), "{:d}", True),
    ("restart: burst peak/mean, first period", g("restart.burstFirst"), "{:.2f}", False),
    ("restart: burst peak/mean, next full period", g("restart.burstSteady"), "{:.2f}", False),
    ("restart: pods turned NotReady (all rounds)", g("restart.notReady"), "{:d}", True),
    ("machine: busy cores, all processes (window mean)", g("hostBusyCores"), "{:.2f}", False),
    ("machine: the harness's cores (targets, fake runtimes)", g("harnessCores"), "{:.2f}", False),
    ("machine: 1-min load average, max in the window", g("hostLoad1Max"), "{:.1f}", False),
]


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


def num(v, fmt):
    return "n/a" if v is None or v < 0 else fmt.format(v)


def ok(r):
    return not r.get("error")


def values(rs, get):
    return [v for v in (get(r) for r in rs if ok(r)) if v is not None]


def med(rs, get):
    v = values(rs, get)
    return statistics.median(v) if v else None


def fmt_cell(rs, get, fmt, total):
    v = values(rs, get)
    if not v:
        return "n/a"
    if total:
        return fmt.format(int(sum(v)))
    m = statistics.median(v)
    text = fmt.format(int(m) if "{:d}" in fmt else m)
    if len(v) > 1:
        text += " (" + " / ".join(fmt.format(x) for x in v) + ")"
    return text


def ratio(runs, get):
    s, p = med(runs.get("stock", []), get), med(runs.get("probewheel", []), get)
    if s is None or p is None or not s:
        return ""
    return f"{p / s:.2f}x"


def describe(r):
    lat = f", exec latency {r['execLatencyMs']:g} ms" if r.get("execLatencyMs") else ""
    return (
        f"{r['nodes']} node(s) x {r['podsPerNode']} pods x {r['probesPerPod']} probes, period {r['periodS']:g} s, "
        f"handlers {r['handlers']}{lat}, window {r['windowS']:g} s"
    )


def workload_table(w, runs):
    first = next(r for rs in runs.values() for r in rs)
    rounds = max(len(v) for v in runs.values())
    names = [k for k in KUBELETS if k in runs]
    out = [f"### {w}", "", describe(first) + f"; {rounds} round(s) per kubelet, ABBA; median (each round).", ""]
    errs = [f"{k} round {i + 1}: {r['error']}" for k in names for i, r in enumerate(runs[k]) if r.get("error")]
    if errs:
        out += ["**Failed runs** (left out of the medians): " + "; ".join(errs), ""]
    viol = [v for k in names for r in runs[k] for v in (r.get("violations") or [])]
    if viol:
        out += ["**Network rule violated**: " + "; ".join(viol), ""]
    ex = [f"{k} round {i + 1}: {e}" for k in names for i, r in enumerate(runs[k])
          for e in ((r.get("transitions") or {}).get("examples") or [])]
    if ex:
        out += ["Readiness flips lost or extra (up to 10 pods per run; seconds from the window's start):", ""]
        out += [f"- {e}" for e in ex[:20]] + [""]
    out.append("| | " + " | ".join(f"{k} ({runs[k][0].get('version', '?')})" for k in names) + " | probewheel / stock |")
    out.append("|---|" + "---|" * (len(names) + 1))
    for label, get, fmt, total in ROWS:
        cells = [fmt_cell(runs[k], get, fmt, total) for k in names]
        out.append(f"| {label} | " + " | ".join(cells) + f" | {'' if total else ratio(runs, get)} |")
    pw = [r for r in runs.get("probewheel", []) if ok(r) and r.get("schedulerLateness")]
    if pw:
        lat = pw[0]["schedulerLateness"]
        out += ["", f"probewheel's own prober_scheduler_start_lateness_seconds (node 0, round 1): {lat['count']:.0f} runs, "
                f"mean {lat['meanMs']:.2f} ms, p99 <= {lat['p99Ms']:g} ms (bucket bound)."]
    if first["nodes"] > 1:
        out += ["", "What the control plane saw per node (median over nodes and rounds):", ""]
        out.append("| | " + " | ".join(names) + " |")
        out.append("|---|" + "---|" * len(names))
        for label, key in [
            ("pod status writes, creation to window start", "podUpdatesStartup"),
            ("pod status writes during the window", "podUpdatesWindow"),
            ("node status writes per minute", "nodeUpdatesPerMin"),
            ("lease renewals per minute", "leaseUpdatesPerMin"),
            ("kubelet CPU, cores", "cpuCores"),
            ("kubelet RSS, MiB", "rssMiB"),
            ("kubelet goroutines", "goroutines"),
        ]:
            cells = []
            for k in names:
                v = [n[key] for r in runs[k] if ok(r) for n in r["perNode"]]
                cells.append(f"{statistics.median(v):.2f} (min {min(v):.2f}, max {max(v):.2f})" if v else "n/a")
            out.append(f"| {label} | " + " | ".join(cells) + " |")
        out.append("")
        out.append("Pod readiness timeline, seconds from the first creation until this share of the pods was Ready "
                   "(median over rounds):")
        out.append("")
        qs = [0, 4, 10, 16, 18, 20]  # 0 %, 20 %, 50 %, 80 %, 90 %, 100 %
        out.append("| | " + " | ".join(f"{q * 5}%" for q in qs) + " |")
        out.append("|---|" + "---|" * len(qs))
        for k in names:
            cells = [num(med(runs[k], lambda r, q=q: (r.get("readyQuantilesS") or [None] * 21)[q]), "{:.1f}") for q in qs]
            out.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def targets(data):
    """The issue's targets at 1,000 pods/node x 3 probes @1 s (one node)."""
    ws = [w for w, runs in data.items() if (lambda r: r["nodes"] == 1 and r["podsPerNode"] == 1000 and r["periodS"] == 1)(
        next(r for rs in runs.values() for r in rs))]
    if not ws:
        return "No 1,000-pod, 1 s workload in this run: the issue's targets are not evaluated.\n"
    out = []
    for w in ws:
        runs = data[w]
        s, p = runs.get("stock", []), runs.get("probewheel", [])

        def m(rs, path):
            return med(rs, g(path))

        def tot(rs, path):
            return sum(values(rs, g(path)))

        rows = []

        def row(name, value, good):
            rows.append(f"| {name} | {value} | {'met' if good else '**missed**'} |")

        if m(s, "goroutines") is not None and m(p, "goroutines") is not None:
            d = m(s, "goroutines") - m(p, "goroutines")
            row("goroutines >= 2,900 fewer", f"{d:.0f} fewer ({m(s, 'goroutines'):.0f} -> {m(p, 'goroutines'):.0f})", d >= 2900)
            d = m(s, "rssMiB") - m(p, "rssMiB")
            row("RSS >= 25 MiB less", f"{d:.1f} MiB less ({m(s, 'rssMiB'):.1f} -> {m(p, 'rssMiB'):.1f})", d >= 25)
            x = m(p, "cpuCores") / m(s, "cpuCores")
            row("kubelet CPU <= 0.8x stock", f"{x:.2f}x ({m(s, 'cpuCores'):.3f} -> {m(p, 'cpuCores'):.3f} cores)", x <= 0.8)
            a, b = m(s, "lateness.p99AbsMs"), m(p, "lateness.p99AbsMs")
            row("probe lateness p99 no worse than stock", f"{b:.1f} ms vs {a:.1f} ms", b <= a)
            row("no lost readiness transition (probewheel, all rounds)",
                f"{tot(p, 'transitions.lost'):.0f} of {tot(p, 'transitions.expected'):.0f} flips lost, "
                f"{tot(p, 'transitions.extra'):.0f} extra (stock: {tot(s, 'transitions.lost'):.0f} lost, "
                f"{tot(s, 'transitions.extra'):.0f} extra); missed runs {tot(p, 'lateness.missed'):.0f} "
                f"(stock {tot(s, 'lateness.missed'):.0f})",
                tot(p, "transitions.lost") == 0 and tot(p, "transitions.extra") == 0)
            bf, bs = m(p, "restart.burstFirst"), m(p, "restart.burstSteady")
            if bf is not None and bs is not None:
                row("restart burst peak/mean <= 1.15 (first period after the first probe; first full period "
                    "after every probe ran)",
                    f"{bf:.2f} and {bs:.2f} (stock {num(m(s, 'restart.burstFirst'), '{:.2f}')} and "
                    f"{num(m(s, 'restart.burstSteady'), '{:.2f}')})",
                    bf <= 1.15 and bs <= 1.15)
        out += [f"Workload {w}: {describe(next(r for rs in runs.values() for r in rs))}; medians over "
                f"{len(s)} stock and {len(p)} probewheel round(s).", "",
                "| target | measured | |", "|---|---|---|", *rows, ""]
    return "\n".join(out)


FLEET_HEAD = (
    "Per node: stock minus probewheel in each ABBA round (that round's two runs); the median, with the rounds' "
    "range. The fleet: that times the nodes, shown only where every round agrees on the sign (at least two "
    "rounds). Window means of the kubelet process; a fleet is not measured.\n\n")


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
        sys.exit("usage: plot.py RESULTS_DIR")
    d = sys.argv[1]
    data = load(d)
    if not data:
        sys.exit(f"{d}: no runs/<workload>/<kubelet>-<round>.json")
    os.makedirs(os.path.join(d, "plots"), exist_ok=True)
    files = vs_pods(data, d) + nodes_plots(data, d) + restart_plots(data, d)
    head = ""
    if os.path.exists(os.path.join(d, "run.txt")):
        head = "```\n" + open(os.path.join(d, "run.txt")).read().rstrip() + "\n```\n\n"
    order = sorted(data, key=lambda w: (lambda r: (r["nodes"], r["periodS"], r["handlers"], r["podsPerNode"]))(
        next(r for rs in data[w].values() for r in rs)))
    text = ("# Hollow-kubelet scale benchmark\n\n" + head + "## Issue 10 targets\n\n" + targets(data) +
            f"\n## A {fleet.FLEET_NODES:,}-node fleet, on paper\n\n" + FLEET_HEAD +
            fleet.table(data, lambda r: f"{r['podsPerNode']:,} pods @{r['periodS']:g} s, {r['handlers']}") +
            "\n## Workloads\n\n" + "\n".join(workload_table(w, data[w]) for w in order) +
            "\n## Plots\n\n" + "\n".join(f"![{f}](plots/{f})" for f in files) + "\n")
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
