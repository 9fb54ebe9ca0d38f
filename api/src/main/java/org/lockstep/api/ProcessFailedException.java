package org.lockstep.api;

/**
 * A process (rank) that an operation involves has died or been declared failed. Carries the world
 * rank of the failed process, or {@code -1} when a wildcard receive could have matched any of several.
 */
public final class ProcessFailedException extends LockstepException {
    private static final long serialVersionUID = 1L;

    private final int failedRank;

    public ProcessFailedException(ErrorClass errorClass, int failedRank, String message) {
        super(errorClass, message);
        if (errorClass != ErrorClass.PROC_FAILED && errorClass != ErrorClass.PROC_FAILED_PENDING) {
            throw new IllegalArgumentException("not a process-failure class: " + errorClass);
        }
        this.failedRank = failedRank;
    }

    /** World rank of the failed process, or -1 when not a single one. */
    public int failedRank() {
        return failedRank;
    }
}
