#!/usr/bin/env bash
# JMH benchmarks of the transport's latency path (module bench): matching (MatchBenchmark), one
# pair ring's publish and poll (SlotRingBenchmark), the reduction kernels (OpBenchmark).
# Arguments go to JMH, e.g.:  tools/bench/jmh.sh SlotRing -prof gc
#                            tools/bench/jmh.sh -l                (list the benchmarks)
# Build first (from the repository root):  mvn -B -DskipTests package -pl bench -am
# On a shared machine prefer the gc profiler's allocation figures and compare within one run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=.ci/find-jdk25.sh
. "$root/.ci/find-jdk25.sh"
lockstep_use_jdk25

jar=$(ls "$root"/bench/target/lockstep-bench-*.jar 2>/dev/null | grep -v -- '-sources\|-javadoc' | head -1 || true)
if [ -z "$jar" ] || [ ! -d "$root/bench/target/lib" ]; then
    echo "jmh.sh: the bench module is not built; from $root run: mvn -B -DskipTests package -pl bench -am" >&2
    exit 2
fi
exec java -cp "$jar:$root/bench/target/lib/*" org.openjdk.jmh.Main "$@"
