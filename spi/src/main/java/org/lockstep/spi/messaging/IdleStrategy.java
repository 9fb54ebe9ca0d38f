package org.lockstep.spi.messaging;

import java.util.concurrent.locks.LockSupport;

/**
 * Back-off for polling loops: busy-spin first (latency), then yield, then park in growing steps
 * up to a ceiling (so an idle rank does not burn its core on these 2-vCPU machines).
 */
public final class IdleStrategy {
    private static final int SPINS = 2_000;
    private static final int YIELDS = 200;
    private static final long MAX_PARK_NANOS = 200_000;

    private int idleRounds;
    private long parkNanos = 1_000;

    /** Call after a round that did nothing. */
    public void idle() {
        idleRounds++;
        if (idleRounds <= SPINS) {
            Thread.onSpinWait();
        } else if (idleRounds <= SPINS + YIELDS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(MAX_PARK_NANOS, parkNanos * 2);
        }
    }

    /** Call after a round that did something. */
    public void reset() {
        idleRounds = 0;
        parkNanos = 1_000;
    }

    /** {@link #reset()} if {@code worked}, else {@link #idle()}. */
    public void idle(boolean worked) {
        if (worked) {
            reset();
        } else {
            idle();
        }
    }
}
