package mpi;

/**
 * An MPI call failed. Its message says which call and why ({@code MPI_Error_string});
 * {@link #getErrorClass()} is one of the {@code MPI.ERR_*} classes. Thrown when the
 * communicator's error handler is {@link MPI#ERRORS_RETURN}, for calls Lockstep does not support
 * ({@link MPI#ERR_UNSUPPORTED_OPERATION}), and for calls made before {@code MPI.Init} or after
 * {@code MPI.Finalize}.
 */
public final class MPIException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int errorCode;
    private final int errorClass;

    MPIException(int errorClass, String message, Throwable cause) {
        super(message, cause);
        this.errorCode = errorClass;
        this.errorClass = errorClass;
    }

    /** An exception of class {@link MPI#ERR_OTHER} with this message. */
    public MPIException(String message) {
        this(ErrorClasses.OTHER, message, null);
    }

    /** An exception of class {@link MPI#ERR_OTHER} caused by {@code cause}. */
    public MPIException(Throwable cause) {
        this(ErrorClasses.OTHER, String.valueOf(cause), cause);
        setStackTrace(cause.getStackTrace());
    }

    /** The MPI error code; Lockstep's codes are its error classes. */
    public int getErrorCode() {
        return errorCode;
    }

    /** The MPI error class, one of {@code MPI.ERR_*}. */
    public int getErrorClass() {
        return errorClass;
    }
}
