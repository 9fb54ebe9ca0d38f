#!/usr/bin/env bash
# The mailbox transport's non-blocking barrier, bcast and allreduce on the device against the same calls as
# point-to-point schedules (lockstep.collectives.nonblocking=device|schedules), interleaved pair by pair
# (the order alternates), 2 processes bound to cores and 4 sharing them. Run from the repository root after
# `mvn -q -DskipTests package`; on a shared machine under `flock /tmp/lockstep-bench.lock`.
# PAIRS (default 3), OUT (default /tmp/nonblocking-bench); prints each run's rows to OUT/p<pair>-np<n>-<where>.out.
set -euo pipefail
PAIRS=${PAIRS:-3}
OUT=${OUT:-/tmp/nonblocking-bench}
mkdir -p "$OUT"
ROWS=(--row ibarrier:0 --row ibcast:8 --row ibcast:4096 --row iallreduce:8 --row iallreduce:4096)
echo "start $(date -u +%T) loadavg $(cat /proc/loadavg)" | tee "$OUT/log"
for pair in $(seq 1 "$PAIRS"); do
    for np in 2 4; do
        bind=(); [ "$np" = 2 ] && bind=(--bind-to-core)
        if [ $((pair % 2)) = 1 ]; then order="device schedules"; else order="schedules device"; fi
        for where in $order; do
            echo "$(date -u +%T) pair $pair np $np $where load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/log"
            ./lockstep bench collectives --processes "$np" "${bind[@]}" --budget 0.3 --warmup-seconds 2 --max-warmup-seconds 20 \
                "${ROWS[@]}" -o lockstep.collectives.nonblocking="$where" > "$OUT/p$pair-np$np-$where.out" 2>&1
            grep '^\[0\] COLL' "$OUT/p$pair-np$np-$where.out" || true
        done
    done
done
echo "end $(date -u +%T) loadavg $(cat /proc/loadavg)" | tee -a "$OUT/log"
