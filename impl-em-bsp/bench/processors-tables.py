#!/usr/bin/env python3
"""Tables and a gnuplot bar plot from a sort-vs-stxxl.sh output directory whose RUNS mix STXXL with
our one- and two-process runs (embsp, embsp-p2, embsp-indirect, embsp-p2-indirect).
    python3 processors-tables.py OUT_DIR GIB      (writes OUT_DIR/sort-GIBg-processors.png with gnuplot)"""
import os
import subprocess
import sys

out, gib = sys.argv[1], sys.argv[2]
GiB = 2 ** 30


def kv(line):
    return dict(f.split('=', 1) for f in line.split() if '=' in f)


runs = []
for line in open(f'{out}/summary.txt'):
    fields = line.rstrip('\n').split('\t')
    if 'RESULT' in line:
        d = kv(line)
        runs.append(dict(name='stxxl', label='STXXL stxxl::sort', processors=1, seconds=float(d['sort_s']),
                         bytes=int(d['bytes']), io=int(d['read_b']) + int(d['write_b']), bound='', within='',
                         network='', rss=f"{int(d['maxrss_kb']) / 1024:.0f}", wall=d['proc_wall'],
                         load=d.get('load_before', '').replace(',', ' '), covers='sort phase only'))
    elif len(fields) > 2 and fields[1].startswith('embsp') and 'vps=' in fields[2]:
        d = kv(line)
        rss = ' + '.join(f'{int(r) / 2 ** 20:.0f}' for r in d['processor_peak_rss_bytes'].split(','))
        runs.append(dict(name=fields[1], label=f"lockstep embsp P={d['processors']} k={d['cores']} {d['delivery']}",
                         processors=int(d['processors']), seconds=float(d['seconds']), bytes=8 * int(d['size']),
                         io=int(d['swap_bytes']) + int(d['delivery_bytes']), bound=int(d['bound_bytes']),
                         within=d['within_bounds'], network=f"{int(d['network_bytes']) / GiB:.2f} / {int(d['network_bound_bytes']) / GiB:.2f}",
                         rss=rss, wall=d['proc_wall'], load=d.get('load_before', '').replace(',', ' '),
                         covers='generate + sort + check', delivery=int(d['delivery_bytes'])))
    elif len(fields) > 1 and fields[1].startswith('embsp'):
        runs.append(dict(name=fields[1], failed=True, log=kv(line).get('log', f'{out}/{fields[1]}-sort-{gib}g.log')))
    if runs and 'dat=' in line and not runs[-1].get('failed'):
        runs[-1]['dat'] = kv(line)['dat']

stxxl = next((r for r in runs if r['name'] == 'stxxl'), None)
print(f'| run ({gib} GiB of keys) | seconds | input MB/s | vs STXXL | I/O / input | counted I/O / bound | within_bounds '
      '| network GiB / bound | peak RSS MiB per process | process wall | load before (1, 5, 15 min) | seconds cover |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|')
for r in runs:
    if r.get('failed'):
        print(f"| {r['name']} | failed, see {r['log']} |" + ' |' * 10)
        continue
    mbps = r['bytes'] / r['seconds'] / 1e6
    ratio = f"{mbps / (stxxl['bytes'] / stxxl['seconds'] / 1e6):.2f}x" if stxxl else ''
    bound = f"{r['io'] / r['bound']:.2f}" if r['bound'] else ''
    print(f"| {r['label']} | {r['seconds']:.1f} | {mbps:.1f} | {ratio} | {r['io'] / r['bytes']:.2f} | {bound} | {r['within']} "
          f"| {r['network']} | {r['rss']} | {r['wall']} | {r['load']} | {r['covers']} |")

print()
print('Alltoallv of the keys (the call direct and indirect delivery differ in):')
print()
print('| run | counted swap GiB | counted delivery GiB | delivery bound GiB | thesis bound GiB | network GiB | seconds |')
print('|---|---|---|---|---|---|---|')
for r in runs:
    calls = f"{r.get('dat', f'{out}/sort-{gib}g-' + r['name'] + '.dat')}.calls"
    if r.get('failed') or not os.path.exists(calls):
        continue
    for line in open(calls):
        f = line.split()
        if line.startswith('#') or len(f) < 14 or f[1] != 'alltoallv':
            continue
        print(f"| {r['label']} | {int(f[4]) / GiB:.2f} | {int(f[5]) / GiB:.2f} | {int(f[7]) / GiB:.2f} | {int(f[8]) / GiB:.2f} "
              f"| {int(f[12]) / GiB:.2f} | {float(f[11]):.1f} |")

ok = [r for r in runs if not r.get('failed')]
data = f'{out}/sort-{gib}g-processors.dat'
with open(data, 'w') as d:
    d.write('# run input_MB_per_s\n')
    for r in ok:
        d.write(f"\"{r['label']}\" {r['bytes'] / r['seconds'] / 1e6:.2f}\n")
script = f'''set terminal pngcairo size 900,480
set output "{out}/sort-{gib}g-processors.png"
set title "Sort of {gib} GiB of 64-bit keys: input MB/s (same session, loaded machine)"
set style fill solid 0.6
set boxwidth 0.6
set ylabel "input MB/s"
set xtics rotate by -20
set yrange [0:*]
unset key
plot "{data}" using 0:2:xtic(1) with boxes
'''
try:
    subprocess.run(['gnuplot'], input=script, text=True, check=True)
    print(f'\nplot: {out}/sort-{gib}g-processors.png')
except (OSError, subprocess.CalledProcessError) as e:
    print(f'\nno plot ({e}); data in {data}')
