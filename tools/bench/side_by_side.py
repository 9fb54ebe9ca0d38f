"""What summarize-halo.py and summarize-rma.py share: the runs of tools/bench/side-by-side.sh (files SIDE-NP-REP.txt of
sides lockstep, base and openmpi), one table row per key with each side's median over its runs, every run in brackets,
Lockstep / Open MPI and, with a base side, Lockstep / base; then every run's probe readings and load."""
import glob
import os
import re
import statistics

SIDES = ("lockstep", "base", "openmpi")


def collect(out, key_of):
    """{side: {key: [value per run]}}, key_of(fields) giving (key, value) or None for a line's fields."""
    runs = {who: {} for who in SIDES}
    for who in SIDES:
        for path in sorted(glob.glob(os.path.join(out, who + "-*.txt"))):
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


def probes(out):
    print()
    for path in sorted(glob.glob(os.path.join(out, "*-*-*.txt"))):
        for line in open(path):
            if line.startswith(("PROBE", "FAILED", "WARMUP")):
                print(f"{os.path.basename(path)}: {line.strip()}")
