package org.lockstep.mpi.hybrid;

/**
 * How often a hybrid rank that waits on its host's transport moves MPI as well: at most once per
 * {@link #INTERVAL_NANOS}. An {@code MPI_Iprobe} over TCP polls the sockets, a system call of about
 * a microsecond, where a mailbox wait polls in tens of nanoseconds, so a probe every few rounds
 * made the same-host pair's wait several times the mailbox's. What the probe serves (a large MPI
 * send's rendezvous, a peer's access to this rank's window) takes microseconds over the network
 * anyway. Rounds may race on {@link #next}: at worst one probe more.
 */
final class MpiProgressPacing {
    static final long INTERVAL_NANOS = 5_000;
    private long next;

    /** Whether MPI is due for a probe now; if so, the next is not due for another interval. */
    boolean due() {
        long now = System.nanoTime();
        if (now - next < 0) {
            return false;
        }
        next = now + INTERVAL_NANOS;
        return true;
    }
}
