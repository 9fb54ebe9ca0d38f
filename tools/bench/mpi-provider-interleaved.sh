#!/usr/bin/env bash
# The mpi provider's Java layer against C on the same MPI, measured so that the host's moving of the two
# vCPUs cancels out, in two parts:
#  - java: bench/peers/mpi/InterleavedPingPong.java, blocks of round trips through Lockstep's API and
#    through pingpong.c's loop (round-trips.c, called through FFM) alternating in the same job: same
#    processes, MPI state, buffers and placement; its ratio is the Java layer alone. At the provider's
#    default thread level (multiple) and at lockstep.mpi.threads=serialized; TRUNCATIONS="keep mpi" adds
#    runs with lockstep.mpi.truncation=mpi (receives posted, not probed first, on MPICH).
#  - state: the peers' C pingpong alone, plain (MPI_Init, MPI_COMM_WORLD) and in the state the provider
#    runs the library in (PINGPONG_STATE=multiple, dup, provider = both); what that state costs C itself.
# Every run is bracketed by the cache-line probe; compare near runs with near. Needs the peers built
# (bash bench/peers/setup.sh hw mpi), the tools module (mvn -q -DskipTests package) and JDK 25 (JAVA_HOME or PATH).
# Usage: WRAP=quiet REPS=3 MPIS="openmpi mpich" OUT=/tmp/mpi-interleaved bash tools/bench/mpi-provider-interleaved.sh
#        python3 tools/bench/summarize-mpi-interleaved.py OUT
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
peers=${PEERS_BUILD:-/tmp/lockstep-peers}
reps=${REPS:-3}
mpis=${MPIS:-openmpi mpich}
levels=${LEVELS:-multiple serialized}
truncations=${TRUNCATIONS:-keep}
states=${STATES:-plain multiple dup provider}
sizes=${SIZES:-8,64,4096,1048576}
blocks=${BLOCKS:-30}
out=${OUT:-/tmp/mpi-interleaved-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out/classes"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for mpi in $mpis; do
    [ -f "$peers/libround-trips.$mpi.so" ] || { echo "no $peers/libround-trips.$mpi.so: bash bench/peers/setup.sh mpi" >&2; exit 2; }
done
classpath=$("$root/lockstep" classpath)
"${JAVA_HOME:+$JAVA_HOME/bin/}javac" -nowarn -cp "$classpath" -d "$out/classes" "$root/bench/peers/mpi/InterleavedPingPong.java"
. "$root/tools/bench/probed-runs.sh"  # probe, one
launch() { # mpi command...: two ranks, one a core
    local mpi=$1; shift
    case $mpi in
        openmpi) mpirun.openmpi -np 2 --bind-to core -x PINGPONG_STATE "$@" ;;
        mpich) mpirun.mpich -np 2 -bind-to core -genvlist PINGPONG_STATE "$@" ;;
    esac
}
export -f probe one launch
export peers
run() { # name command...: one run, inside WRAP's hold if set (WRAP=quiet on a shared machine: one run at a time)
    local name=$1; shift
    ${WRAP:-} bash -c 'one "$@"' one "$out/$name.$rep.log" "$@"
}
for rep in $(seq 1 "$reps"); do
    for mpi in $mpis; do
        export PINGPONG_STATE=plain  # passed on by launch; the Java program does not read it
        for level in $levels; do
            for truncation in $truncations; do
                suffix=; [ "$truncation" = keep ] || suffix=-truncation-$truncation
                run "java-$mpi-$level$suffix" launch "$mpi" \
                    "${JAVA_HOME:+$JAVA_HOME/bin/}java" -Xms1g -Xmx1g -XX:+AlwaysPreTouch --enable-native-access=ALL-UNNAMED \
                    -Dlockstep.provider=mpi -Dlockstep.mpi.threads="$level" -Dlockstep.mpi.truncation="$truncation" \
                    -cp "$classpath:$out/classes" InterleavedPingPong "$peers/libround-trips.$mpi.so" "$sizes" 2000 "$blocks" 5
            done
        done
        for state in $states; do
            export PINGPONG_STATE=$state
            run "c-$mpi-$state" launch "$mpi" "$peers/pingpong.$mpi"
        done
    done
done
echo "$out"
