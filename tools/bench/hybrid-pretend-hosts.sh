#!/usr/bin/env bash
# The hybrid provider with 4 ranks as 2 pretend hosts of 2 (lockstep.mpi.hostOf=2), Open MPI on TCP only
# (--mca btl self,tcp) so that traffic between the pretend hosts crosses the network stack: ping-pong of a
# pair on one host (ranks 0,1: the mailbox transport) and of a pair across hosts (ranks 0,2: MPI over TCP),
# beside the pure mailbox transport (2 processes, and a pair of 4) and the mpi provider over TCP (2 processes); then the
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
# 4 ranks on this machine's 2 cores, bound so that each pair measured has a core per rank, as the mailbox pair has
# (unbound, the same-host pair's 8 B median was 1.17 us in a run near at both probes, bound 0.22): ranks 0 and 1
# (the same-host pair) and ranks 0 and 2 (the pair across hosts, and the hosts' leaders) on different cores
host=$(hostname)
printf 'rank 0=%s slot=0\nrank 1=%s slot=1\nrank 2=%s slot=1\nrank 3=%s slot=0\n' "$host" "$host" "$host" "$host" > "$out/rankfile"
tcp=(mpirun.openmpi --oversubscribe --mca btl self,tcp)
# a rankfile hides the oversubscription from Open MPI, which then busy-polls without yielding (8 ms barriers, flat and
# two-level alike): say so, as --map-by core on more ranks than cores does by itself
tcp4=("${tcp[@]}" --rankfile "$out/rankfile" --mca mpi_yield_when_idle 1)
tcp2=("${tcp[@]}" --bind-to core)
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
    # the like figure for a pair of 4 ranks on 2 cores: the mailbox pair of a 4-process job (the other two asleep)
    run pingpong-java-mailbox4 "$root/lockstep" bench pingpong --processes=4 --sizes="$sizes" --iterations=20000
    run pingpong-java-hybridintra "${tcp4[@]}" -np 4 "$root/lockstep" bench pingpong "${hybrid[@]}" --echo-rank 1 --sizes="$sizes" --iterations=20000
    run pingpong-java-hybridinter "${tcp4[@]}" -np 4 "$root/lockstep" bench pingpong "${hybrid[@]}" --echo-rank 2 --sizes="$sizes" --iterations=20000
    run pingpong-java-mpitcp "${tcp2[@]}" -np 2 "$root/lockstep" bench pingpong --provider mpi --sizes="$sizes" --iterations=20000
    run collectives-twolevel-4 "${tcp4[@]}" -np 4 "$root/lockstep" bench collectives "${hybrid[@]}"
    run collectives-flat-4 "${tcp4[@]}" -np 4 "$root/lockstep" bench collectives --provider mpi
done
echo "$out"
