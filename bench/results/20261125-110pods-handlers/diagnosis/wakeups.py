#!/usr/bin/env python3
"""wakeups.py <perf.data> <runs>: the process's futex and epoll_pwait calls, per probe run,
grouped by the runtime path that made them (perf record -e syscalls:sys_enter_{futex,epoll_pwait} -g),
and the Go frames above runtime.entersyscall for the calls that woke sysmon from its deep sleep."""
import collections, re, subprocess, sys

f, runs = sys.argv[1], float(sys.argv[2])
out = subprocess.run(['perf', 'script', '-i', f], capture_output=True, text=True).stdout
drop = re.compile(r'^(runtime\.futex|runtime\.notewakeup|runtime\.notesleep|internal/runtime/syscall|runtime\.mcall|'
                  r'runtime\.park_m|runtime\.morestack|runtime\.futexsleep|runtime\.futexwakeup|runtime\.notetsleep)')
paths, waker = collections.Counter(), collections.Counter()
for block in out.split('\n\n'):
    lines = [l.strip() for l in block.strip().split('\n') if l.strip()]
    if not lines:
        continue
    ev = 'futex' if 'futex' in lines[0] else 'epoll_pwait'
    op = re.search(r'op: 0x0*(\w+)', lines[0])
    if op:
        ev += {'80': ' wait', '81': ' wake'}.get(op.group(1), ' op ' + op.group(1))
    frames = [re.sub(r'\+0x\w+$', '', l.split()[1]) for l in lines[1:] if len(l.split()) > 1]
    kept = [x.replace('runtime.', '') for x in frames if not drop.match(x)]
    paths[(ev, ' < '.join(kept[:4]))] += 1
    if 'runtime.entersyscallWakeSysmon' in frames:
        i = frames.index('runtime.entersyscall')
        waker[' < '.join(frames[i + 2:i + 5])] += 1
print(f'{f}: {runs:.0f} runs')
for (ev, st), n in paths.most_common(8):
    print(f'  {n / runs:5.2f}/run  {ev:12s} {st[:150]}')
print('  syscalls that woke sysmon, by caller:')
for st, n in waker.most_common(4):
    print(f'  {n / runs:5.2f}/run  {st[:150]}')
