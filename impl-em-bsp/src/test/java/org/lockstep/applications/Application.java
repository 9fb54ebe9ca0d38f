package org.lockstep.applications;

import org.lockstep.api.Communicator;

/**
 * A parallel application written against the Lockstep API only, so that it runs unchanged on
 * threads, on launched processes over a device, and under EM-BSP simulation. Each checks its own
 * output and throws {@link AssertionError} if it is wrong; {@link #run} returns a digest of the
 * result that is the same on every rank and under every provider.
 */
public interface Application {
    /** Command-line name: {@code sort}, {@code prefix-sums}, {@code list-ranking}. */
    String name();

    /** Runs on {@code world}; returns the result's digest (identical on every rank). */
    long run(Communicator world);
}
