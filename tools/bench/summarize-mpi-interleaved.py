#!/usr/bin/env python3
"""Tables of tools/bench/mpi-provider-interleaved.sh's logs.
java: per MPI, thread level and size, the Java layer's cost (InterleavedPingPong's ratio of the API's
median one-way latency to the C loop's in the same job), median over runs, with the runs' placements.
state: per MPI and size, the peers' C pingpong in the provider's library state against plain, near runs
with near runs only (both probe readings under NEAR_NS), and far with far.
Usage: python3 tools/bench/summarize-mpi-interleaved.py RESULTS_DIR [NEAR_NS]"""
import collections
import glob
import re
import statistics
import sys

out_dir = sys.argv[1]
near_ns = float(sys.argv[2]) if len(sys.argv) > 2 else 80.0


def placement(text):
    m = re.search(r'PROBE before_ns=([\d.]+) after_ns=([\d.]+)', text)
    if not m:
        return '?'
    before, after = float(m.group(1)), float(m.group(2))
    if before < near_ns and after < near_ns:
        return 'near'
    if before >= near_ns and after >= near_ns:
        return 'far'
    return 'moved'


java = collections.defaultdict(list)   # (mpi, level, size) -> [(ratio, java_us, c_us, placement)]
state = collections.defaultdict(list)  # (mpi, state, size, placement) -> [median one-way us]
for path in sorted(glob.glob(out_dir + '/*.log')):
    name = path.split('/')[-1].rsplit('.', 2)[0]
    text = open(path).read()
    where = placement(text)
    if 'FAILED' in text:
        print(f'{path}: failed run, left out', file=sys.stderr)
        continue
    kind, mpi, variant = name.split('-', 2)
    if kind == 'java':
        for m in re.finditer(r'IPP size=(\d+) .*?java_med_us=([\d.]+) c_med_us=([\d.]+) ratio=([\d.]+)', text):
            java[(mpi, variant, int(m.group(1)))].append((float(m.group(4)), float(m.group(2)), float(m.group(3)), where))
    elif kind == 'c':
        for m in re.finditer(r'PP size=(\d+) iters=\d+ med_us=([\d.]+)', text):
            state[(mpi, variant, int(m.group(1)), where)].append(float(m.group(2)))

if java:
    print('Java layer: API round trips / C loop round trips in the same job (median one-way), median over runs\n')
    print('| MPI | threads | size (B) | Java µs | C µs | Java / C | runs (placement) |')
    print('|---|---|---:|---:|---:|---:|---|')
    for (mpi, level, size), rows in sorted(java.items()):
        places = collections.Counter(r[3] for r in rows)
        print(f'| {mpi} | {level} | {size} | {statistics.median(r[1] for r in rows):.3f} | '
              f'{statistics.median(r[2] for r in rows):.3f} | {statistics.median(r[0] for r in rows):.3f} '
              f'({min(r[0] for r in rows):.3f}-{max(r[0] for r in rows):.3f}) | '
              + ', '.join(f'{n} {p}' for p, n in sorted(places.items())) + ' |')
if state:
    print('\nMPI state: the C pingpong alone, median one-way µs (median over runs of one placement)\n')
    variants = sorted({k[1] for k in state if k[1] != 'plain'})
    print('| MPI | placement | size (B) | plain | ' + ' | '.join(f'{v} (÷ plain)' for v in variants) + ' |')
    print('|---|---|---:|---:|' + '---:|' * len(variants))
    for mpi in sorted({k[0] for k in state}):
        for where in ('near', 'far'):
            for size in sorted({k[2] for k in state if k[0] == mpi and k[3] == where}):
                plain = state.get((mpi, 'plain', size, where))
                if not plain:
                    continue
                base = statistics.median(plain)
                cells = []
                for v in variants:
                    runs = state.get((mpi, v, size, where))
                    cells.append(f'{statistics.median(runs):.3f} ({statistics.median(runs) / base:.2f}, {len(runs)} runs)' if runs else '–')
                print(f'| {mpi} | {where} | {size} | {base:.3f} ({len(plain)} runs) | ' + ' | '.join(cells) + ' |')
