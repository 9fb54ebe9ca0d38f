#!/usr/bin/env python3
"""Sums a timeline.py file of one `lockstep embsp -- sort` run into its three phases: A (from the first sample above
100 % user CPU, i.e. after any kept-disk fill, to the last such sample before the exchange), B + exchange (the small
collectives and the keys' Alltoallv, up to the last sample reading and writing > 250 MB/s each), C (the final sort and
the check, up to the last sample above 50 % user). Prints each phase's seconds, CPU-seconds (user + system) and their
share of one CPU, I/O-wait seconds and GB read and written.
    python3 impl-em-bsp/bench/phases.py OUT/timeline-embsp-*.txt"""
import re
import sys


def phases(path):
    rows = []
    for line in open(path):
        sample = {k: float(v) for k, v in re.findall(r'(\w+)=([\d.]+)', line)}
        rows.append(sample)
    start = next(i for i, r in enumerate(rows) if r["user"] > 100)
    end = max(i for i, r in enumerate(rows) if r["user"] > 50)
    both = [i for i, r in enumerate(rows) if r["readMB"] > 250 and r["writeMB"] > 250 and i > start]
    x0, x1 = (both[0], both[-1]) if both else (start, start)
    a_end = max((i for i in range(start, x0 + 1) if rows[i]["user"] >= 100), default=start)
    out = []
    for name, lo, hi in (("A", start, a_end), ("B+exchange", a_end + 1, x1), ("C", x1 + 1, end)):
        seg = rows[lo:hi + 1]
        seconds = 0.5 * len(seg)
        cpu = sum(r["user"] + r["sys"] for r in seg) * 0.5 / 100
        iowait = sum(r["iow"] for r in seg) * 0.5 / 100
        read = sum(r["readMB"] for r in seg) * 0.5 / 1000
        written = sum(r["writeMB"] for r in seg) * 0.5 / 1000
        share = 100 * cpu / seconds if seconds else 0
        out.append(f"{name} {seconds:.1f} s cpu={cpu:.1f} s ({share:.0f} %) iowait={iowait:.1f} s "
                   f"read={read:.1f} GB written={written:.1f} GB")
    return " | ".join(out)


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(p.rsplit("/", 1)[-1], phases(p))
