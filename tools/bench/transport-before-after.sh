#!/usr/bin/env bash
# The transport's benchmarks on an earlier commit (BASE) and on this checkout, interleaved pair by pair
# (odd pairs base first, even pairs this checkout first): bench pingpong --processes 2 (8 B, 4 KiB, 1 MiB,
# 4 MiB), bench collectives --processes 2 and 4, bench checkpoint --log-throughput. Each run's output goes
# to OUT/pN-BENCH-{before,after}.out, start and end (with /proc/loadavg) to OUT/log; the table comes from
# python3 tools/bench/summarize-before-after.py OUT. Needs this checkout's tools module built
# (mvn -q -DskipTests package). BASE is built from `git archive` into /tmp (MVN_OPTS for its Maven, e.g. pinned
# plugin versions when offline). LOCK=FILE holds that lock (flock) for each run, one side of one
# benchmark, never a whole pair (others measure on the same host), after taking FILE.intent first so that
# shared holders of FILE (builds) that arrive later wait; BENCHES picks some of pingpong coll2 coll4 ckpt.
# Each run is bracketed by the cache-line probe when it is built (PEERS_BUILD, bash bench/peers/setup.sh hw):
# OUT/pN-BENCH-SIDE.probe holds its two readings, and the summary compares near runs with near, far with far.
# Both sides' collectives warm up alike: --warmup-seconds COLL_WARMUP (default 2, times the ranks a CPU), and a
# side whose bench would go on until its JIT is quiet (--max-warmup-seconds, from e3af254) is told 0, so that it
# stops then too: with its own warm-up (up to 90 s) against the earlier bench's 2-4 s, the two sides timed
# differently warmed code. ROWS picks collectives rows (e.g. ROWS="barrier:0 bcast:1048576", bench
# collectives' --row), run without the other rows, whose order and warm-up can move a row's figure.
# Usage: BASE=31bb3b6 PAIRS=3 OUT=/tmp/ab bash tools/bench/transport-before-after.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
base=$(git -C "$root" rev-parse --short "${BASE:?BASE=commit to compare with}")
pairs=${PAIRS:-3}
first=${FIRST_PAIR:-1}
out=${OUT:-/tmp/transport-before-after-$(date -u +%Y%m%dT%H%M%S)}
benches=(${BENCHES:-pingpong coll2 coll4 ckpt})
probe=${PEERS_BUILD:-/tmp/lockstep-peers}/cacheline-probe
before=/tmp/lockstep-base-$base
mkdir -p "$out"
if [ ! -f "$before/tools/target/lockstep-tools-0.1.0-SNAPSHOT.jar" ]; then
    rm -rf "$before" && mkdir -p "$before"
    git -C "$root" archive "$base" | tar -x -C "$before"
    # shellcheck disable=SC2086 # MVN_OPTS are words
    (cd "$before" && mvn -B -q -DskipTests -Dmaven.javadoc.skip=true ${MVN_OPTS:-} package -pl tools -am)
fi
coll_warmup=${COLL_WARMUP:-2}
rows=()
for row in ${ROWS:-}; do rows+=(--row "$row"); done
reading() { # the probe's median cross-core round trip in ns, or - without the probe
    if [ -x "$probe" ]; then "$probe" 0 1 301 1000 | grep -o 'med_ns=[0-9.]*' | cut -d= -f2; else echo -; fi
}
arguments() { # bench dir
    local warmup="--warmup-seconds $coll_warmup"
    grep -q -- '--max-warmup-seconds' "$2/tools/src/main/java/org/lockstep/tools/CollectivesBenchCommand.java" \
        && warmup="$warmup --max-warmup-seconds 0"
    case $1 in
        pingpong) echo "bench pingpong --processes 2 --sizes 8,4k,1m,4m" ;;
        coll2) echo "bench collectives --processes 2 $warmup ${rows[*]}" ;;
        coll4) echo "bench collectives --processes 4 $warmup ${rows[*]}" ;;
        ckpt) echo "bench checkpoint --log-throughput" ;;
    esac
}
one() { # side bench pair
    local dir=$root file=$out/p$3-$2-$1
    [ "$1" = before ] && dir=$before
    [ -n "${LOCK:-}" ] && { exec 8>> "$LOCK.intent"; flock 8; exec 9>> "$LOCK"; flock 9; }
    echo "$(date -u +%H:%M:%S) start $1 $2 pair $3 load $(cat /proc/loadavg)" >> "$out/log"
    local first
    first=$(reading)
    # shellcheck disable=SC2046 # the arguments are words
    (cd "$dir" && /usr/bin/time -f "wall %e user %U sys %S" -o "$file.time" ./lockstep $(arguments "$2" "$dir") > "$file.out" 2> "$file.err") \
        && rc=0 || rc=$?
    echo "$first $(reading)" > "$file.probe"
    echo "$(date -u +%H:%M:%S) end   $1 $2 pair $3 rc $rc load $(cat /proc/loadavg)" >> "$out/log"
    [ -n "${LOCK:-}" ] && exec 9>&- 8>&-
    return 0
}
pair() {
    for bench in "${benches[@]}"; do
        if [ $(($1 % 2)) = 1 ]; then one before "$bench" "$1"; one after "$bench" "$1"
        else one after "$bench" "$1"; one before "$bench" "$1"; fi
    done
}
for ((p = first; p < first + pairs; p++)); do
    pair "$p"
done
echo "$out"
