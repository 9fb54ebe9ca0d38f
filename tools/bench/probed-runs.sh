# Sourced by the bench scripts (after they set $peers, the peers' build directory): one run of a
# command, its output in a log, bracketed by the cache-line probe, whose two readings (ns) end the log
# as "PROBE before_ns=.. after_ns=..", so that a summary compares runs of one placement only.
probe() { "$peers/cacheline-probe" 0 1 301 1000 | grep -o "med_ns=[0-9.]*" | cut -d= -f2; }
one() { # log command...: one run bracketed by the probe
    local log=$1; shift
    local before after
    before=$(probe)
    "$@" > "$log" 2>&1 || echo "FAILED: $*" >> "$log"
    after=$(probe)
    echo "PROBE before_ns=$before after_ns=$after" >> "$log"
}
