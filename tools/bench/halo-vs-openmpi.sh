#!/usr/bin/env bash
# `lockstep bench halo` beside the same program on Open MPI (bench/peers/mpi/halo.c), interleaved:
# 2 processes bound to cores, and 4 processes on this machine (oversubscribed on 2 cores, for both).
# Compiles the peer itself with Open MPI's mpicc (variants vector, persistent, and neighbor: a neighbourhood alltoall over
# a Cartesian communicator); needs the tools module packaged (mvn -q -DskipTests package -pl tools -am). Each run is
# bracketed by the cache-line probe; WRAP (e.g. quiet) holds the machine for one run, one side of one process count,
# never the series. FIRST_REP numbers the repetitions from there (to add runs to an OUT). BASE_ROOT=DIR (another checkout, built) adds its `lockstep` as a third side, "base", run before
# this checkout's on odd repetitions and after on even ones. Prints the table of tools/bench/summarize-halo.py: each
# row's median over the runs, every run, the ratio, and the probe readings. VARIANTS (default vector,persistent,neighbor)
# picks the variants both sides time.
# Usage: WRAP=quiet REPS=3 SIZES=64,256,1024 NPS="2 4" OUT=/tmp/halo bash tools/bench/halo-vs-openmpi.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
reps=${REPS:-3}
sizes=${SIZES:-64,256,1024}
budget=${BUDGET:-0.5}
variants=${VARIANTS:-vector,persistent,neighbor}
nps=${NPS:-2 4}
out=${OUT:-/tmp/halo-vs-openmpi-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
peer="$out/halo.openmpi"
mpicc.openmpi -O2 -o "$peer" "$root/bench/peers/mpi/halo.c"
LINES='\(HALO\|WARMUP\)'
# shellcheck source=side-by-side.sh
. "$root/tools/bench/side-by-side.sh"
theirs() { # np file
    if [ "$1" = 2 ]; then run "$2" mpirun.openmpi -np 2 --bind-to core "$peer" "$sizes" "$budget" "$variants"
    else run "$2" mpirun.openmpi -np "$1" --oversubscribe "$peer" "$sizes" "$budget" "$variants"; fi
}
series bench halo --sizes "$sizes" --budget "$budget" --variants "$variants"
python3 "$root/tools/bench/summarize-halo.py" "$out"
