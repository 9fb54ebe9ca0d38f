package org.lockstep.embsp.net;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * A wait that looks again and again, for what no signal wakes it for (a pull's last byte, another
 * real processor's progress): it parks between looks, from 50 µs up to 1 ms, so that a poller
 * under load leaves the CPU to the threads that make the progress it waits for. An interrupt (a run
 * being stopped) ends the wait with an error: a park returns at once while the flag is set, so
 * ignoring it would turn the wait into a busy loop that never ends and starves everything after it.
 */
public final class PollingWait {
    private static final long FIRST_PARK_NANOS = 50_000;
    private static final long LONGEST_PARK_NANOS = 1_000_000;

    private PollingWait() {
    }

    /**
     * Returns once {@code done} holds; before each look but the first, {@code check} may end the
     * wait by throwing (a failed network, an aborted run).
     *
     * @throws LockstepException if the thread is interrupted (its flag stays set)
     */
    public static void until(BooleanSupplier done, Runnable check, Object blocker, String what) {
        long park = FIRST_PARK_NANOS;
        while (!done.getAsBoolean()) {
            check.run();
            if (Thread.currentThread().isInterrupted()) {
                throw new LockstepException(ErrorClass.OTHER, "interrupted while waiting for " + what);
            }
            LockSupport.parkNanos(blocker, park);
            park = Math.min(LONGEST_PARK_NANOS, 2 * park);
        }
    }
}
