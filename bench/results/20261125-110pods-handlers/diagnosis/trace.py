#!/usr/bin/env python3
"""trace.py <runtime trace>: per probe run (a goroutine parking in DoTCPProbe's connect), the
goroutines made runnable (Waiting->Runnable) and the Ps started from idle that went idle again
without running a goroutine (go tool trace -d=parsed)."""
import re, subprocess, sys

out = subprocess.run(['go', 'tool', 'trace', '-d=parsed', sys.argv[1]], capture_output=True, text=True).stdout
runs = unblocked = empty = useful = 0
open_ = {}  # P -> goroutines run since it left idle
for ev in re.split(r'\n(?=M=)', out):
    head = ev.split('\n', 1)[0]
    if 'StateTransition' not in head:
        continue
    m = re.search(r'(GoID|ProcID)=(\d+) (\w+)->(\w+)', head)
    if not m:
        continue
    kind, ident, a, b = m.groups()
    p = re.match(r'M=-?\d+ P=(-?\d+)', head).group(1)
    if kind == 'GoID':
        if a == 'Running' and b == 'Waiting' and 'DoTCPProbe' in ev:
            runs += 1
        if a == 'Waiting' and b == 'Runnable':
            unblocked += 1
        if a == 'Runnable' and b == 'Running' and p in open_:
            open_[p] += 1
    elif a == 'Idle' and b == 'Running':
        open_[ident] = 0
    elif a == 'Running' and b == 'Idle' and ident in open_:
        if open_.pop(ident):
            useful += 1
        else:
            empty += 1
print(f'{sys.argv[1]}: {runs} runs; goroutines made runnable {unblocked / runs:.2f}/run; '
      f'Ps woken from idle {(useful + empty) / runs:.2f}/run, of which ran no goroutine {empty / runs:.2f}/run')
