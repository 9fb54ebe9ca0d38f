package org.lockstep.spi.messaging;

import java.util.concurrent.locks.LockSupport;

/**
 * Back-off for polling loops, by elapsed time: busy-spin first (a message usually arrives within
 * microseconds), then yield (on a machine with more ranks than cores the peer gets the core; on an
 * idle one yield returns at once and this is still a spin), then park in growing steps up to a
 * ceiling, so that a rank waiting long does not burn its core.
 */
public final class IdleStrategy {
    private static final long SPIN_NANOS = 20_000;
    private static final long YIELD_NANOS = 2_000_000;
    private static final long FIRST_PARK_NANOS = 5_000;
    private static final long MAX_PARK_NANOS = 100_000;
    /** Rounds between clock reads while spinning: a clock read costs more than a pause. */
    private static final int ROUNDS_PER_CLOCK_READ = 64;

    private long idleSince;
    private int rounds;
    private long parkNanos = FIRST_PARK_NANOS;

    /** Call after a round that did nothing. */
    public void idle() {
        if (rounds++ == 0) {
            idleSince = System.nanoTime();
            Thread.onSpinWait();
            return;
        }
        if (rounds < ROUNDS_PER_CLOCK_READ) {
            Thread.onSpinWait();
            return;
        }
        long idleFor = System.nanoTime() - idleSince;
        if (idleFor < SPIN_NANOS) {
            rounds = 1; // read the clock again after another batch of pauses
            Thread.onSpinWait();
        } else if (idleFor < YIELD_NANOS) {
            rounds = ROUNDS_PER_CLOCK_READ;
            Thread.yield();
        } else {
            rounds = ROUNDS_PER_CLOCK_READ;
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(MAX_PARK_NANOS, parkNanos * 2);
        }
    }

    /** Call after a round that did something. */
    public void reset() {
        rounds = 0;
        parkNanos = FIRST_PARK_NANOS;
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
