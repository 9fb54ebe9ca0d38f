#!/usr/bin/env python3
"""Table of collectives-vs-openmpi.sh's runs: per (np, op, bytes) the median over runs of each side's med_us
(itself the maximum over ranks of each rank's median call), every run, and Lockstep / Open MPI."""
import collections
import pathlib
import statistics
import sys

runs = collections.defaultdict(list)
for f in sorted(pathlib.Path(sys.argv[1]).glob("*-*-*.txt")):
    who, np, _ = f.stem.split("-")
    for line in f.read_text().splitlines():
        kv = dict(field.split("=") for field in line.split()[1:])
        runs[(int(np), kv["op"], int(kv["bytes"]), who)].append(float(kv["med_us"]))
order = ["barrier", "bcast", "allreduce", "alltoall"]
rows = sorted({k[:3] for k in runs}, key=lambda r: (r[0], order.index(r[1]), r[2]))
print("| np | op | bytes | Lockstep µs (runs) | Open MPI µs (runs) | ratio |")
print("|---|---|---:|---|---|---:|")
for np, op, size in rows:
    ours, theirs = runs[(np, op, size, "lockstep")], runs[(np, op, size, "openmpi")]
    if not ours or not theirs:
        continue
    a, b = statistics.median(ours), statistics.median(theirs)
    each = lambda xs: ", ".join(f"{x:.3g}" for x in sorted(xs))
    print(f"| {np} | {op} | {size} | {a:.3g} ({each(ours)}) | {b:.3g} ({each(theirs)}) | {a / b:.2f} |")
