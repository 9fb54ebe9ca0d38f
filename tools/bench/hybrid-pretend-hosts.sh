#!/usr/bin/env bash
# The hybrid provider with 4 ranks as 2 pretend hosts of 2 (lockstep.mpi.hostOf=2), Open MPI on TCP only
# (--mca btl self,tcp) so that traffic between the pretend hosts crosses the network stack: ping-pong of a
# pair on one host (ranks 0,1: the mailbox transport) and of a pair across hosts (ranks 0,2: MPI over TCP),
# beside the pure mailbox transport (2 processes) and the mpi provider over TCP (2 processes); then the
# collectives of the 4 ranks, two-level (hybrid) beside flat MPI over TCP (mpi). Interleaved; each run is
# bracketed by the cache-line probe. Needs the peers' probe (bash bench/peers/setup.sh hw) and the tools
# module (mvn -q -DskipTests package).
# Usage: WRAP=quiet REPS=3 OUT=/tmp/hybrid bash tools/bench/hybrid-pretend-hosts.sh; python3 tools/bench/summarize-mpi-provider.py OUT
#        ROWS="pingpong-java-mailbox pingpong-java-hybridintra" runs only those (names as below).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
peers=${PEERS_BUILD:-/tmp/lockstep-peers}
reps=${REPS:-3}
sizes=${SIZES:-8,4k,64k,1m}
out=${OUT:-/tmp/hybrid-pretend-hosts-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$root/tools/bench/probed-runs.sh"  # probe, one
# 4 ranks on this machine's 2 cores: bound round-robin (ranks 0 and 1, the same-host pair, on different cores), as the
# mailbox pair is bound (unbound, the pair's 8 B median was 1.17 us in a run near at both probes, bound 0.22)
tcp=(mpirun.openmpi --oversubscribe --bind-to core:overload-allowed --map-by core --mca btl self,tcp)
hybrid=(--provider hybrid -o lockstep.mpi.hostOf=2)
export -f probe one
export peers
run() { # name command...: one run, inside WRAP's hold if set (WRAP=quiet on a shared machine: one run at a time, not the series)
    local name=$1; shift
    case " ${ROWS:-$name} " in *" $name "*) ;; *) return 0 ;; esac  # ROWS="NAME ...": only those runs
    ${WRAP:-} bash -c 'one "$@"' one "$out/$name.$rep.log" "$@"
}
for rep in $(seq 1 "$reps"); do
    run pingpong-java-mailbox "$root/lockstep" bench pingpong --processes=2 --sizes="$sizes" --iterations=20000
    run pingpong-java-hybridintra "${tcp[@]}" -np 4 "$root/lockstep" bench pingpong "${hybrid[@]}" --echo-rank 1 --sizes="$sizes" --iterations=20000
    run pingpong-java-hybridinter "${tcp[@]}" -np 4 "$root/lockstep" bench pingpong "${hybrid[@]}" --echo-rank 2 --sizes="$sizes" --iterations=20000
    run pingpong-java-mpitcp "${tcp[@]}" -np 2 "$root/lockstep" bench pingpong --provider mpi --sizes="$sizes" --iterations=20000
    run collectives-twolevel-4 "${tcp[@]}" -np 4 "$root/lockstep" bench collectives "${hybrid[@]}"
    run collectives-flat-4 "${tcp[@]}" -np 4 "$root/lockstep" bench collectives --provider mpi
done
echo "$out"
