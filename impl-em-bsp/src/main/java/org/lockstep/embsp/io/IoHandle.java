package org.lockstep.embsp.io;

/** An I/O request in flight; {@link #await()} returns once it has completed, or throws its failure. */
public interface IoHandle {
    /** A request that has already completed. */
    IoHandle COMPLETED = new IoHandle() {
        @Override
        public void await() {
        }

        @Override
        public boolean isDone() {
            return true;
        }
    };

    /** Blocks until the request has completed; rethrows its failure as a {@code DeviceException}. */
    void await();

    /** Whether the request has completed (successfully or not). */
    boolean isDone();
}
