#!/usr/bin/env python3
"""Table of tools/bench/transport-before-after.sh's runs: per row the medians over pairs of before and
after, and after/before pair by pair (median, min-max). A row is 'better' or 'worse' only when every pair
says so (latencies and times lower is better, msg/s higher); otherwise it is within the noise of the runs.
Where the runs were bracketed by the cache-line probe (pN-BENCH-SIDE.probe), a pair counts only where both
sides ran near (both readings under NEAR_NS) or both far, and the table has a row for each placement.
With --p99 the ping-pong and collectives rows get a p99 row each beside the median (the benches print both).
With --pooled a second table pools the runs by placement across pairs (every near run of a side against
every near run of the other, far with far), for rows where the host seldom gives a pair one placement; there a
row is better or worse in every run only when no run of one side reaches the other side's range.
Usage: python3 tools/bench/summarize-before-after.py [--p99] [--pooled] OUT"""
import collections
import glob
import re
import statistics
import sys

NEAR_NS = 80  # the probe reads 25-35 ns with the two vCPUs near, 150-170 ns far

rows = collections.OrderedDict()  # (bench, row) -> {pair: {side: value}}
higher_is_better = {}
placements = {}  # (bench, pair, side) -> 'near', 'far', 'moved' (the readings disagree) or 'unprobed'


def put(bench, row, pair, side, value, higher=False):
    rows.setdefault((bench, row), {}).setdefault(pair, {})[side] = value
    higher_is_better[(bench, row)] = higher


def placement(probe_file):
    try:
        readings = [float(r) for r in open(probe_file).read().split()]
    except (OSError, ValueError):
        return 'unprobed'
    if len(readings) != 2:
        return 'unprobed'
    near = [r < NEAR_NS for r in readings]
    return 'near' if all(near) else 'far' if not any(near) else 'moved'


def read(bench, pair, side, text, p99=False):
    for m in re.finditer(r'PP size=(\d+) iters=\d+ med_us=([\d.]+)(?: p99_us=([\d.]+))?', text):
        put(bench, '%s B median one-way us' % m[1], pair, side, float(m[2]))
        if p99 and m[3]:
            put(bench, '%s B p99 one-way us' % m[1], pair, side, float(m[3]))
    for m in re.finditer(r'COLL op=(\w+) bytes=(\d+) np=\d+ iters=\d+ med_us=([\d.]+)(?: p99_us=([\d.]+))?', text):
        put(bench, '%s %s B median us' % (m[1], m[2]), pair, side, float(m[3]))
        if p99 and m[4]:
            put(bench, '%s %s B p99 us' % (m[1], m[2]), pair, side, float(m[4]))
    for m in re.finditer(r'processes, (\d+) B, (receives posted ahead|one receive at a time)[^:]*: '
                         r'log off (\d+) msg/s, off indirect \d+ msg/s, log on (\d+) msg/s', text):
        kind = 'posted' if m[2].startswith('receives') else 'one at a time'
        put(bench, 'processes %s B %s, log off msg/s' % (m[1], kind), pair, side, float(m[3]), True)
        put(bench, 'processes %s B %s, log on msg/s' % (m[1], kind), pair, side, float(m[4]), True)
    m = re.search(r'cpu per 64-byte message[^:]*: log off (\d+) ns, log on (\d+) ns', text)
    if m:
        put(bench, 'threads: CPU per 64 B message, log off ns', pair, side, float(m[1]))
        put(bench, 'threads: CPU per 64 B message, log on ns', pair, side, float(m[2]))
    m = re.search(r'throughput 64-byte messages: log off (\d+) msg/s, log on (\d+) msg/s', text)
    if m:
        put(bench, 'threads: 64 B log off msg/s', pair, side, float(m[1]), True)
        put(bench, 'threads: 64 B log on msg/s', pair, side, float(m[2]), True)
    for m in re.finditer(r'checkpoint of (\d+ KiB) state: ([\d.]+) us', text):
        put(bench, 'checkpoint of %s state us' % m[1], pair, side, float(m[2]))
    m = re.search(r'restart with (\d+) messages to replay and \d+ KiB state: (\d+) us', text)
    if m:
        put(bench, 'restart replaying %s messages us' % m[1], pair, side, float(m[2]))
    for m in re.finditer(r'^(\d+ [KMG]iB)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s', text, re.M):
        for kind, value in zip(('none', 'independent', 'coordinated'), m.groups()[1:]):
            put(bench, 'ring of 4 threads, state %s, %s ms' % (m[1], kind), pair, side, float(value))
    m = re.search(r'restart to first message: one rank ([\d.]+) ms, global rollback ([\d.]+) ms', text)
    if m:
        put(bench, 'kill to first message, one rank ms', pair, side, float(m[1]))
        put(bench, 'kill to first message, global rollback ms', pair, side, float(m[2]))


