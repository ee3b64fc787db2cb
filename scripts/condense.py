#!/usr/bin/env python3
"""Condense the benchmark's raw dumps into the small summaries that are committed.

    scripts/condense.py DUMPS_DIR RESULTS_DIR

A raw dump (bench/bench_test.go dumpInts, under _output/) holds one value per
probe interval or probe start: megabytes per run. Its summary, written to
RESULTS_DIR/summaries/ under the dump's name, holds what the plots need:

  *.intervals  |interval - period| in microseconds, as counts in log-spaced bins
               (12 per decade from 10 us to 1000 s, plus one bin for smaller
               errors): the period-error CDF
  *.restart    probe start times after the manager's creation, as counts in the
               restart-burst plot's bins (20 per period for periods up to 1 s,
               100 for longer ones)

Each summary starts with the dump's header line, then "upper_edge count" lines
for the non-empty bins (upper edges in microseconds). scripts/plot.py reads them.
"""

import math
import os
import re
import sys

PER_DECADE = 12
LOW_US = 10.0  # the first bin holds every error below 10 us
HIGH_US = 1e9


def interval_edges():
    edges = [LOW_US]
    k = 1
    while edges[-1] < HIGH_US:
        edges.append(LOW_US * 10 ** (k / PER_DECADE))
        k += 1
    return edges


def restart_edges(period_us):
    nb = 20 if period_us <= 1e6 else 100
    return [period_us * (i + 1) / nb for i in range(nb)]


def read(path):
    header, vals = "", []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                header = line.rstrip("\n")
            elif line.strip():
                vals.append(float(line))
    return header, vals


def histogram(vals, edges):
    counts = [0] * (len(edges) + 1)  # the last bin: beyond the last edge
    for v in vals:
        lo, hi = 0, len(edges)
        while lo < hi:  # the first edge >= v
            mid = (lo + hi) // 2
            if edges[mid] >= v:
                hi = mid
            else:
                lo = mid + 1
        counts[lo] += 1
    return counts


def condense(path, out_dir):
    header, vals = read(path)
    name = os.path.basename(path)
    if name.endswith(".intervals"):
        edges = interval_edges()
        vals = [abs(v) for v in vals]
    elif name.endswith(".restart"):
        m = re.search(r"period_ns=(\d+)", header)
        if not m:
            print(f"condense: {path}: no period_ns in the header, skipped", file=sys.stderr)
            return
        edges = restart_edges(int(m.group(1)) / 1e3)
    else:
        return
    counts = histogram(vals, edges)
    with open(os.path.join(out_dir, name), "w") as f:
        f.write(header + f" n={len(vals)}\n")
        for i, c in enumerate(counts):
            if c:
                edge = edges[i] if i < len(edges) else math.inf
                f.write(f"{edge:.6g} {c}\n")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: condense.py DUMPS_DIR RESULTS_DIR")
    dumps, results = sys.argv[1:]
    out_dir = os.path.join(results, "summaries")
    os.makedirs(out_dir, exist_ok=True)
    n = 0
    for name in sorted(os.listdir(dumps)):
        condense(os.path.join(dumps, name), out_dir)
        n += 1
    print(f"condense: {n} dumps from {dumps} -> {out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
