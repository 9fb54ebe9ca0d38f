#!/usr/bin/env python3
"""Side-by-side table of halo-vs-openmpi.sh's runs: per (np, variant, n), the median over runs of
Lockstep's and Open MPI's median exchange time, every run in brackets, and the ratio of the medians."""
import glob
import os
import re
import statistics
import sys


def rows(path):
    found = {}
    for line in open(path):
        f = dict(re.findall(r"(\w+)=([\w.]+)", line))
        if "variant" in f:
            found[(int(f["np"]), f["variant"], int(f["n"]))] = float(f["med_us"])
    return found


def main(out):
    runs = {"lockstep": {}, "openmpi": {}}
    for who in runs:
        for path in sorted(glob.glob(os.path.join(out, who + "-*.txt"))):
            for key, value in rows(path).items():
                runs[who].setdefault(key, []).append(value)
    print("| np | variant | n | column bytes | Lockstep µs (runs) | Open MPI µs (runs) | ratio |")
    print("|---|---|---:|---:|---|---|---:|")
    for key in sorted(set(runs["lockstep"]) | set(runs["openmpi"])):
        ours = runs["lockstep"].get(key, [])
        theirs = runs["openmpi"].get(key, [])
        mo = statistics.median(ours) if ours else float("nan")
        mt = statistics.median(theirs) if theirs else float("nan")
        np_, variant, n = key
        print(f"| {np_} | {variant} | {n} | {8 * n} | {mo:.3g} ({', '.join(f'{v:.3g}' for v in ours)}) | "
              f"{mt:.3g} ({', '.join(f'{v:.3g}' for v in theirs)}) | {mo / mt:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1])
