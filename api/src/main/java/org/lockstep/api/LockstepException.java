package org.lockstep.api;

import java.util.Objects;

/**
 * The one exception type of Lockstep's API: unchecked, and carrying the MPI-like
 * {@link ErrorClass} that says what went wrong. The message names the offending value.
 */
public class LockstepException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorClass errorClass;

    public LockstepException(ErrorClass errorClass, String message) {
        super(message);
        this.errorClass = Objects.requireNonNull(errorClass, "errorClass");
    }

    public LockstepException(ErrorClass errorClass, String message, Throwable cause) {
        super(message, cause);
        this.errorClass = Objects.requireNonNull(errorClass, "errorClass");
    }

    /** What kind of error this is. */
    public ErrorClass errorClass() {
        return errorClass;
    }

    @Override
    public String getMessage() {
        return "[" + errorClass.mpiName() + "] " + super.getMessage();
    }
}
