#!/usr/bin/env bash
# `lockstep bench rma` beside the same program on Open MPI (bench/peers/mpi/rma.c), interleaved, 2 processes bound to
# cores: put and get of 8 B and 1 MiB under fence and under lock, and loads and stores through a shared window against
# plain memory. Compiles the peer with Open MPI's mpicc; needs the tools module packaged
# (mvn -q -DskipTests package -pl tools -am). Prints the table of tools/bench/summarize-rma.py: each row's median over
# the runs, every run, and the ratio (for mode plain, Lockstep's shared row over its plain row is the ratio that counts).
# Usage: REPS=3 ITERS=1000 OUT=/tmp/rma flock /tmp/lockstep-bench.lock bash tools/bench/rma-vs-openmpi.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
reps=${REPS:-3}
iters=${ITERS:-1000}
out=${OUT:-/tmp/rma-vs-openmpi-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
peer="$out/rma.openmpi"
mpicc.openmpi -O2 -o "$peer" "$root/bench/peers/mpi/rma.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for rep in $(seq 1 "$reps"); do
    "$root/lockstep" bench rma --processes 2 --bind-to-core --iterations "$iters" | grep -o "RMA .*" > "$out/lockstep-2-$rep.txt"
    mpirun.openmpi -np 2 --bind-to core "$peer" "$iters" | grep -o "RMA .*" > "$out/openmpi-2-$rep.txt"
done
python3 "$root/tools/bench/summarize-rma.py" "$out"
