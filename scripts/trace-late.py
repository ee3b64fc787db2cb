#!/usr/bin/env python3
# Explain the late probe arrivals of a traced benchmark window.
#
# Usage: scripts/trace-late.py <window>.late|<window>.trace [...]
#
# PROBEWHEEL_BENCH_LATE=dir makes BenchmarkSteady write, per measured window,
# a .late list: target, arrival (the benchmark's clock, which is the trace's)
# and interval − period for every interval more than 12 ms off its period,
# with the window's start and the GC cycles' ends. For a .late file this
# prints when each late arrival came (ms after the window's start), whether
# its pod was one added at the window's start, and the nearest GC end.
#
# PROBEWHEEL_BENCH_TRACE=dir also writes an execution trace of each window.
# For a .trace file this prints, for each late arrival, what held it back:
# the goroutine that ran the probe (found by the arrival's log event), its
# state changes, what each P ran, and the GC's phases and mark assists, from
# the moment the run was due until it arrived.
#
# An interval too long means its closing arrival was late; one too short
# means its opening arrival was (that arrival is found as well).
import bisect
import collections
import re
import subprocess
import sys

EV = re.compile(r'^M=(-?\d+) P=(-?\d+) G=(-?\d+) (\w+) Time=(\d+)(.*)$')
TRANS = re.compile(r'(GoID|ProcID)=(\d+) (\w+)->(\w+)(?: Reason="([^"]*)")?')
RANGE = re.compile(r'Name="([^"]*)" Scope=(\w+)(?:\((\d+)\))?')
LOG = re.compile(r'Category="([^"]*)" Message="([^"]*)"')

ROLES = [  # first match in a goroutine's stacks names it
    ('gcBgMarkWorker', 'GC worker'),
    ('bgsweep', 'GC sweeper'),
    ('bgscavenge', 'GC scavenger'),
    ('wheelLoop', 'wheel loop'),
    ('(*scheduler).execute', 'executor'),
    ('(*worker).run', 'upstream worker'),
    ('runStallCanary', 'canary'),
]


def parse(path):
    out = subprocess.run(['go', 'tool', 'trace', '-d=parsed', path],
                         check=True, capture_output=True, text=True).stdout
    g_trans = collections.defaultdict(list)  # goid -> [(t, from, to, reason, p)]
    p_runs = collections.defaultdict(list)   # p -> [(start, end, goid)]
    running = {}                             # p -> (goid, since)
    ranges = []                              # (start, end, name, goid or None)
    open_ranges = {}
    arrivals = collections.defaultdict(list)  # target -> [(t, goid)]
    roles = {}
    cur_g, t_last = None, 0
    for line in out.splitlines():
        if line.startswith('\t'):
            if cur_g is not None and cur_g not in roles:
                for key, role in ROLES:
                    if key in line:
                        roles[cur_g] = role
                        break
            continue
        m = EV.match(line)
        if not m:
            continue
        p, g, kind, t, rest = int(m[2]), int(m[3]), m[4], int(m[5]), m[6]
        t_last = max(t_last, t)
        cur_g = g if g >= 0 else None
        if kind == 'StateTransition':
            tm = TRANS.search(rest)
            if not tm or tm[1] != 'GoID':
                continue
            goid, frm, to, reason = int(tm[2]), tm[3], tm[4], tm[5] or ''
            cur_g = goid
            g_trans[goid].append((t, frm, to, reason, p))
            if to == 'Running' and p >= 0:
                if p in running:
                    og, since = running[p]
                    p_runs[p].append((since, t, og))
                running[p] = (goid, t)
            elif frm == 'Running':
                for pp, (og, since) in list(running.items()):
                    if og == goid:
                        p_runs[pp].append((since, t, og))
                        del running[pp]
        elif kind in ('RangeBegin', 'RangeActive', 'RangeEnd'):
            rm = RANGE.search(rest)
            if not rm:
                continue
            name, scope, sid = rm[1], rm[2], rm[3]
            key = (name, scope, sid)
            if kind == 'RangeEnd':
                st = open_ranges.pop(key, None)
                ranges.append((st if st is not None else 0, t, name, int(sid) if scope == 'Goroutine' else None))
            else:
                open_ranges.setdefault(key, t)
        elif kind == 'Log':
            lm = LOG.search(rest)
            if lm and lm[1] == 'probewheel-arrival':
                arrivals[int(lm[2])].append((t, g))
    for p, (og, since) in running.items():
        p_runs[p].append((since, t_last, og))
    for (name, scope, sid), st in open_ranges.items():
        ranges.append((st, t_last, name, int(sid) if scope == 'Goroutine' else None))
    for v in p_runs.values():
        v.sort()
    return g_trans, p_runs, ranges, arrivals, roles


