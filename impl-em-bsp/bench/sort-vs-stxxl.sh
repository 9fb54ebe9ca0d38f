#!/usr/bin/env bash
# Sorts N 64-bit keys with `lockstep embsp -- sort` next to STXXL's sort (bench/peers/em) on the
# same data size, memory budget and disk, in one session. Needs root (drops the page cache before
# each run), the STXXL peer (`bash bench/peers/setup.sh stxxl`) and the built tools module
# (`mvn -q -DskipTests package`).
#   GIB=4 M_MIB=512 VPS=128 OUT=/tmp/embsp-bench bash impl-em-bsp/bench/sort-vs-stxxl.sh
# Writes $OUT/summary.txt (one line per run) and, for ours, $OUT/sort-${GIB}g.dat (+ .png, .calls).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GIB=${GIB:-4}
M_MIB=${M_MIB:-512}
VPS=${VPS:-128}
CORES=${CORES:-2}
IO=${IO:-async}
THREADS=${THREADS:-virtual}
HEAP=${HEAP:-128m}
BLOCK=${BLOCK:-4k}
OUT=${OUT:-/tmp/embsp-bench}
RUNS=${RUNS:-"stxxl embsp"}
n=$((GIB * 134217728))
mkdir -p "$OUT/disks"

for run in $RUNS; do
  case $run in
    stxxl)
      GIB=$GIB M_MIB=$M_MIB DIR=$OUT/stxxl bash "$root/bench/peers/em/stxxl-run.sh" >> "$OUT/summary.txt"
      rm -f "$OUT/stxxl/stxxl.disk"
      ;;
    embsp)
      sync; echo 3 > /proc/sys/vm/drop_caches
      log=$OUT/embsp-sort-${GIB}g.log
      LOCKSTEP_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP -XX:+AlwaysPreTouch -XX:+UseParallelGC" /usr/bin/time -v \
        "$root/lockstep" embsp --vps "$VPS" --cores "$CORES" --memory "${M_MIB}m" --block-size "$BLOCK" --disks "$OUT/disks" --io "$IO" \
        --threads "$THREADS" -o lockstep.embsp.direct=true --bench-out "$OUT/sort-${GIB}g.dat" -- sort --keys "$n" \
        > "$log" 2>&1 || echo "FAILED rc=$?" >> "$log"
      rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$log")
      wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$log")
      printf '%s\tembsp\t%s\tmaxrss_kb=%s\tproc_wall=%s\n' "$(date -u +%FT%TZ)" "$(grep '^vps=' "$log" || echo failed)" "$rss" "$wall" \
        | tee -a "$OUT/summary.txt"
      ;;
  esac
done
