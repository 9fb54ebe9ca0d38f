package org.lockstep.conformance.run;

import java.util.concurrent.locks.LockSupport;

/** The back-off of the runner's own waits: spin briefly, then park in growing steps, checking for an abort. */
final class Waiting {
    private static final int SPINS = 200;
    private static final long MAX_PARK_NANOS = 100_000;

    private final RankState rank;
    private int rounds;
    private long parkNanos = 1_000;

    Waiting(RankState rank) {
        this.rank = rank;
    }

    void idle() {
        rank.checkAborted();
        if (++rounds <= SPINS) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(MAX_PARK_NANOS, parkNanos * 2);
        }
    }
}
