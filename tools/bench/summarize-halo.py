#!/usr/bin/env python3
"""Side-by-side table of halo-vs-openmpi.sh's runs: per (np, variant, n), the median over runs of Lockstep's and
Open MPI's median exchange time, every run in brackets, and the ratio of the medians (with a "base" side, BASE_ROOT,
its column and this checkout's time over base's); then the rows near with near and far with far (runs of one placement
at both probe readings), and every run's probe readings (ns, before and after) and load."""
import sys

import side_by_side


def key_of(f):
    if "variant" in f:
        return (int(f["np"]), f["variant"], int(f["n"])), float(f["med_us"])
    return None


def main(out):
    runs = side_by_side.collect(out, key_of)
    side_by_side.table(runs, ["np", "variant", "n", "column bytes"], lambda k: (k[0], k[1], k[2], 8 * k[2]))
    side_by_side.like_placed(out, key_of, ["np", "variant", "n", "column bytes"], lambda k: (k[0], k[1], k[2], 8 * k[2]))
    side_by_side.probes(out)


if __name__ == "__main__":
    main(sys.argv[1])
