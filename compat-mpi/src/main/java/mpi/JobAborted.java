package mpi;

/**
 * Thrown out of a rank's program by {@code MPI_Abort} or a fatal error handler when the rank is a
 * thread a launcher runs: the rank fails, and the other ranks see it as a failed process. An
 * {@link Error}, so that a program's {@code catch (Exception e)} does not swallow it.
 */
final class JobAborted extends Error {
    private static final long serialVersionUID = 1L;

    private final int code;

    JobAborted(int code, String message, Throwable cause) {
        super("MPI abort (exit code " + code + "): " + message, cause);
        this.code = code;
    }

    int code() {
        return code;
    }
}
