#!/usr/bin/env bash
# `lockstep bench halo` beside the same program on Open MPI (bench/peers/mpi/halo.c), interleaved:
# 2 processes bound to cores, and 4 processes on this machine (oversubscribed on 2 cores, for both).
# Compiles the peer itself with Open MPI's mpicc (variants vector, persistent, and neighbor: a neighbourhood alltoall over
# a Cartesian communicator); needs the tools module packaged (mvn -q -DskipTests package -pl tools -am). Prints the
# table of tools/bench/summarize-halo.py: each row's median over the runs, every run, and the ratio.
# Usage: REPS=3 SIZES=64,256,1024 OUT=/tmp/halo flock /tmp/lockstep-bench.lock bash tools/bench/halo-vs-openmpi.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
reps=${REPS:-3}
sizes=${SIZES:-64,256,1024}
budget=${BUDGET:-0.5}
out=${OUT:-/tmp/halo-vs-openmpi-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
peer="$out/halo.openmpi"
mpicc.openmpi -O2 -o "$peer" "$root/bench/peers/mpi/halo.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for rep in $(seq 1 "$reps"); do
    "$root/lockstep" bench halo --processes 2 --bind-to-core --sizes "$sizes" --budget "$budget" | grep -o "HALO .*" > "$out/lockstep-2-$rep.txt"
    mpirun.openmpi -np 2 --bind-to core "$peer" "$sizes" "$budget" | grep -o "HALO .*" > "$out/openmpi-2-$rep.txt"
    "$root/lockstep" bench halo --processes 4 --sizes "$sizes" --budget "$budget" | grep -o "HALO .*" > "$out/lockstep-4-$rep.txt"
    mpirun.openmpi -np 4 --oversubscribe "$peer" "$sizes" "$budget" | grep -o "HALO .*" > "$out/openmpi-4-$rep.txt"
done
python3 "$root/tools/bench/summarize-halo.py" "$out"
