#!/usr/bin/env python3
"""Markdown tables from a sort-vs-stxxl.sh output directory: the side-by-side sort table and the
I/O-vs-bound table of each collective call of our run.  python3 tables.py OUT_DIR GIB"""
import re
import sys

out, gib = sys.argv[1], sys.argv[2]
GiB = 2 ** 30


def kv(line):
    return dict(f.split('=', 1) for f in line.split() if '=' in f)


rows = []
for line in open(f'{out}/summary.txt'):
    if 'RESULT algo=ram' in line:
        d = kv(line)
        rows.append((f"in RAM: __gnu_parallel::sort, {d['threads']} threads, no disk", float(d['sort_s']), d['n'], 0.0,
                     int(d['maxrss_kb']) / 1024, d['proc_wall'], f"sort phase only (generate {d['gen_s']} s, check {d['check_s']} s)"))
    elif 'RESULT' in line:
        d = kv(line)
        wall = d['proc_wall']
        rows.append(('STXXL 1.4.1 stxxl::sort, syscall direct=on', float(d['sort_s']), d['n'],
                     (int(d['read_b']) + int(d['write_b'])) / int(d['bytes']), int(d['maxrss_kb']) / 1024, wall,
                     f"gen {d['gen_s']} s + sort + check {d['check_s']} s"))
    elif '\tembsp\t' in line:
        d = kv(line)
        n = int(d['size'])
        io = (int(d['swap_bytes']) + int(d['delivery_bytes'])) / (8 * n)
        rows.append((f"lockstep embsp sort, v={d['vps']} k={d['cores']} B={d['block_size']} io={d['io']} threads={d['threads']}",
                     float(d['seconds']), d['size'], io, int(d['maxrss_kb']) / 1024, d['proc_wall'],
                     f"generate + sort + check; within_bounds={d['within_bounds']}"))
print(f'| run ({gib} GiB of keys) | seconds | input MB/s | I/O volume / input | max RSS MiB | process wall | what the seconds cover |')
print('|---|---|---|---|---|---|---|')
for name, s, n, io, rss, wall, note in rows:
    print(f'| {name} | {s:.1f} | {int(n) * 8 / s / 1e6:.1f} | {io:.2f} | {rss:.0f} | {wall} | {note} |')

print()
print('| call | VPs | ω bytes | counted swap GiB | counted delivery GiB | swap bound GiB | delivery bound GiB | thesis bound GiB | counted / thesis bound | within |')
print('|---|---|---|---|---|---|---|---|---|---|')
import os
# the last run of ours names its data (dat=); directories written before runs had their own files do not
calls = ([f"{kv(line)['dat']}.calls" for line in open(f'{out}/summary.txt') if '\tembsp\t' in line and 'dat=' in line]
         or [f'{out}/sort-{gib}g-embsp.dat.calls'])[-1]
for line in open(calls if os.path.exists(calls) else f'{out}/sort-{gib}g.dat.calls'):
    if line.startswith('#'):
        continue
    f = line.split()
    seq, op, n, omega, swap, dlv, swapb, dlvb, thesis, misses, ok = f[:11]
    print(f'| {seq} {op} | {n} | {omega} | {int(swap) / GiB:.2f} | {int(dlv) / GiB:.2f} | {int(swapb) / GiB:.2f} | '
          f'{int(dlvb) / GiB:.2f} | {int(thesis) / GiB:.2f} | {(int(swap) + int(dlv)) / int(thesis):.2f} | {ok} |')
