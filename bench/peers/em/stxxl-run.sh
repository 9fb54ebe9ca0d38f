#!/usr/bin/env bash
# One STXXL sort of GIB GiB of keys (GIB * 2^27 keys) within M_MIB MiB, on a disk file in DIR, O_DIRECT
# (STXXL's "syscall direct=on"), with the page cache dropped first when run as root. Appends one line to
# $DIR/summary.txt and prints it: the program's RESULT line, maxrss_kb= and proc_wall= of /usr/bin/time -v.
#   GIB=4 M_MIB=512 DIR=/tmp/embsp-bench/stxxl bash bench/peers/em/stxxl-run.sh
# Needs `bash bench/peers/setup.sh stxxl` (builds $PEERS_BUILD/stxxl-sort).
set -euo pipefail
build=${PEERS_BUILD:-/tmp/lockstep-peers}
GIB=${GIB:-4}
M_MIB=${M_MIB:-512}
DIR=${DIR:-/tmp/stxxl-run}
ALGO=${ALGO:-sort}
program=$build/stxxl-sort
[ -x "$program" ] || { echo "stxxl-run: $program is missing; run: bash bench/peers/setup.sh stxxl" >&2; exit 2; }
mkdir -p "$DIR"
keys=$((GIB * 134217728))
# Two copies of the input and some room; STXXL reads "nG" as n * 10^9 bytes, so give it MiB.
disk_mib=$(((2 * GIB + 2) * 1024))
disk=$DIR/stxxl.disk
config=$DIR/stxxl.cfg
echo "disk=$disk,${disk_mib}MiB,syscall direct=on" > "$config"
# Written once beforehand, so that no run pays for allocating the file's extents.
if [ ! -f "$disk" ] || [ "$(stat -c %s "$disk")" -ne $((disk_mib * 1048576)) ]; then
    dd if=/dev/zero of="$disk" bs=8M count=$((disk_mib / 8)) oflag=direct status=none
fi
log=$DIR/stxxl-$ALGO-${GIB}g-$(date -u +%Y%m%dT%H%M%S).log
if [ "$(id -u)" = 0 ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi
(cd "$DIR" && STXXLCFG=$config STXXLLOGFILE=$DIR/stxxl.messages STXXLERRLOGFILE=$DIR/stxxl.errors \
    /usr/bin/time -v "$program" "$ALGO" "$keys" "$M_MIB") > "$log" 2>&1 || echo "FAILED rc=$?" >> "$log"
result=$(grep '^RESULT' "$log" || echo "RESULT failed log=$log")
rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$log")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$log")
printf '%s\tstxxl\t%s\tmaxrss_kb=%s\tproc_wall=%s\n' "$(date -u +%FT%TZ)" "$result" "$rss" "$wall" | tee -a "$DIR/summary.txt"
