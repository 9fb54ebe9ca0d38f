#!/usr/bin/env python3
"""Side-by-side table of tools/bench/pingpong-vs-openmpi.sh's logs: median over repetitions of each
run's median and p99 one-way latency and MB/s; the ratio Lockstep / Open MPI (CMA) per size.
Usage: python3 tools/bench/summarize-pingpong.py RESULTS_DIR [--near]  (--near: runs whose probes were < 100 ns)"""
import collections
import glob
import re
import statistics
import sys

out_dir = sys.argv[1]
near_only = '--near' in sys.argv
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for path in sorted(glob.glob(out_dir + '/*.log')):
    name = path.split('/')[-1].rsplit('.', 2)[0]
    text = open(path).read()
    probe = re.search(r'PROBE before_ns=([\d.]+) after_ns=([\d.]+)', text)
    if near_only and (not probe or max(float(probe.group(1)), float(probe.group(2))) >= 100):
        continue
    for m in re.finditer(r'PP size=(\d+) iters=\d+ med_us=([\d.]+) p99_us=([\d.]+)(?: min_us=[\d.]+)? mbps=([\d.]+)', text):
        runs[name][int(m.group(1))].append((float(m.group(2)), float(m.group(3)), float(m.group(4))))
sizes = sorted({s for n in runs for s in runs[n]})
print('| size | Lockstep med µs | p99 µs | MB/s | Open MPI med µs | p99 µs | MB/s | Open MPI no CMA med µs | MB/s | Lockstep / Open MPI |')
print('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for s in sizes:
    cells, med = [f'{s}'], {}
    for name, with_p99 in (('lockstep', True), ('openmpi', True), ('openmpi-nocma', False)):
        v = runs[name].get(s)
        if not v:
            cells += ['–'] * (3 if with_p99 else 2)
            continue
        med[name] = statistics.median(x[0] for x in v)
        cells.append(f'{med[name]:.3f}')
        if with_p99:
            cells.append(f'{statistics.median(x[1] for x in v):.3f}')
        cells.append(f'{statistics.median(x[2] for x in v):.0f}')
    cells.append(f"{med['lockstep'] / med['openmpi']:.2f}" if 'lockstep' in med and 'openmpi' in med else '–')
    print('| ' + ' | '.join(cells) + ' |')
print(f"runs: {', '.join(f'{n} {len(next(iter(runs[n].values()), []))}' for n in sorted(runs))}" + (' (near only)' if near_only else ''))
