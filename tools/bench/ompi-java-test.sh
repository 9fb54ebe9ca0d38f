#!/usr/bin/env bash
# The public ompi-java-test suite (github.com/open-mpi/ompi-java-test: test programs written for the
# Open MPI Java bindings; kept outside this repository) compiled unchanged against Lockstep's mpi
# package (compat-mpi) or Open MPI's mpi.jar and run one program at a time with a time limit.
# A program passes when it exits 0 and prints no "ERROR"; exit 77 is the suite's "needs more ranks".
#   compile                  javac every directory of the suite against both sides' mpi package
#   run SIDE NP [DIR/NAME..] run the programs (default: all) on SIDE with NP ranks; one line per
#                            program (program, result, exit status, seconds with any wait for WRAP) appended
#                            to OUT/SIDE-npNP.tsv
#   list                     the programs, one DIR/NAME a line (DIRS=... limits it)
#   tally                    pass / fail / hang / skip per file in OUT
#   failures                 the programs that fail or hang, per file in OUT
#   table                    a markdown table: per side, np 2 and np 4 pass / fail / hang / skip, and the
#                            programs that fail or hang there but pass on ompi at the same np
# SIDE: threads (lockstep run --threads), procs (lockstep run, processes over /dev/shm), embsp
# (lockstep run --threads --provider embsp), mpi (mpirun.openmpi of java with -Dlockstep.provider=mpi),
# ompi (mpirun.openmpi of java on Open MPI's own bindings).
# Needs: the tools module built (mvn -q -DskipTests package); SUITE=the suite's checkout; for ompi,
# Open MPI's mpi.jar (bash bench/peers/setup.sh java builds it; OMPI_MPI_JAR=PATH, default
# $PEERS_BUILD/ompi-java/mpi.jar, PEERS_BUILD default /tmp/lockstep-peers) and libmpi_java.so
# (OMPI_JAVA_LIB=its directory, default Debian's). Environment: OUT=results, logs and classes (default
# /tmp/ompi-java-test-results); LOCKSTEP=the lockstep command (default this checkout's; a copy of a
# build lets the checkout change while a run goes on); DIRS=... limits compile and the default program
# list to some of the suite's directories; LIMIT=seconds per program (60); WRAP=a command each program
# runs under (WRAP=heavy on a shared machine: the hold is per program, not the series).
# Usage: SUITE=/path/to/ompi-java-test OUT=/tmp/ojt-results bash tools/bench/ompi-java-test.sh compile
#        SUITE=... OUT=... WRAP=heavy bash tools/bench/ompi-java-test.sh run embsp 4
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
suite=${SUITE:?SUITE=the ompi-java-test checkout}
out=${OUT:-/tmp/ompi-java-test-results}
lockstep=${LOCKSTEP:-$root/lockstep}
classes=${CLASSES:-$out/classes}
limit=${LIMIT:-60}
ompi_jar=${OMPI_MPI_JAR:-${PEERS_BUILD:-/tmp/lockstep-peers}/ompi-java/mpi.jar}
ompi_lib=${OMPI_JAVA_LIB:-/usr/lib/x86_64-linux-gnu/openmpi/lib}
dirs=${DIRS:-"collective collective_intercomm communicator datatype dynamic environment group info io onesided pt2pt random request status topology"}
. "$root/.ci/find-jdk25.sh"
lockstep_use_jdk25
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

