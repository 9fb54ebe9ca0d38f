#!/usr/bin/env python3
"""Samples the machine every 0.5 s until killed: one line per sample with the CPU (in % of one CPU, so 200 = two cores
busy: steal, user, system, iowait) and one block device's traffic (MB/s read and written, requests and their mean KiB,
busy %, requests in flight), from /proc/stat and /proc/diskstats. Run it beside a measurement:
    python3 impl-em-bsp/bench/timeline.py vda OUT/timeline-RUN.txt & sampler=$!; …; kill $sampler
phases.py sums such a file into the sort's phases."""
import os
import sys
import time

DEVICE = sys.argv[1] if len(sys.argv) > 1 else "vda"
OUT = open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout
HZ = os.sysconf("SC_CLK_TCK")


def cpu():
    v = list(map(int, open("/proc/stat").readline().split()[1:]))
    return {"user": v[0] + v[1], "sys": v[2] + v[5] + v[6], "iow": v[4], "steal": v[7]}


def disk():
    for line in open("/proc/diskstats"):
        f = line.split()
        if f[2] == DEVICE:
            v = list(map(int, f[3:]))
            return {"rops": v[0], "rsec": v[2], "wops": v[4], "wsec": v[6], "inflight": v[8], "ticks": v[9]}
    raise SystemExit(f"timeline: no device {DEVICE} in /proc/diskstats")


def main():
    start = last = time.monotonic()
    c0, d0 = cpu(), disk()
    while True:
        time.sleep(0.5)
        now, c, d = time.monotonic(), cpu(), disk()
        dt = now - last
        pc = {k: round(100 * (c[k] - c0[k]) / HZ / dt) for k in c}
        reads, writes = d["rops"] - d0["rops"], d["wops"] - d0["wops"]
        rb, wb = (d["rsec"] - d0["rsec"]) * 512, (d["wsec"] - d0["wsec"]) * 512
        print(f'{now - start:.1f} steal={pc["steal"]} user={pc["user"]} sys={pc["sys"]} iow={pc["iow"]} '
              f'readMB={rb / 1e6 / dt:.0f} rops={reads} rKiB={rb / 1024 / reads if reads else 0:.0f} '
              f'writeMB={wb / 1e6 / dt:.0f} wops={writes} wKiB={wb / 1024 / writes if writes else 0:.0f} '
              f'busy={100 * (d["ticks"] - d0["ticks"]) / 1000 / dt:.0f} inflight={d["inflight"]}', file=OUT, flush=True)
        c0, d0, last = c, d, now


if __name__ == "__main__":
    main()
