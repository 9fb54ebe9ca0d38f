#!/usr/bin/env python3
"""Side-by-side table of rma-vs-openmpi.sh's runs: per (np, mode, op, bytes), the median over runs of Lockstep's and
Open MPI's median time, every run in brackets, and the ratio of the medians; then each side's shared/plain ratio."""
import glob
import os
import re
import statistics
import sys


def rows(path):
    found = {}
    for line in open(path):
        f = dict(re.findall(r"(\w+)=([\w.]+)", line))
        if "mode" in f:
            found[(int(f["np"]), f["mode"], f["op"], int(f["bytes"]))] = float(f["med_us"])
    return found


def main(out):
    runs = {"lockstep": {}, "openmpi": {}}
    for who in runs:
        for path in sorted(glob.glob(os.path.join(out, who + "-*.txt"))):
            for key, value in rows(path).items():
                runs[who].setdefault(key, []).append(value)
    med = {who: {k: statistics.median(v) for k, v in r.items()} for who, r in runs.items()}
    print("| np | mode | op | bytes | Lockstep µs (runs) | Open MPI µs (runs) | ratio |")
    print("|---|---|---|---:|---|---|---:|")
    for key in sorted(set(runs["lockstep"]) | set(runs["openmpi"])):
        ours, theirs = runs["lockstep"].get(key, []), runs["openmpi"].get(key, [])
        mo, mt = med["lockstep"].get(key, float("nan")), med["openmpi"].get(key, float("nan"))
        np_, mode, op, size = key
        print(f"| {np_} | {mode} | {op} | {size} | {mo:.3g} ({', '.join(f'{v:.3g}' for v in ours)}) | "
              f"{mt:.3g} ({', '.join(f'{v:.3g}' for v in theirs)}) | {mo / mt:.2f} |")
    for who in med:
        for (np_, mode, op, size), value in sorted(med[who].items()):
            plain = med[who].get((np_, "plain", op, size))
            if mode == "shared" and plain:
                print(f"{who}: shared-window {op} / plain {op} = {value / plain:.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
