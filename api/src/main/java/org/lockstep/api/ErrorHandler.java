package org.lockstep.api;

/**
 * What a communicator does with the error of one of its calls ({@code MPI_Errhandler}, MPI 4.1
 * §9.3): the handler sees the error first; when it returns, the call throws the error. Errors
 * are exceptions in this API, so MPI's {@code MPI_ERRORS_RETURN} is {@link #RETURN}, every
 * communicator's default (MPI's default is fatal); {@link #FATAL} is {@code MPI_ERRORS_ARE_FATAL}.
 * A handler of one's own ({@code MPI_Comm_create_errhandler}) may log, count, or throw something
 * else: a {@link LockstepException} or an {@link Error} it throws is what the call throws.
 *
 * <p>Set with {@link Communicator#setErrorHandler}; communicators made from one (dup, split,
 * create, …) start with its handler. The handler runs for the errors of the communicator's calls
 * and of the requests they start (at {@code await} and {@code test}), once per error, on the
 * thread of the call.
 */
@FunctionalInterface
public interface ErrorHandler {
    /** Sees {@code error}, raised by a call on {@code communicator}, before the call throws it. */
    void handle(Communicator communicator, LockstepException error);

    /** The call throws the error ({@code MPI_ERRORS_RETURN} in Java's idiom); the default. */
    ErrorHandler RETURN = (communicator, error) -> { };

    /**
     * The error ends the rank's program ({@code MPI_ERRORS_ARE_FATAL}): the call throws a
     * {@link FatalLockstepError}, which handlers of {@link LockstepException} do not catch, so the
     * rank fails and its peers see a failed process.
     */
    ErrorHandler FATAL = (communicator, error) -> {
        throw new FatalLockstepError(communicator, error);
    };
}
