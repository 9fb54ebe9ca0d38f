#!/usr/bin/env bash
# `lockstep bench collectives` beside Open MPI running bench/peers/mpi/collectives.c, interleaved:
# 2 processes bound to cores, and 4 processes on this 2-core machine (oversubscribed for both). Needs the peers
# built (bash bench/peers/setup.sh mpi) and the tools module (mvn -q -DskipTests package). Prints the table of
# tools/bench/summarize-collectives.py: each row's median over the runs, every run, and the ratio.
# Usage: REPS=3 OUT=/tmp/coll bash tools/bench/collectives-vs-openmpi.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
peers=${PEERS_BUILD:-/tmp/lockstep-peers}
reps=${REPS:-3}
out=${OUT:-/tmp/collectives-vs-openmpi-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for rep in $(seq 1 "$reps"); do
    "$root/lockstep" bench collectives --processes 2 --bind-to-core | grep -o "COLL .*" > "$out/lockstep-2-$rep.txt"
    mpirun.openmpi -np 2 --bind-to core "$peers/collectives.openmpi" | grep -o "COLL .*" > "$out/openmpi-2-$rep.txt"
    "$root/lockstep" bench collectives --processes 4 | grep -o "COLL .*" > "$out/lockstep-4-$rep.txt"
    mpirun.openmpi -np 4 --oversubscribe "$peers/collectives.openmpi" | grep -o "COLL .*" > "$out/openmpi-4-$rep.txt"
done
python3 "$root/tools/bench/summarize-collectives.py" "$out"
