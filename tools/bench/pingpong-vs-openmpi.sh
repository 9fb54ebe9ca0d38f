#!/usr/bin/env bash
# Lockstep's two-process ping-pong beside Open MPI's C ping-pong (bench/peers/mpi/pingpong.c, with and
# without vader's CMA single copy), interleaved, each run bracketed by the cache-line probe
# (the host places the two vCPUs near or far; compare near with near). Needs the peers built
# (bash bench/peers/setup.sh hw mpi) and the tools module (mvn -q -DskipTests package).
# Usage: REPS=3 OUT=/tmp/pp bash tools/bench/pingpong-vs-openmpi.sh
# NP=4 runs 4 processes of each (the ranks beyond 1 wait in a barrier), unbound and --oversubscribe'd on this
# 2-core machine; SIZES replaces Lockstep's sizes (the C peer's are fixed, 0 B to 16 MiB), SCALE multiplies the peer's
# round trips. LOCKSTEP_ARGS adds arguments to Lockstep's run: `-o lockstep.mailbox.singleCopyThreshold=0` takes the
# two-copy path through heap fragments (the one to compare with Open MPI without CMA). EACH wraps every single run,
# probe included (EACH=quiet: each side of each run holds the machine alone, not the whole series).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
peers=${PEERS_BUILD:-/tmp/lockstep-peers}
reps=${REPS:-3}
np=${NP:-2}
sizes=${SIZES:-0,8,64,512,4k,32k,256k,1m,4m,16m}
scale=${SCALE:-1}
read -r -a lockstep_args <<< "${LOCKSTEP_ARGS:-}"
read -r -a each <<< "${EACH:-}"
if [ "$np" -gt 2 ]; then
    mpi_placement=(--oversubscribe); lockstep_placement=(--no-bind-to-core)
else
    mpi_placement=(--bind-to core); lockstep_placement=()
fi
out=${OUT:-/tmp/pingpong-vs-openmpi-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
probe() { "$peers/cacheline-probe" 0 1 301 1000 | grep -o "med_ns=[0-9.]*" | cut -d= -f2; }
run() { # name command...
    local name=$1; shift
    local before after
    before=$(probe)
    "$@" > "$out/$name.$rep.log" 2>&1
    after=$(probe)
    echo "PROBE before_ns=$before after_ns=$after" >> "$out/$name.$rep.log"
}
if [ "${1:-}" = --one ]; then # the script itself, run by $EACH: one run
    shift; rep=$1; shift; run "$@"; exit
fi
one() { # name command...: one run, inside $EACH when given
    if [ ${#each[@]} -gt 0 ]; then
        OUT=$out "${each[@]}" bash "${BASH_SOURCE[0]}" --one "$rep" "$@"
    else
        run "$@"
    fi
}
for rep in $(seq 1 "$reps"); do
    one openmpi mpirun.openmpi -np "$np" "${mpi_placement[@]}" --mca pml ob1 --mca btl self,vader "$peers/pingpong.openmpi" "$scale"
    one lockstep "$root/lockstep" bench pingpong --processes="$np" "${lockstep_placement[@]}" --sizes="$sizes" --iterations=20000 \
        ${lockstep_args[@]+"${lockstep_args[@]}"}
    one openmpi-nocma mpirun.openmpi -np "$np" "${mpi_placement[@]}" --mca pml ob1 --mca btl self,vader \
        --mca btl_vader_single_copy_mechanism none "$peers/pingpong.openmpi" "$scale"
done
echo "$out"
