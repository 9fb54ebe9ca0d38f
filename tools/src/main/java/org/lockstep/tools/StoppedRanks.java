package org.lockstep.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Tells which rank stopped responding: a rank process stopped by a signal (SIGSTOP, SIGTSTP) or
 * held by a debugger is alive but runs no code; its peers take it for failed once their liveness
 * lease runs out. The launcher reports each such rank once, so that the user learns which one it was.
 */
final class StoppedRanks {
    /** How often the launcher looks (a few reads of /proc). */
    static final long CHECK_INTERVAL_NANOS = 500_000_000L;

    private final boolean[] reported;
    private long lastCheck;

    StoppedRanks(int ranks) {
        this.reported = new boolean[ranks];
    }

    /** Reports, on {@code err}, each running rank of {@code processes} newly found stopped. */
    void check(List<Process> processes, boolean[] done, java.io.PrintStream err) {
        long now = System.nanoTime();
        if (now - lastCheck < CHECK_INTERVAL_NANOS) {
            return;
        }
        lastCheck = now;
        for (int rank = 0; rank < reported.length; rank++) {
            if (done[rank]) {
                continue;
            }
            Process p = processes.get(rank);
            boolean stopped = isStopped(p.pid());
            if (stopped && !reported[rank]) {
                err.println("lockstep run: rank " + rank + " (process " + p.pid() + ") is stopped (a signal or a debugger) and does"
                        + " not respond; its peers take it for failed when their liveness lease (lockstep.mailbox.livenessLeaseMillis)"
                        + " runs out");
            }
            reported[rank] = stopped;
        }
    }

    /** Whether the process is in state T (stopped) or t (traced), as /proc/PID/stat says. */
    static boolean isStopped(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int end = stat.lastIndexOf(')');
            if (end < 0 || end + 2 >= stat.length()) {
                return false;
            }
            char state = stat.charAt(end + 2);
            return state == 'T' || state == 't';
        } catch (IOException | SecurityException e) {
            return false; // gone, or not Linux
        }
    }
}
