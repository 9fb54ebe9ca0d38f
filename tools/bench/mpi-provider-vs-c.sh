#!/usr/bin/env bash
# The mpi provider (Lockstep's API over native MPI through FFM) beside the same MPI's C programs
# (bench/peers/mpi/pingpong.c and collectives.c), interleaved, for Open MPI and for MPICH: the cost of
# the Java layer. Each ping-pong pair is bracketed by the cache-line probe. Needs the peers built
# (bash bench/peers/setup.sh hw mpi) and the tools module (mvn -q -DskipTests package).
# Usage: WRAP=quiet REPS=3 MPIS="openmpi mpich" OUT=/tmp/mpi-vs-c bash tools/bench/mpi-provider-vs-c.sh
#        python3 tools/bench/summarize-mpi-provider.py OUT
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
peers=${PEERS_BUILD:-/tmp/lockstep-peers}
reps=${REPS:-3}
mpis=${MPIS:-openmpi mpich}
sizes=${SIZES:-0,8,64,512,4k,32k,256k,1m,4m}
out=${OUT:-/tmp/mpi-provider-vs-c-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$root/tools/bench/probed-runs.sh"  # probe, one
launch() { # mpi np command...: the MPI's launcher, bound to cores when the ranks have one each
    local mpi=$1 np=$2; shift 2
    case $mpi in
        openmpi) if [ "$np" -le "$(nproc)" ]; then mpirun.openmpi -np "$np" --bind-to core "$@"
                 else mpirun.openmpi -np "$np" --oversubscribe "$@"; fi ;;
        mpich) if [ "$np" -le "$(nproc)" ]; then mpirun.mpich -np "$np" -bind-to core "$@"
               else mpirun.mpich -np "$np" "$@"; fi ;;
    esac
}
export -f probe one launch
export peers
run() { # name command...: one run, inside WRAP's hold if set (WRAP=quiet on a shared machine: one run at a time, not the series)
    local name=$1; shift
    ${WRAP:-} bash -c 'one "$@"' one "$out/$name.$rep.log" "$@"
}
for rep in $(seq 1 "$reps"); do
    for mpi in $mpis; do
        run "pingpong-c-$mpi" launch "$mpi" 2 "$peers/pingpong.$mpi"
        run "pingpong-java-$mpi" launch "$mpi" 2 "$root/lockstep" bench pingpong --provider mpi --sizes="$sizes" --iterations=20000
        for np in 2 4; do
            run "collectives-c-$mpi-$np" launch "$mpi" "$np" "$peers/collectives.$mpi"
            run "collectives-java-$mpi-$np" launch "$mpi" "$np" "$root/lockstep" bench collectives --provider mpi
        done
    done
done
echo "$out"
