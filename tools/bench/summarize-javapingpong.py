#!/usr/bin/env python3
"""The table of tools/bench/javapingpong-vs-openmpi.sh: per size, the median over runs of each run's
median one-way time, for Lockstep's bindings and Open MPI's, with every run in brackets, MB/s and the
ratio Lockstep / Open MPI (below 1: Lockstep faster). Usage: summarize-javapingpong.py OUT_DIR"""
import glob
import os
import re
import statistics
import sys

LINE = re.compile(r"JPP mode=(\S+) size=(\d+) iters=\d+ med_us=([\d.]+) p99_us=([\d.]+) min_us=[\d.]+ mbps=([\d.]+)")


def runs(directory, name):
    found = {}
    probes = []
    loads = []
    for path in sorted(glob.glob(os.path.join(directory, name + ".*.log"))):
        with open(path) as f:
            for line in f:
                m = LINE.search(line)
                if m:
                    found.setdefault(int(m.group(2)), []).append(float(m.group(3)))
                p = re.search(r"PROBE before_ns=(\S+) after_ns=(\S+)", line)
                if p:
                    probes.append(p.group(1) + "/" + p.group(2))
                load = re.search(r"LOAD before=(\S+) \S+ \S+ after=(\S+)", line)
                if load:
                    loads.append(load.group(1) + "->" + load.group(2))
    return found, probes, loads


def main():
    directory = sys.argv[1]
    ours, our_probes, our_loads = runs(directory, "lockstep")
    theirs, their_probes, their_loads = runs(directory, "openmpi")
    run_file = os.path.join(directory, "run.txt")
    if os.path.exists(run_file):
        with open(run_file) as f:
            print(f.read().strip())
        print()
    print("| size | Lockstep med us (runs) | Open MPI Java med us (runs) | Lockstep MB/s | Open MPI MB/s | ratio |")
    print("|---:|---|---|---:|---:|---:|")
    for size in sorted(set(ours) | set(theirs)):
        a = ours.get(size, [])
        b = theirs.get(size, [])
        ma = statistics.median(a) if a else float("nan")
        mb = statistics.median(b) if b else float("nan")
        fmt = lambda xs: ", ".join("%.3f" % x for x in xs)
        mbps = lambda m: "%.0f" % (size / m) if size and m == m and m > 0 else "-"
        print("| %d | %.3f (%s) | %.3f (%s) | %s | %s | %.2f |" % (size, ma, fmt(a), mb, fmt(b), mbps(ma), mbps(mb), ma / mb if mb else float("nan")))
    print()
    print("probe ns before/after, Lockstep runs:", ", ".join(our_probes))
    print("probe ns before/after, Open MPI runs:", ", ".join(their_probes))
    print("1-min load before->after, Lockstep runs:", ", ".join(our_loads))
    print("1-min load before->after, Open MPI runs:", ", ".join(their_loads))


if __name__ == "__main__":
    main()
