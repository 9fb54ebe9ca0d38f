# Sourced by halo-vs-openmpi.sh and rma-vs-openmpi.sh (which set root, out, reps, nps and LINES, the pattern of the
# benchmark's result lines, and define theirs NP FILE, the Open MPI side of one run): the runs of a Lockstep benchmark
# beside its Open MPI peer, interleaved, each bracketed by the cache-line probe and held by WRAP (e.g. quiet) alone.
peers=${PEERS_BUILD:-/tmp/lockstep-peers}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
probe() { "$peers/cacheline-probe" 0 1 301 1000 | grep -o "med_ns=[0-9.]*" | cut -d= -f2; }
one() { # file command...: one run's result lines, bracketed by the probe and the load
    local file=$1; shift
    local before after
    before=$(probe)
    { "$@" || echo "FAILED: $*"; } | grep -o "$LINES .*\|FAILED.*" > "$file"
    after=$(probe)
    echo "PROBE before_ns=$before after_ns=$after load=$(cut -d' ' -f1 /proc/loadavg)" >> "$file"
}
export -f probe one
export peers LINES
run() { # file command...: one run, inside WRAP's hold if set
    ${WRAP:-} bash -c 'one "$@"' one "$@"
}
ours() { # side np rep arguments...: `lockstep ARGUMENTS` of this checkout (side lockstep) or of BASE_ROOT (side base)
    local side=$1 np=$2 rep=$3 dir=$root bind=()
    shift 3
    [ "$side" = base ] && dir=$BASE_ROOT
    [ "$np" = 2 ] && bind=(--bind-to-core)
    run "$out/$side-$np-$rep.txt" "$dir/lockstep" "$@" --processes "$np" "${bind[@]}"
}
series() { # arguments...: REPS repetitions from FIRST_REP; per process count, base (odd repetitions first), ours, theirs
    local first=${FIRST_REP:-1} rep np
    for rep in $(seq "$first" $((first + reps - 1))); do
        for np in $nps; do
            if [ -n "${BASE_ROOT:-}" ] && [ $((rep % 2)) = 1 ]; then ours base "$np" "$rep" "$@"; fi
            ours lockstep "$np" "$rep" "$@"
            if [ -n "${BASE_ROOT:-}" ] && [ $((rep % 2)) = 0 ]; then ours base "$np" "$rep" "$@"; fi
            theirs "$np" "$out/openmpi-$np-$rep.txt"
        done
    done
}
