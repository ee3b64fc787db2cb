"""A 5,000-node fleet, on paper, from one hollow node's ABBA rounds.

A fleet is never measured: its saving is a node's saving multiplied. What this
module adds to that multiplication is the refusal to multiply noise. Each round
pairs one stock run with the probewheel run of the same round (ABBA keeps the
two close in time), so a round gives one difference. The fleet figure is
nodes x (median difference), with nodes x (smallest ... largest difference)
beside it, and it is shown only when at least two rounds agree on its sign:

    RSS, MiB, rounds (stock - probewheel):  59.1, 60.2, 57.0
    -> 59.1 MiB per node (57.0 ... 60.2), x 5,000 = 289 GiB (278 ... 294 GiB)
    cores, rounds:  0.07, -0.01, 0.05
    -> "not shown": one round says probewheel used more

Only the standard library: make test runs fleet_test.py without matplotlib.
"""

import statistics

FLEET_NODES = 5000

# (label, result key, unit per node, scale to the fleet unit, fleet unit, format per node, format fleet)
FIGURES = [
    ("kubelet RSS", "rssMiB", "MiB", 1 / 1024, "GiB", "{:.1f}", "{:,.0f}"),
    ("kubelet CPU", "cpuCores", "cores", 1, "cores", "{:.3f}", "{:,.0f}"),
    ("goroutines", "goroutines", "", 1e-6, "million", "{:,.0f}", "{:.1f}"),
]


def pairs(runs, key):
    """stock - probewheel for each round (the result's "round") in which both runs succeeded and have key."""
    by_round = {k: {r.get("round", i + 1): r for i, r in enumerate(runs.get(k, []))} for k in ("stock", "probewheel")}
    out = []
    for rnd in sorted(by_round["stock"].keys() & by_round["probewheel"].keys()):
        s, p = by_round["stock"][rnd], by_round["probewheel"][rnd]
        if s.get("error") or p.get("error"):
            continue
        a, b = s.get(key), p.get(key)
        if a is None or b is None:
            continue
        out.append(a - b)
    return out


def saving(diffs):
    """(sign, median, lo, hi) of |differences| when every round agrees on the sign, else (None, why)."""
    if len(diffs) < 2:
        return None, f"{len(diffs)} round pair(s): not shown"
    if all(d > 0 for d in diffs):
        sign = 1
    elif all(d < 0 for d in diffs):
        sign = -1
    else:
        return None, "rounds disagree on the sign: not shown"
    a = [abs(d) for d in diffs]
    return (sign, statistics.median(a), min(a), max(a)), ""


def cell(diffs, unit, scale, funit, fmt, ffmt, nodes):
    """Two cells: per node, and the fleet (or why it is not shown)."""
    got, why = saving(diffs)
    if got is None:
        each = " / ".join(fmt.format(d) for d in diffs)
        return (f"{each} {unit}".strip() if diffs else "n/a"), why
    sign, m, lo, hi = got
    more = "" if sign > 0 else "costs more: "
    per = f"{more}{fmt.format(m)} {unit} ({fmt.format(lo)} ... {fmt.format(hi)})".replace("  ", " ")
    fleet = f"{more}{ffmt.format(m * nodes * scale)} {funit} ({ffmt.format(lo * nodes * scale)} ... {ffmt.format(hi * nodes * scale)})"
    return per, fleet


def table(data, describe_key, nodes=FLEET_NODES):
    """Markdown: one row per one-node workload, ordered by period then pods."""
    rows = []
    for w, runs in data.items():
        first = next((r for rs in runs.values() for r in rs), None)
        if first is None or first.get("nodes") != 1 or "stock" not in runs or "probewheel" not in runs:
            continue
        cells = []
        for _, key, unit, scale, funit, fmt, ffmt in FIGURES:
            per, fleet = cell(pairs(runs, key), unit, scale, funit, fmt, ffmt, nodes)
            cells += [per, fleet]
        rows.append((describe_key(first), first["periodS"], first["podsPerNode"], cells))
    if not rows:
        return "No one-node workload with both kubelets: no fleet figure.\n"
    rows.sort(key=lambda r: (r[1], r[2]))
    head = ["workload"]
    for label, *_ in FIGURES:
        head += [f"{label} saved per node (rounds' range)", f"x {nodes:,} nodes"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join([name] + cells) + " |" for name, _, _, cells in rows]
    return "\n".join(out) + "\n"
