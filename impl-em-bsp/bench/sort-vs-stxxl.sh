#!/usr/bin/env bash
# Sorts N 64-bit keys with `lockstep embsp -- sort` next to STXXL's sort (bench/peers/em) on the
# same data size, memory budget and disk, in one session. Needs root (drops the page cache before
# each run), the STXXL peer (`bash bench/peers/setup.sh stxxl`) and the built tools module
# (`mvn -q -DskipTests package`).
#   GIB=4 M_MIB=512 VPS=128 OUT=/tmp/embsp-bench bash impl-em-bsp/bench/sort-vs-stxxl.sh
# EXTRA: further `lockstep embsp` options for our runs, e.g. EXTRA="-o lockstep.embsp.writeWatch=true".
# KEEP_DISKS=true (default): our contexts live in $OUT/disks*/contexts.disk, written through once by the first run
# (before its clock starts) and reused by the next ones (lockstep.embsp.keepDisks), as STXXL's disk file is; false:
# a new sparse file per run, whose first writes the file system must allocate.
# RUNS (in the order given): stxxl; ram (the same keys sorted in RAM by __gnu_parallel::sort on all cores,
# no disk: the floor); embsp (one process, budget M_MIB, k=CORES); embsp-p2 (two processes
# of one core each, budget M_MIB/2 each, each its own disk directory); embsp-indirect, embsp-p2-indirect
# (the same with PEMS1's indirect area: a slot per (sender, receiver) of SLOT bytes, default twice the
# average sort message N·8/v², rounded up to B).
# Writes $OUT/summary.txt (one line per run, naming its log= and, for ours, dat=): each run has its own log,
# $OUT/RUN-sort-${GIB}g-STAMP.log, and ours its own $OUT/sort-${GIB}g-RUN-STAMP.dat (+ .png, .calls), STAMP the UTC
# start time, so that repeated and interleaved runs into one OUT keep every run's files.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GIB=${GIB:-4}
M_MIB=${M_MIB:-512}
VPS=${VPS:-128}
CORES=${CORES:-2}
IO=${IO:-async}
THREADS=${THREADS:-virtual}
# auto: lockstep embsp sizes its JVMs from the budget; a size (e.g. 128m) hand-sets every JVM's heap instead
HEAP=${HEAP:-auto}
KEEP_DISKS=${KEEP_DISKS:-true}
read -ra extra <<< "${EXTRA:-}"
BLOCK=${BLOCK:-4k}
OUT=${OUT:-/tmp/embsp-bench}
RUNS=${RUNS:-"stxxl embsp"}
n=$((GIB * 134217728))
block_bytes=$(numfmt --from=iec "${BLOCK^^}")
SLOT=${SLOT:-$(( (2 * n * 8 / (VPS * VPS) + block_bytes - 1) / block_bytes * block_bytes ))}
mkdir -p "$OUT/disks" "$OUT/disks-0" "$OUT/disks-1"

# one run of ours: NAME PROCESSORS CORES BUDGET_MIB DELIVERY
embsp() {
  local name=$1 processors=$2 cores=$3 budget=$4 delivery=$5
  local disks=$OUT/disks keep=()
  [ "$processors" = 1 ] || disks="$OUT/disks-{p}"
  if [ "$KEEP_DISKS" = true ]; then
    disks=$disks/contexts.disk
    keep=(-o lockstep.embsp.keepDisks=true)
  fi
  sync; echo 3 > /proc/sys/vm/drop_caches
  local stamp
  stamp=$(date -u +%Y%m%dT%H%M%S)
  local log=$OUT/$name-sort-${GIB}g-$stamp.log dat=$OUT/sort-${GIB}g-$name-$stamp.dat
  local load
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  local jvm=()
  if [ "$HEAP" = auto ]; then
    unset LOCKSTEP_JAVA_OPTS
  else
    export LOCKSTEP_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP -XX:+AlwaysPreTouch -XX:+UseParallelGC"
    jvm=(--jvm-option "-Xms$HEAP" --jvm-option "-Xmx$HEAP" --jvm-option -XX:+UseParallelGC)
  fi
  /usr/bin/time -v \
    "$root/lockstep" embsp --processors "$processors" "${jvm[@]}" --vps "$VPS" --cores "$cores" --memory "${budget}m" --block-size "$BLOCK" \
    --disks "$disks" --io "$IO" --threads "$THREADS" --delivery "$delivery" -o lockstep.embsp.direct=true \
    -o "lockstep.embsp.indirectSlot=$SLOT" "${keep[@]}" "${extra[@]}" --bench-out "$dat" -- sort --keys "$n" \
    > "$log" 2>&1 || echo "FAILED rc=$?" >> "$log"
  local rss wall
  rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$log")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$log")
  printf '%s\t%s\t%s\tmaxrss_kb=%s\tproc_wall=%s\tload_before=%s\tload_after=%s\tlog=%s\tdat=%s\n' "$(date -u +%FT%TZ)" \
    "$name" "$(grep '^vps=' "$log" || echo failed)" "$rss" "$wall" "${load// /,}" "$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)" \
    "$log" "$dat" | tee -a "$OUT/summary.txt"
}

for run in $RUNS; do
  case $run in
    stxxl)
      load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)
      GIB=$GIB M_MIB=$M_MIB DIR=$OUT/stxxl bash "$root/bench/peers/em/stxxl-run.sh" | sed "s/\$/\tload_before=$load/" >> "$OUT/summary.txt"
      rm -f "$OUT/stxxl/stxxl.disk"
      ;;
    ram)
      program=${PEERS_BUILD:-/tmp/lockstep-peers}/ram-sort
      [ -x "$program" ] || { echo "sort-vs-stxxl: $program is missing; run: bash bench/peers/setup.sh stxxl" >&2; exit 2; }
      load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)
      sync; echo 3 > /proc/sys/vm/drop_caches
      log=$OUT/ram-sort-${GIB}g-$(date -u +%Y%m%dT%H%M%S).log
      /usr/bin/time -v "$program" "$n" > "$log" 2>&1 || echo "FAILED rc=$?" >> "$log"
      printf '%s\tram\t%s\tmaxrss_kb=%s\tproc_wall=%s\tload_before=%s\tlog=%s\n' "$(date -u +%FT%TZ)" \
        "$(grep '^RESULT' "$log" || echo "RESULT failed")" "$(awk -F': ' '/Maximum resident set size/{print $2}' "$log")" \
        "$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$log")" "$load" "$log" | tee -a "$OUT/summary.txt"
      ;;
    embsp) embsp embsp 1 "$CORES" "$M_MIB" direct ;;
    embsp-indirect) embsp embsp-indirect 1 "$CORES" "$M_MIB" indirect ;;
    embsp-p2) embsp embsp-p2 2 1 $((M_MIB / 2)) direct ;;
    embsp-p2-indirect) embsp embsp-p2-indirect 2 1 $((M_MIB / 2)) indirect ;;
    *) echo "sort-vs-stxxl: unknown run '$run'" >&2; exit 2 ;;
  esac
done
