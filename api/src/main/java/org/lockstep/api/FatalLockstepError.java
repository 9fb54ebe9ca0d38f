package org.lockstep.api;

/**
 * An error under {@link ErrorHandler#FATAL} ({@code MPI_ERRORS_ARE_FATAL}): thrown instead of the
 * {@link LockstepException} it carries as its cause, an {@link Error} so that a program's handling
 * of {@link LockstepException} lets it pass and the rank ends.
 */
public final class FatalLockstepError extends Error {
    private static final long serialVersionUID = 1L;

    private final ErrorClass errorClass;

    public FatalLockstepError(Communicator communicator, LockstepException cause) {
        super("fatal error on rank " + communicator.rank() + " of " + communicator.size() + " (ERRORS_ARE_FATAL): " + cause.getMessage(),
                cause);
        this.errorClass = cause.errorClass();
    }

    /** The class of the error that was fatal. */
    public ErrorClass errorClass() {
        return errorClass;
    }
}
