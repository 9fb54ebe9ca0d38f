#!/usr/bin/env bash
# One unchanged Java ping-pong written for the Open MPI Java bindings (package mpi), run on Lockstep's
# bindings (compat-mpi: two processes over /dev/shm, started by `lockstep run`) and on Open MPI's own
# bindings (mpirun.openmpi, vader) in the same session, interleaved, each run bracketed by the
# cache-line probe and /proc/loadavg. The program is bench/peers/mpi/JavaPingPong.java unless another
# is given (any ping-pong written for the bindings that prints the same JPP lines, compiled unchanged
# against each side's mpi package).
# Needs: the tools module built (mvn -q -DskipTests package); Open MPI's mpi.jar, which no Debian
# package ships (bash bench/peers/setup.sh java builds it from Open MPI's own sources), or
# OMPI_MPI_JAR=PATH; the probe (bash bench/peers/setup.sh hw).
# Usage: REPS=3 MODE=direct OUT=/tmp/jpp flock /tmp/lockstep-bench.lock bash tools/bench/javapingpong-vs-openmpi.sh [PROGRAM.java]
# Then:  python3 tools/bench/summarize-javapingpong.py OUT
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
peers=${PEERS_BUILD:-/tmp/lockstep-peers}
program=${1:-$root/bench/peers/mpi/JavaPingPong.java}
reps=${REPS:-3}
mode=${MODE:-direct}
scale=${SCALE:-1}
out=${OUT:-/tmp/javapingpong-vs-openmpi-$(date -u +%Y%m%dT%H%M%S)}
ompi_jar=${OMPI_MPI_JAR:-$peers/ompi-java/mpi.jar}
ompi_lib=${OMPI_JAVA_LIB:-/usr/lib/x86_64-linux-gnu/openmpi/lib}
jvm=(-Xms256m -Xmx256m -XX:+AlwaysPreTouch)
. "$root/.ci/find-jdk25.sh"
lockstep_use_jdk25
[ -f "$ompi_jar" ] || { echo "no Open MPI mpi.jar at $ompi_jar: bash bench/peers/setup.sh java, or OMPI_MPI_JAR=PATH" >&2; exit 2; }
[ -f "$ompi_lib/libmpi_java.so" ] || { echo "no libmpi_java.so in $ompi_lib (Debian: libopenmpi3; OMPI_JAVA_LIB=DIR)" >&2; exit 2; }
main=$(basename "$program" .java)
mkdir -p "$out/lockstep-classes" "$out/openmpi-classes"
javac -nowarn -cp "$("$root/lockstep" classpath --compile)" -d "$out/lockstep-classes" "$program"
javac -nowarn -cp "$ompi_jar" -d "$out/openmpi-classes" "$program"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
probe() { [ -x "$peers/cacheline-probe" ] && "$peers/cacheline-probe" 0 1 301 1000 | grep -o "med_ns=[0-9.]*" | cut -d= -f2 || echo none; }
run() { # name command...
    local name=$1; shift
    local before after load_before
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    before=$(probe)
    "$@" > "$out/$name.$rep.log" 2>&1 || echo "FAILED exit=$?" >> "$out/$name.$rep.log"
    after=$(probe)
    echo "PROBE before_ns=$before after_ns=$after" >> "$out/$name.$rep.log"
    echo "LOAD before=$load_before after=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/$name.$rep.log"
}
echo "program=$program mode=$mode scale=$scale reps=$reps" > "$out/run.txt"
echo "loadavg before: $(cat /proc/loadavg)" >> "$out/run.txt"
jvm_options=()
for o in "${jvm[@]}"; do jvm_options+=(--jvm-option="$o"); done
for rep in $(seq 1 "$reps"); do
    run lockstep "$root/lockstep" run -n 2 --bind-to-core "${jvm_options[@]}" -cp "$out/lockstep-classes" "$main" "$mode" "$scale"
    run openmpi mpirun.openmpi -np 2 --bind-to core --mca pml ob1 --mca btl self,vader \
        java "${jvm[@]}" --enable-native-access=ALL-UNNAMED -Djava.library.path="$ompi_lib" \
        -cp "$out/openmpi-classes:$ompi_jar" "$main" "$mode" "$scale"
done
echo "loadavg after: $(cat /proc/loadavg)" >> "$out/run.txt"
echo "$out"
