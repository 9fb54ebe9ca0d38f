#!/usr/bin/env python3
"""Tables of tools/bench/mpi-provider-vs-c.sh's logs: per MPI, the mpi provider's median one-way
latency (ping-pong) and per-operation median (collectives, max over ranks) beside the same MPI's C
program, medians over repetitions, and the ratio Java / C.
Usage: python3 tools/bench/summarize-mpi-provider.py RESULTS_DIR"""
import collections
import glob
import re
import statistics
import sys

out_dir = sys.argv[1]
pp = collections.defaultdict(lambda: collections.defaultdict(list))
coll = collections.defaultdict(lambda: collections.defaultdict(list))
probes = []
for path in sorted(glob.glob(out_dir + '/*.log')):
    name = path.split('/')[-1].rsplit('.', 2)[0]
    text = open(path).read()
    probes += [float(x) for x in re.findall(r'(?:before|after)_ns=([\d.]+)', text)]
    for m in re.finditer(r'PP size=(\d+) iters=\d+ med_us=([\d.]+) p99_us=([\d.]+)(?: min_us=[\d.]+)? mbps=([\d.]+)', text):
        pp[name][int(m.group(1))].append(float(m.group(2)))
    for m in re.finditer(r'COLL op=(\w+) bytes=(\d+) np=(\d+) iters=\d+ med_us=([\d.]+)', text):
        coll[name][(m.group(1), int(m.group(2)), int(m.group(3)))].append(float(m.group(4)))

def cell(values):
    return f'{statistics.median(values):.3f}' if values else '–'

for mpi in sorted({n.rsplit('-', 1)[1] for n in pp if n.startswith('pingpong-')}):
    java, c = pp.get(f'pingpong-java-{mpi}', {}), pp.get(f'pingpong-c-{mpi}', {})
    print(f'\nping-pong, {mpi}: median one-way µs (median over runs), Java = mpi provider\n')
    print('| size | Java µs | C µs | Java / C | runs |')
    print('|---:|---:|---:|---:|---:|')
    for s in sorted(set(java) | set(c)):
        ratio = statistics.median(java[s]) / statistics.median(c[s]) if java.get(s) and c.get(s) and statistics.median(c[s]) > 0 else None
        print(f"| {s} | {cell(java.get(s))} | {cell(c.get(s))} | {f'{ratio:.2f}' if ratio else '–'} | {len(java.get(s, []))}/{len(c.get(s, []))} |")
for name in sorted(n for n in coll if n.startswith('collectives-java-')):
    mpi_np = name[len('collectives-java-'):]
    java, c = coll[name], coll.get('collectives-c-' + mpi_np, {})
    # C in the provider's library state (C_STATES=provider): Java against it is the Java layer alone
    c_provider = coll.get('collectives-cprovider-' + mpi_np)
    print(f'\ncollectives, {mpi_np.replace("-", " np=")}: max over ranks of each rank\'s median µs\n')
    if c_provider is None:
        print('| op | bytes | Java µs | C µs | Java / C |')
        print('|---|---:|---:|---:|---:|')
    else:
        print('| op | bytes | Java µs | C µs | Java / C | C, provider state µs | Java / C provider state |')
        print('|---|---:|---:|---:|---:|---:|---:|')
    for key in sorted(set(java) | set(c) | set(c_provider or {})):
        ratio = statistics.median(java[key]) / statistics.median(c[key]) if java.get(key) and c.get(key) else None
        line = f"| {key[0]} | {key[1]} | {cell(java.get(key))} | {cell(c.get(key))} | {f'{ratio:.2f}' if ratio else '–'} |"
        if c_provider is not None:
            alone = statistics.median(java[key]) / statistics.median(c_provider[key]) if java.get(key) and c_provider.get(key) else None
            line += f" {cell(c_provider.get(key))} | {f'{alone:.2f}' if alone else '–'} |"
        print(line)
def med(runs, key):
    values = runs.get(key)
    return statistics.median(values) if values else None

def ratio(a, b):
    return f'{a / b:.2f}' if a and b else '–'

if 'pingpong-java-hybridintra' in pp:
    mailbox, intra = pp.get('pingpong-java-mailbox', {}), pp['pingpong-java-hybridintra']
    mailbox4 = pp.get('pingpong-java-mailbox4', {})  # a pair of a 4-process mailbox job: 4 ranks on the cores, as hybrid's
    tcp, inter = pp.get('pingpong-java-mpitcp', {}), pp.get('pingpong-java-hybridinter', {})
    print('\nhybrid, 4 ranks as 2 pretend hosts x 2: median one-way µs (median over runs)\n')
    print('| size | mailbox (2 processes) | mailbox (pair of 4) | hybrid, same host | ratio to 2 | ratio to pair of 4 '
          '| mpi over TCP (2 processes) | hybrid, across hosts | ratio |')
    print('|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for s in sorted(set(intra) | set(inter)):
        a, a4, b, c, d = med(mailbox, s), med(mailbox4, s), med(intra, s), med(tcp, s), med(inter, s)
        print(f"| {s} | {cell(mailbox.get(s))} | {cell(mailbox4.get(s))} | {cell(intra.get(s))} | {ratio(b, a)} | {ratio(b, a4)} "
              f"| {cell(tcp.get(s))} | {cell(inter.get(s))} | {ratio(d, c)} |")
if 'collectives-twolevel-4' in coll:
    two, flat = coll['collectives-twolevel-4'], coll.get('collectives-flat-4', {})
    print('\ncollectives, 4 ranks as 2 pretend hosts x 2: max over ranks of each rank\'s median µs\n')
    print('| op | bytes | two-level (hybrid) | flat MPI over TCP (mpi) | two-level / flat |')
    print('|---|---:|---:|---:|---:|')
    for key in sorted(set(two) | set(flat)):
        print(f"| {key[0]} | {key[1]} | {cell(two.get(key))} | {cell(flat.get(key))} | {ratio(med(two, key), med(flat, key))} |")
if probes:
    print(f'\ncache-line probe: {min(probes):.0f}-{max(probes):.0f} ns')
