#!/usr/bin/env python3
"""cpu_split.py <perf.data> <runs> <freq>: each sample of perf record -F <freq> -g, classified by
the innermost Go frame of interest (leaf first); CPU per category in µs per probe run."""
import collections, subprocess, sys

cats = [
 ('sysmon', 'runtime.sysmon'),
 ('netpoll wait (findRunnable)', 'runtime.netpoll'),
 ('stopm/futexsleep', 'runtime.stopm'),
 ('wakep/startm', 'runtime.wakep'),
 ('startm', 'runtime.startm'),
 ('timers', 'runtime.(*timers).run'),
 ('findRunnable other', 'runtime.findRunnable'),
 ('gc', 'runtime.gcBgMarkWorker'),
 ('dial', 'net.(*Dialer).DialContext'),
 ('close', 'net.(*conn).Close'),
 ('probe other', 'tcp.DoTCPProbe'),
 ('grpc', 'google.golang.org/grpc'),
 ('http', 'net/http'),
 ('scheduler', 'probewheel/pkg/kubelet/prober.(*scheduler)'),
 ('executors', 'probewheel/pkg/kubelet/prober.(*executors)'),
 ('doProbe', 'prober.(*worker).doProbe'),
 ('worker run', 'prober.(*worker).run'),
 ('harness', 'probewheel/bench'),
]
f, runs, freq = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
out = subprocess.run(['perf','script','-i',f,'-F','comm,ip,sym'], capture_output=True, text=True).stdout
counts = collections.Counter(); total = 0
for block in out.split('\n\n'):
    lines = [l.strip() for l in block.strip().split('\n') if l.strip()]
    if not lines: continue
    total += 1
    frames = lines[1:]
    c = 'other'
    for fr in frames:  # leaf first
        hit = None
        for name, pat in cats:
            if pat in fr: hit = name; break
        if hit: c = hit; break
    counts[c] += 1
print(f'{f}: {total} samples = {total/freq*1000:.0f} ms CPU, {total/freq*1e6/runs:.1f} µs/run')
for c, n in counts.most_common():
    print(f'  {c:30s} {n:6d} {n/freq*1e6/runs:8.1f} µs/run')
