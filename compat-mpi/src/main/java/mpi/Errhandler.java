package mpi;

/**
 * What happens when a call on a communicator fails ({@code MPI_Errhandler}):
 * {@link MPI#ERRORS_ARE_FATAL} (the default, as in MPI) prints the error on one line and aborts
 * the job with the error class as exit code; {@link MPI#ERRORS_RETURN} throws it as an
 * {@link MPIException}.
 */
public final class Errhandler {
    private final boolean fatal;

    Errhandler(boolean fatal) {
        this.fatal = fatal;
    }

    /**
     * The exception for a call that failed, to throw; when this handler is fatal, the job is
     * aborted instead and this does not return.
     */
    MPIException handle(String call, Throwable failure) {
        MPIException e = ErrorClasses.exception(call, failure);
        if (fatal && e.getErrorClass() != ErrorClasses.UNSUPPORTED_OPERATION) {
            Session.abortJob(e.getErrorClass(), e.getMessage() + " (MPI.ERRORS_ARE_FATAL: aborting the job)");
        }
        return e;
    }

    /**
     * {@code MPI_*_call_errhandler}: a fatal handler aborts the job for {@code error}; under
     * {@link MPI#ERRORS_RETURN} the handler returns and so does the call (MPI 4.1 §9.3.6).
     */
    void raise(String call, MPIException error) {
        if (fatal) {
            Session.abortJob(error.getErrorClass(), call + ": " + error.getMessage() + " (MPI.ERRORS_ARE_FATAL: aborting the job)");
        }
    }

    boolean isFatal() {
        return fatal;
    }

    @Override
    public String toString() {
        return fatal ? "MPI.ERRORS_ARE_FATAL" : "MPI.ERRORS_RETURN";
    }
}
