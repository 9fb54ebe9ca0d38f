package org.lockstep.api;

/**
 * A persistent operation ({@code MPI_Send_init}, {@code MPI_Recv_init}, {@code MPI_Bcast_init}, …):
 * made once with its arguments, then started and completed as often as needed. Between a
 * completion and the next {@link #start()} it is inactive, and waiting on it or testing it returns
 * at once with an empty status ({@link Status#empty()}).
 */
public interface PersistentRequest extends Request {
    /**
     * Starts the operation ({@code MPI_Start}); the buffer must then not be touched until it completes.
     *
     * @throws LockstepException {@link ErrorClass#REQUEST} if it is active (started and not yet
     *         completed) or freed
     */
    void start();

    /** Whether it has been started and not yet completed by a wait or a successful test. */
    boolean isActive();

    /**
     * Releases it ({@code MPI_Request_free}); an active operation still completes, but can no longer be
     * waited on. Later calls fail with {@link ErrorClass#REQUEST}.
     */
    void free();

    /** Starts every request given, in order ({@code MPI_Startall}); null entries are skipped. */
    static void startAll(PersistentRequest... requests) {
        for (PersistentRequest r : requests) {
            if (r != null) {
                r.start();
            }
        }
    }
}
