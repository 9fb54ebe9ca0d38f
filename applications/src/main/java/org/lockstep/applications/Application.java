package org.lockstep.applications;

import org.lockstep.api.Communicator;

/**
 * A parallel application written against the Lockstep API only, so that it runs unchanged on
 * threads, on launched processes over a device, and under EM-BSP simulation. Each checks its own
 * output and throws {@link AssertionError} if it is wrong; {@link #run} returns a digest of the
 * result that is the same on every rank and under every provider, and equal to
 * {@link #expectedDigest()}, the same digest computed directly without communication.
 */
public interface Application {
    /** Command-line name: {@code sort}, {@code prefix-sums}, {@code list-ranking}. */
    String name();

    /** The problem size: keys, values or list nodes. */
    long size();

    /** Runs on {@code world}; returns the result's digest (identical on every rank). */
    long run(Communicator world);

    /** The digest {@link #run} must return, computed sequentially (O(size) time, O(1) memory). */
    long expectedDigest();

    /**
     * The most memory one rank of {@code ranks} allocates from its communicator at once, with room
     * for allocator alignment: under EM-BSP the context size μ must be at least this.
     */
    long contextBytes(int ranks);

    /**
     * The most Java heap one rank of {@code ranks} holds at once beyond its context: its own arrays,
     * and once more the per-rank counts and displacements it passes to a collective (a simulator that
     * runs the ranks as threads of one JVM keeps its own copy while the call lasts, and every rank
     * waits in the call at once) — what a JVM running many ranks must hold for each.
     */
    long heapBytes(int ranks);

    /** The bytes of the problem's data (8 per element), for throughput figures. */
    default long dataBytes() {
        return Math.multiplyExact(size(), Long.BYTES);
    }
}
