package org.lockstep.mpi.comm;

import java.util.concurrent.atomic.AtomicLong;

/**
 * This process's creations of communicators that span ranks of several communicators (an
 * intercommunicator's bridge): a rank proposes its next creation number, the members agree on the
 * largest, and the agreed number tags the creation ({@code MPI_Comm_create_group}) so that
 * concurrent creations stay apart.
 */
public final class SpanningCreations {
    private static final AtomicLong CREATED = new AtomicLong();

    private SpanningCreations() {
    }

    /** This rank's proposal: its next creation number. */
    public static long propose() {
        return CREATED.incrementAndGet();
    }

    /** Takes the members' agreed number (later proposals exceed it) and returns the creation's tag, below {@code tagBound}. */
    public static int agreed(long agreed, int tagBound) {
        CREATED.accumulateAndGet(agreed, Math::max);
        return (int) (agreed % tagBound);
    }
}