def ms(ns):
    return f'{ns / 1e6:.2f}'


def read_late(late_path):
    hdr, lates = {}, []
    for ln in open(late_path).read().split('\n'):
        if '=' in ln:
            k, v = ln.split('=', 1)
            hdr[k] = v
        elif ln.strip():
            i, at, diff = map(int, ln.split())
            lates.append((i, at, diff))
    return hdr, lates


def summarize(path):
    hdr, lates = read_late(path)
    period, ws = int(hdr['period_ns']), int(hdr['window_start_ns'])
    added = int(hdr.get('first_added_target', 1 << 62))
    gcs = [float(x) for x in hdr.get('gc_end_ms', '').split()]
    worst = max((abs(d) for _, _, d in lates), default=0)
    print(f'== {path}: {len(lates)} intervals off > 12 ms, worst {ms(worst)} ms; '
          f'GC ends at {", ".join(f"{g:.0f}" for g in gcs) or "-"} ms')
    seen = set()
    for i, at, diff in sorted(lates, key=lambda x: -abs(x[2])):
        t_late = at if diff > 0 else at - (period + diff)
        if (i, t_late) in seen:
            continue
        seen.add((i, t_late))
        off = (t_late - ws) / 1e6
        near = min(gcs, key=lambda g: abs(g - off), default=None)
        gc = f', nearest GC end {near - off:+.0f} ms' if near is not None else ''
        print(f'   {ms(abs(diff)):>6} ms late at {off:9.1f} ms, target {i}'
              f'{" (added pod)" if i >= added else ""}{gc}')


def explain(path):
    hdr, lates = read_late(path[:-len('.trace')] + '.late')
    period = int(hdr['period_ns'])
    if not lates:
        print(f'{path}: no late arrivals')
        return
    g_trans, p_runs, ranges, arrivals, roles = parse(path)
    role = lambda g: roles.get(g, 'G')
    seen = set()
    print(f'== {path}: {len(lates)} intervals off by more than 12 ms')
    for i, at, diff in lates:
        # The late arrival and how late it was against its predecessor.
        if diff > 0:
            t_late, held = at, diff
        else:
            t_late, held = at - (period + diff), -diff
        ts = [a for a, _ in arrivals.get(i, [])]
        k = bisect.bisect_left(ts, t_late - 100_000)
        if k >= len(ts) or abs(ts[k] - t_late) > 1_000_000:
            print(f'-- target {i} at {t_late}: arrival not in the trace (before it started?)')
            continue
        t_arr, g = arrivals[i][k]
        if (i, t_arr) in seen:
            continue
        seen.add((i, t_arr))
        lo = t_arr - held - 2_000_000
        print(f'-- target {i}: arrived {ms(held)} ms late at +{ms(t_arr - lo)} ms of the view '
              f'(view starts {ms(held + 2e6)} ms before), on G{g} ({role(g)})')
        for t, frm, to, reason, p in g_trans.get(g, []):
            if lo <= t <= t_arr:
                print(f'   {ms(t - lo):>8}  G{g} {frm}->{to} {reason} P{p}')
        for p in sorted(p_runs):
            segs = [(max(s, lo), min(e, t_arr), og) for s, e, og in p_runs[p] if e > lo and s < t_arr]
            busy = collections.Counter()
            for s, e, og in segs:
                busy[f'{role(og)}' + (f' G{og}' if og == g else '')] += e - s
            desc = ', '.join(f'{k} {ms(v)}' for k, v in busy.most_common(6))
            print(f'   P{p}: ran {desc or "nothing"} (ms)')
            long = [(s, e, og) for s, e, og in segs if e - s >= 2_000_000]
            for s, e, og in long:
                print(f'      {ms(s - lo):>8}-{ms(e - lo):<8} {role(og)} G{og}')
        for s, e, name, rg in ranges:
            if e > lo and s < t_arr and ('GC' in name or 'stop-the-world' in name):
                who = f' G{rg} ({role(rg)})' if rg is not None else ''
                if name == 'GC mark assist' and e - s < 500_000:
                    continue
                print(f'   {name}{who}: {ms(max(s, lo) - lo)}-{ms(min(e, t_arr) - lo)} ms')


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__ or 'usage: trace-late.py <window>.trace ...')
    for a in sys.argv[1:]:
        if a.endswith('.late'):
            summarize(a)
        else:
            explain(a)
