#!/usr/bin/env python3
"""Side-by-side table of rma-vs-openmpi.sh's runs: per (np, mode, op, bytes), the median over runs of Lockstep's and
Open MPI's median time, every run in brackets, and the ratio of the medians (with a "base" side, BASE_ROOT, its column
and this checkout's time over base's); then each side's shared/plain ratio, and every run's probe readings and load."""
import sys

import side_by_side


def key_of(f):
    if "mode" in f:
        return (int(f["np"]), f["mode"], f["op"], int(f["bytes"])), float(f["med_us"])
    return None


def main(out):
    runs = side_by_side.collect(out, key_of)
    side_by_side.table(runs, ["np", "mode", "op", "bytes"], lambda k: k)
    for who, med in side_by_side.medians(runs).items():
        for (np_, mode, op, size), value in sorted(med.items()):
            plain = med.get((np_, "plain", op, size))
            if mode == "shared" and plain:
                print(f"{who} np={np_}: shared-window {op} / plain {op} = {value / plain:.2f}")
    side_by_side.like_placed(out, key_of, ["np", "mode", "op", "bytes"], lambda k: k)
    side_by_side.probes(out)


if __name__ == "__main__":
    main(sys.argv[1])