def shown(v):
    return '%.3g' % v if v < 1e4 else '%.0f' % v


def paired(bench, pair):
    """The placement both sides of a pair ran on, or None (they differ, or the vCPUs moved during a run)."""
    before, after = placements[(bench, pair, 'before')], placements[(bench, pair, 'after')]
    return before if before == after and before != 'moved' else None


def main(out, p99=False, pooled=False):
    for name in sorted(glob.glob(out + '/p*-*-*.out')):
        m = re.match(r'.*/p(\d+)-(\w+)-(before|after)\.out$', name)
        if m:
            read(m[2], int(m[1]), m[3], open(name).read(), p99)
            placements[(m[2], int(m[1]), m[3])] = placement(name[:-len('.out')] + '.probe')
    print('| bench | row | placement | pairs | before (median) | after (median) | after/before (median of pairs) | min-max | |')
    print('|---|---|---|---:|---:|---:|---:|---:|---|')
    left_out = set()
    for (bench, row), pairs in rows.items():
        complete = [p for p in sorted(pairs) if {'before', 'after'} <= pairs[p].keys() and pairs[p]['before'] > 0]
        left_out.update((bench, p) for p in complete if paired(bench, p) is None)
        for where in ('near', 'far', 'unprobed'):
            both = [p for p in complete if paired(bench, p) == where]
            if both:
                line(bench, row, where, pairs, both)
    if left_out:
        print('\nLeft out (the two sides ran on different placements, or the vCPUs moved during a run): '
              + ', '.join('%s pair %d' % k for k in sorted(left_out)))
    if pooled:
        print('\nPooled by placement (runs of all pairs):\n')
        print('| bench | row | placement | runs before / after | before median (min-max) | after median (min-max) | after/before | |')
        print('|---|---|---|---:|---:|---:|---:|---|')
        for (bench, row), pairs in rows.items():
            for where in ('near', 'far'):
                b, a = ([v[side] for p, v in sorted(pairs.items()) if side in v and v[side] > 0
                         and placements[(bench, p, side)] == where] for side in ('before', 'after'))
                if b and a:
                    lower, higher = (b, a) if higher_is_better[(bench, row)] else (a, b)
                    verdict = ('better in every run' if max(lower) < min(higher) else
                               'worse in every run' if min(lower) > max(higher) else 'the ranges overlap')
                    print('| %s | %s | %s | %d / %d | %s (%s-%s) | %s (%s-%s) | %.2f | %s |' % (
                        bench, row, where, len(b), len(a), shown(statistics.median(b)), shown(min(b)), shown(max(b)),
                        shown(statistics.median(a)), shown(min(a)), shown(max(a)),
                        statistics.median(a) / statistics.median(b), verdict))

def line(bench, row, where, pairs, both):
    before = [pairs[p]['before'] for p in both]
    after = [pairs[p]['after'] for p in both]
    ratios = [a / b for a, b in zip(after, before)]
    worse = [(r < 1) if higher_is_better[(bench, row)] else (r > 1) for r in ratios]
    verdict = 'worse in every pair' if all(worse) else 'better in every pair' if not any(worse) else 'within noise'
    print('| %s | %s | %s | %d | %s | %s | %.2f | %.2f-%.2f | %s |' % (bench, row, where, len(both), shown(statistics.median(before)),
          shown(statistics.median(after)), statistics.median(ratios), min(ratios), max(ratios), verdict))


if __name__ == '__main__':
    arguments = [a for a in sys.argv[1:] if a not in ('--p99', '--pooled')]
    main(arguments[0] if arguments else '.', '--p99' in sys.argv[1:], '--pooled' in sys.argv[1:])