programs() {
    for d in $dirs; do
        for f in "$suite/$d"/*.java; do
            n=$(basename "$f" .java)
            case $n in OmpitestError | OmpitestProgress | OmpitestConfig) continue ;; esac
            grep -q 'static void main' "$f" && echo "$d/$n"
        done
    done
}

compile() { # side classpath
    local side=$1 cp=$2
    for d in $dirs; do
        mkdir -p "$classes/$side/$d"
        # directories without the suite's reporting classes take them from reporting/
        local reporting=()
        [ -f "$suite/$d/OmpitestConfig.java" ] || reporting+=("$suite/reporting/OmpitestConfig.java")
        [ -f "$suite/$d/OmpitestError.java" ] || reporting+=("$suite/reporting/OmpitestError.java" "$suite/reporting/OmpitestProgress.java")
        javac -nowarn -cp "$cp" -d "$classes/$side/$d" "$suite/$d"/*.java "${reporting[@]}" > "$out/compile-$side-$d.log" 2>&1 && continue
        # one by one (with the reporting classes, the directory's own or reporting/'s), so that one
        # program that does not compile does not take its directory with it
        local own=("$suite/$d"/Ompitest*.java)
        [ -f "${own[0]}" ] || own=()
        for f in "$suite/$d"/*.java; do
            javac -nowarn -cp "$cp" -d "$classes/$side/$d" "$f" "${own[@]}" "${reporting[@]}" >> "$out/compile-$side-$d.log" 2>&1 \
                || echo "does not compile on $side: $f"
        done
    done
}

run() { # side np programs...
    local side=$1 np=$2; shift 2
    local list=("$@")
    [ ${#list[@]} -gt 0 ] || mapfile -t list < <(programs)
    local logs=$out/logs/$side-np$np runtime_cp=
    mkdir -p "$logs"
    [ "$side" = mpi ] && runtime_cp=$(LOCKSTEP_JAVA_OPTS=-Xmx64m "$lockstep" classpath)
    export LOCKSTEP_JAVA_OPTS="-Xms64m -Xmx512m"
    for p in "${list[@]}"; do
        local d=${p%/*} n=${p#*/} log=$logs/${p/\//-}.log start rc result
        start=$(date +%s.%N)
        (
            cd "$suite/$d" || exit 2
            # shellcheck disable=SC2086 # WRAP is a command and its words
            case $side in
                threads) exec ${WRAP:-} timeout -k 5 "$limit" "$lockstep" run --threads -n "$np" -cp "$classes/lockstep/$d" "$n" ;;
                procs) exec ${WRAP:-} timeout -k 5 "$limit" "$lockstep" run -n "$np" --jvm-option=-Xmx256m -cp "$classes/lockstep/$d" "$n" ;;
                embsp) exec ${WRAP:-} timeout -k 5 "$limit" "$lockstep" run --threads --provider embsp -n "$np" -cp "$classes/lockstep/$d" "$n" ;;
                mpi) exec ${WRAP:-} timeout -k 5 "$limit" mpirun.openmpi --oversubscribe -np "$np" --mca btl self,vader java -Xmx256m \
                    --enable-native-access=ALL-UNNAMED -Dlockstep.provider=mpi -cp "$classes/lockstep/$d:$runtime_cp" "$n" ;;
                ompi) exec ${WRAP:-} timeout -k 5 "$limit" mpirun.openmpi --oversubscribe -np "$np" --mca btl self,vader java -Xmx256m \
                    --enable-native-access=ALL-UNNAMED -Djava.library.path="$ompi_lib" -cp "$classes/ompi/$d:$ompi_jar" "$n" ;;
                *) echo "no side $side (threads, procs, embsp, mpi, ompi)" >&2; exit 2 ;;
            esac
        ) > "$log" 2>&1
        rc=$?
        if [ $rc = 124 ] || [ $rc = 137 ]; then result=hang
        elif [ $rc = 77 ]; then result=skip
        elif [ $rc = 0 ] && ! grep -q ERROR "$log"; then result=pass
        else result=fail; fi
        printf '%s\t%s\t%s\t%.1f\n' "$p" "$result" "$rc" "$(echo "$(date +%s.%N) - $start" | bc)" >> "$out/$side-np$np.tsv"
    done
}

mkdir -p "$out"
case ${1:-} in
    compile)
        compile lockstep "$(LOCKSTEP_JAVA_OPTS=-Xmx64m "$lockstep" classpath --compile)"
        if [ -f "$ompi_jar" ]; then compile ompi "$ompi_jar"; else echo "no Open MPI mpi.jar at $ompi_jar: side ompi not compiled" >&2; fi ;;
    run) shift; run "$@" ;;
    list) programs ;;
    tally)
        for f in "$out"/*.tsv; do
            awk -F'\t' -v f="$(basename "$f" .tsv)" '{c[$2]++} END {printf "%-14s %3d programs: %d pass, %d fail, %d hang, %d skip\n", f, NR, c["pass"], c["fail"], c["hang"], c["skip"]}' "$f"
        done ;;
    failures)
        for f in "$out"/*.tsv; do
            awk -F'\t' -v f="$(basename "$f" .tsv)" '$2 == "fail" || $2 == "hang" {l = l " " $1 ($2 == "hang" ? " (hang)" : "")} END {print f ":" l}' "$f"
        done ;;
    table)
        echo "| side | np 2: pass / fail / hang / skip | np 4: pass / fail / hang / skip | fail or hang where ompi passes (np 2; np 4) |"
        echo "|---|---|---|---|"
        for side in ompi threads procs embsp mpi; do
            cells=() worse=()
            for np in 2 4; do
                f=$out/$side-np$np.tsv
                if [ -f "$f" ]; then
                    cells+=("$(awk -F'\t' '{c[$2]++} END {printf "%d / %d / %d / %d", c["pass"], c["fail"], c["hang"], c["skip"]}' "$f") ($(wc -l < "$f") run)")
                else
                    cells+=("not run")
                fi
                o=$out/ompi-np$np.tsv
                if [ "$side" != ompi ] && [ -f "$f" ] && [ -f "$o" ]; then
                    worse+=("$(awk -F'\t' 'NR == FNR {if ($2 == "pass") ok[$1] = 1; next} ($2 == "fail" || $2 == "hang") && ok[$1] {l = l (l == "" ? "" : ", ") $1 ($2 == "hang" ? " (hang)" : "")} END {print l == "" ? "none" : l}' "$o" "$f")")
                else
                    worse+=("-")
                fi
            done
            echo "| $side | ${cells[0]} | ${cells[1]} | ${worse[0]}; ${worse[1]} |"
        done ;;
    *) sed -n '2,27p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
esac
