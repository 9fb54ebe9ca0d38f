package org.lockstep.api;

/**
 * Thrown by {@link Lockstep#abort} out of a rank that is a thread of a world of threads: the
 * rank's program ends, and whoever runs the world ends the job with {@link #exitCode()}. The
 * launcher of {@code lockstep run --threads}, whose JVM is the whole job, ends the JVM with it at
 * once; an application that runs a world of threads itself ({@link Lockstep#run}) sees the rank
 * fail with this error and decides. An {@link Error}, so that a program's handling of
 * {@link LockstepException} or {@code Exception} does not swallow it.
 */
public final class JobAbortedError extends Error {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    public JobAbortedError(int exitCode, String reason) {
        super("job aborted with exit code " + exitCode + ": " + reason);
        this.exitCode = exitCode;
    }

    /** The exit status the job ends with ({@code MPI_Abort}'s error code). */
    public int exitCode() {
        return exitCode;
    }
}
