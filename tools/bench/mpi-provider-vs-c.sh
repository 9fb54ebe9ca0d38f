#!/usr/bin/env bash
# The mpi provider (Lockstep's API over native MPI through FFM) beside the same MPI's C programs
# (bench/peers/mpi/pingpong.c and collectives.c), interleaved, for Open MPI and for MPICH: the cost of
# the Java layer. Each ping-pong pair is bracketed by the cache-line probe. Needs the peers built
# (bash bench/peers/setup.sh hw mpi) and the tools module (mvn -q -DskipTests package).
# C_STATES picks the C collectives' sides: plain (MPI_Init, MPI_COMM_WORLD, the library's defaults) and
# provider (collectives.c's COLLECTIVES_STATE=provider, and on Open MPI the btl flags the provider sets
# before MPI_Init, read from OpenMpiAbi.settingsBeforeInit): Java against provider is the Java layer alone.
# ROWS picks some of pingpong coll2 coll4.
# Usage: WRAP=quiet REPS=3 MPIS="openmpi mpich" OUT=/tmp/mpi-vs-c bash tools/bench/mpi-provider-vs-c.sh
#        python3 tools/bench/summarize-mpi-provider.py OUT
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
peers=${PEERS_BUILD:-/tmp/lockstep-peers}
reps=${REPS:-3}
mpis=${MPIS:-openmpi mpich}
sizes=${SIZES:-0,8,64,512,4k,32k,256k,1m,4m}
c_states=${C_STATES:-plain}
rows=" ${ROWS:-pingpong coll2 coll4} "
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
# The provider's Open MPI settings, from the one place that holds them (as NAME=VALUE words)
provider_settings=$(grep -o '"OMPI_MCA_[a-z_]*", "[^"]*"' "$root/impl-mpi/src/main/java/org/lockstep/mpi/abi/OpenMpiAbi.java" \
    | sed 's/", "/=/; s/"//g' | tr '\n' ' ')
[ -n "$provider_settings" ] || { echo "mpi-provider-vs-c.sh: no OMPI_MCA_ settings found in OpenMpiAbi.java" >&2; exit 2; }
c_collectives() { # mpi np state: the C collectives in that state
    local mpi=$1 np=$2 state=$3
    if [ "$state" = provider ]; then
        if [ "$mpi" = openmpi ]; then  # mpirun passes OMPI_MCA_* from its environment on to the ranks
            # shellcheck disable=SC2086 # one word per setting
            env $provider_settings COLLECTIVES_STATE=provider bash -c 'launch "$@"' launch "$mpi" "$np" \
                -x COLLECTIVES_STATE "$peers/collectives.$mpi"
        else
            COLLECTIVES_STATE=provider launch "$mpi" "$np" -genvlist COLLECTIVES_STATE "$peers/collectives.$mpi"
        fi
    else
        launch "$mpi" "$np" "$peers/collectives.$mpi"
    fi
}
export -f probe one launch c_collectives
export provider_settings
export peers
run() { # name command...: one run, inside WRAP's hold if set (WRAP=quiet on a shared machine: one run at a time, not the series)
    local name=$1; shift
    ${WRAP:-} bash -c 'one "$@"' one "$out/$name.$rep.log" "$@"
}
for rep in $(seq 1 "$reps"); do
    for mpi in $mpis; do
        if [[ $rows == *" pingpong "* ]]; then
            run "pingpong-c-$mpi" launch "$mpi" 2 "$peers/pingpong.$mpi"
            run "pingpong-java-$mpi" launch "$mpi" 2 "$root/lockstep" bench pingpong --provider mpi --sizes="$sizes" --iterations=20000
        fi
        for np in 2 4; do
            [[ $rows == *" coll$np "* ]] || continue
            for state in $c_states; do
                name=collectives-c-$mpi-$np; [ "$state" = plain ] || name=collectives-c$state-$mpi-$np
                run "$name" c_collectives "$mpi" "$np" "$state"
            done
            run "collectives-java-$mpi-$np" launch "$mpi" "$np" "$root/lockstep" bench collectives --provider mpi
        done
    done
done
echo "$out"
