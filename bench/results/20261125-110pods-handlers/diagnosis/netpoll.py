#!/usr/bin/env python3
"""netpoll.py <strace -f -tt output, GOMAXPROCS=1>: per probe run (connect calls) on the thread
that makes them: its blocking and non-blocking epoll_pwait calls, the blocking ones that woke to
nothing (followed at once by another blocking one) with their timeouts in ms (first, second),
and sysmon (the thread that sleeps most in nanosleep): its nanosleeps and how its deep sleeps
(futex waits) ended: a timeout (it slept to the next timer) or a syscall that woke it."""
import collections, re, sys

lines = open(sys.argv[1]).read().splitlines()
by_tid = lambda pat: collections.Counter(l.split()[0] for l in lines if pat in l).most_common(1)[0][0]
main, sysmon = by_tid('connect('), by_tid('nanosleep(')
mine = [l for l in lines if l.split()[0] == main and 'resumed' not in l]
runs = sum('connect(' in l for l in mine)
blocking = lambda l: 'epoll_pwait(' in l and ', 128, 0, NULL' not in l


def timeout(l):
    m = re.search(r'epoll_pwait\(\d+, (?:\[.*?\]|\S+), 128, (-?\d+)', l)
    return int(m.group(1)) if m else None  # None: strace split the call (<unfinished ...>)


pairs = collections.Counter((timeout(a), timeout(b)) for a, b in zip(mine, mine[1:]) if blocking(a) and blocking(b))
nblock = sum(blocking(l) for l in mine)
nonblock = sum('epoll_pwait(' in l and ', 128, 0, NULL' in l for l in mine)
sm = [l for l in lines if l.split()[0] == sysmon]
ends, pending = collections.Counter(), False
for l in sm:
    if 'futex(' in l and 'FUTEX_WAIT' in l:
        if 'unfinished' in l:
            pending = True
        else:
            ends['timeout' if 'ETIMEDOUT' in l else 'woken'] += 1
    elif pending and 'futex resumed' in l:
        ends['timeout' if 'ETIMEDOUT' in l else 'woken'] += 1
        pending = False
known = [(k, n) for k, n in pairs.most_common() if None not in k][:4]
print(f'{sys.argv[1]}: {runs} runs; epoll_pwait blocking {nblock / runs:.2f}/run, non-blocking {nonblock / runs:.2f}/run; '
      f'blocking ones that woke to nothing {sum(pairs.values()) / runs:.2f}/run, commonest (ms, then ms): '
      + ', '.join(f'{a}+{b} ×{n}' for (a, b), n in known))
print(f'sysmon (thread {sysmon}): nanosleep {sum("nanosleep(" in l for l in sm) / runs:.2f}/run; deep sleeps ended by a '
      f'timeout {ends["timeout"]}, by a syscall {ends["woken"]}')
