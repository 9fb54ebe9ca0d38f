"""What summarize-halo.py and summarize-rma.py share: the runs of tools/bench/side-by-side.sh (files SIDE-NP-REP.txt of
sides lockstep, base and openmpi), one table row per key with each side's median over its runs, every run in brackets,
Lockstep / Open MPI and, with a base side, Lockstep / base; then every run's probe readings and load; and like_placed, the
same rows over the runs of one placement only (near at both probe readings, or far at both), near with near and far
with far."""
import glob
import os
import re
import statistics

SIDES = ("lockstep", "base", "openmpi")


# Cache-line round trip (ns) below which the probe reads the two vCPUs as near: 25-55 near, 150-250 far on the hosts so far.
NEAR_NS = float(os.environ.get("NEAR_NS", "100"))


def placement(path):
    """near or far if both of the run's probe readings say so, else moved (or unknown, without a PROBE line)."""
    for line in open(path):
        if line.startswith("PROBE"):
            f = dict(re.findall(r"(\w+)=([\w.]+)", line))
            near = [float(f[k]) < NEAR_NS for k in ("before_ns", "after_ns")]
            return "near" if all(near) else "far" if not any(near) else "moved"
    return "unknown"


def collect(out, key_of, where=None):
    """{side: {key: [value per run]}}, key_of(fields) giving (key, value) or None for a line's fields; where, if given,
    the placement the runs must have."""
    runs = {who: {} for who in SIDES}
    for who in SIDES:
        for path in sorted(glob.glob(os.path.join(out, who + "-*.txt"))):
            if where and placement(path) != where:
                continue
            for line in open(path):
                found = key_of(dict(re.findall(r"(\w+)=([\w.]+)", line)))
                if found:
                    runs[who].setdefault(found[0], []).append(found[1])
    return runs


def medians(runs):
    return {who: {k: statistics.median(v) for k, v in r.items()} for who, r in runs.items()}


def cell(values):
    if not values:
        return "–"
    return f"{statistics.median(values):.3g} ({', '.join(f'{v:.3g}' for v in values)})"


def table(runs, columns, describe):
    """Prints the table: columns names the key's columns, describe(key) gives their cells."""
    med = medians(runs)
    nan = float("nan")
    with_base = bool(runs["base"])
    print("| " + " | ".join(columns) + " | Lockstep µs (runs) |" + (" base µs (runs) |" if with_base else "")
          + " Open MPI µs (runs) | ratio |" + (" Lockstep / base |" if with_base else ""))
    print("|" + "---|" * len(columns) + "---|" + ("---|" if with_base else "") + "---|---:|" + ("---:|" if with_base else ""))
    for key in sorted(set().union(*runs.values())):
        line = "| " + " | ".join(str(c) for c in describe(key)) + f" | {cell(runs['lockstep'].get(key))} |"
        if with_base:
            line += f" {cell(runs['base'].get(key))} |"
        line += f" {cell(runs['openmpi'].get(key))} | {med['lockstep'].get(key, nan) / med['openmpi'].get(key, nan):.2f} |"
        if with_base:
            line += f" {med['lockstep'].get(key, nan) / med['base'].get(key, nan):.2f} |"
        print(line)


def like_placed(out, key_of, columns, describe):
    """The table of each placement of which both Lockstep and Open MPI have runs: near with near, far with far."""
    for where in ("near", "far"):
        runs = collect(out, key_of, where)
        runs["base"] = {}
        if runs["lockstep"] and runs["openmpi"]:
            print(f"\n{where} with {where} (both probe readings {'<' if where == 'near' else '>='} {NEAR_NS:g} ns):\n")
            table(runs, columns, describe)


def probes(out):
    print()
    for path in sorted(glob.glob(os.path.join(out, "*-*-*.txt"))):
        for line in open(path):
            if line.startswith(("PROBE", "FAILED", "WARMUP")):
                print(f"{os.path.basename(path)}: {line.strip()}")
