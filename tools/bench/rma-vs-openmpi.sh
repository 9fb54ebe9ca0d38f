#!/usr/bin/env bash
# `lockstep bench rma` beside the same program on Open MPI (bench/peers/mpi/rma.c), interleaved, for each process count
# of NPS (2, bound to cores; 4, unbound and oversubscribed on a 2-core machine, the other ranks taking part in fences
# and barriers): put and get of 8 B and 1 MiB under fence and under lock, and loads and stores through a shared window
# against plain memory. Compiles the peer with Open MPI's mpicc; needs the tools module packaged
# (mvn -q -DskipTests package -pl tools -am). Each run is bracketed by the cache-line probe; WRAP (e.g. quiet) holds the
# machine for one run, one side of one process count, never the series. FIRST_REP numbers the repetitions from there (to add runs to an OUT). BASE_ROOT=DIR (another checkout, built) adds
# its `lockstep` as a third side, "base", before this checkout's on odd repetitions and after on even ones. Prints the
# table of tools/bench/summarize-rma.py: each row's median over the runs, every run, and the ratio (for mode plain,
# Lockstep's shared row over its plain row is the ratio that counts), and the probe readings.
# Usage: WRAP=quiet NPS="2 4" REPS=3 ITERS=1000 OUT=/tmp/rma bash tools/bench/rma-vs-openmpi.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
reps=${REPS:-3}
iters=${ITERS:-1000}
nps=${NPS:-${NP:-2}}
out=${OUT:-/tmp/rma-vs-openmpi-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
peer="$out/rma.openmpi"
mpicc.openmpi -O2 -o "$peer" "$root/bench/peers/mpi/rma.c"
LINES='\(RMA\|WARMUP\)'
# shellcheck source=side-by-side.sh
. "$root/tools/bench/side-by-side.sh"
theirs() { # np file
    if [ "$1" = 2 ]; then run "$2" mpirun.openmpi -np 2 --bind-to core "$peer" "$iters"
    else run "$2" mpirun.openmpi -np "$1" --oversubscribe --bind-to none "$peer" "$iters"; fi
}
series bench rma --iterations "$iters"
python3 "$root/tools/bench/summarize-rma.py" "$out"
