#!/usr/bin/env python3
"""Time from `kill -STOP` of one rank to PROC_FAILED on its peers, with the launcher on this host.

Runs `./lockstep run -n 3` of the test program `wait-on-rank-1` (tools/target/test-classes; build
with `mvn -q -DskipTests package`), stops rank 1 once every rank holds, and reads the moment each
survivor saw it fail (System.nanoTime, CLOCK_MONOTONIC like time.monotonic_ns). Prints one line per
trial and the detection beyond the lease: median and maximum over trials and survivors.

    python3 tools/bench/stop-detection.py [--trials 5] [--lease-ms 2000]
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def trial(lease_ms):
    command = [os.path.join(ROOT, "lockstep"), "run", "-n", "3", "--grace", "2",
               "-o", "lockstep.mailbox.livenessLeaseMillis=%d" % lease_ms,
               "--jvm-option=-Xms64m", "--jvm-option=-Xmx64m",
               "-cp", os.path.join(ROOT, "tools", "target", "test-classes"),
               "org.lockstep.launchtest.ReliabilityPrograms", "wait-on-rank-1"]
    job = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    holding = {}
    seen = {}
    stopped_at = None
    for line in job.stdout:
        m = re.search(r"\[(\d)\] rank \d pid (\d+) holding", line)
        if m:
            holding[int(m.group(1))] = int(m.group(2))
            if len(holding) == 3:
                stopped_at = time.monotonic_ns()
                os.kill(holding[1], signal.SIGSTOP)
        m = re.search(r"\[(\d)\] rank \d saw rank 1 fail at (\d+)", line)
        if m:
            seen[int(m.group(1))] = int(m.group(2))
    job.wait()
    if stopped_at is None or len(seen) != 2:
        raise SystemExit("trial failed: holding=%s seen=%s" % (holding, seen))
    return [(t - stopped_at) / 1e6 for t in seen.values()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--lease-ms", type=int, default=2000)
    args = parser.parse_args()
    beyond = []
    for n in range(args.trials):
        ms = trial(args.lease_ms)
        beyond += [m - args.lease_ms for m in ms]
        print("trial %d: survivors saw rank 1 fail %s ms after SIGSTOP (lease %d ms)"
              % (n + 1, ", ".join("%.0f" % m for m in sorted(ms)), args.lease_ms), flush=True)
    print("beyond the lease: median %.0f ms, max %.0f ms over %d trials"
          % (statistics.median(beyond), max(beyond), args.trials))


if __name__ == "__main__":
    sys.exit(main())
