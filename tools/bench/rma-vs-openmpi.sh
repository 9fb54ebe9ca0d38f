#!/usr/bin/env bash
# `lockstep bench rma` beside the same program on Open MPI (bench/peers/mpi/rma.c), interleaved, NP processes (2, bound to
# cores; or 4, unbound and oversubscribed on a 2-core machine, the other ranks taking part in fences and barriers): put and get of 8 B and 1 MiB under fence and under lock, and loads and stores through a shared window against
# plain memory. Compiles the peer with Open MPI's mpicc; needs the tools module packaged
# (mvn -q -DskipTests package -pl tools -am). Prints the table of tools/bench/summarize-rma.py: each row's median over
# the runs, every run, and the ratio (for mode plain, Lockstep's shared row over its plain row is the ratio that counts).
# Usage: NP=2 REPS=3 ITERS=1000 OUT=/tmp/rma flock /tmp/lockstep-bench.lock bash tools/bench/rma-vs-openmpi.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
reps=${REPS:-3}
iters=${ITERS:-1000}
np=${NP:-2}
if [ "$np" = 2 ]; then ours_bind=(--bind-to-core); peer_bind=(--bind-to core); else ours_bind=(); peer_bind=(--oversubscribe --bind-to none); fi
out=${OUT:-/tmp/rma-vs-openmpi-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
peer="$out/rma.openmpi"
mpicc.openmpi -O2 -o "$peer" "$root/bench/peers/mpi/rma.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for rep in $(seq 1 "$reps"); do
    "$root/lockstep" bench rma --processes "$np" "${ours_bind[@]}" --iterations "$iters" | grep -o "RMA .*" > "$out/lockstep-$np-$rep.txt"
    mpirun.openmpi -np "$np" "${peer_bind[@]}" "$peer" "$iters" | grep -o "RMA .*" > "$out/openmpi-$np-$rep.txt"
done
python3 "$root/tools/bench/summarize-rma.py" "$out"
