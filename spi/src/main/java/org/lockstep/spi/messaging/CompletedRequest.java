package org.lockstep.spi.messaging;

import java.util.Optional;

import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A request that completed when it was started, e.g. an operation on {@code PROC_NULL}: every
 * provider returns one of these rather than a request class of its own.
 *
 * @param status what the request completed with
 */
public record CompletedRequest(Status status) implements Request {
    /** A request already complete with {@code status}. */
    public static Request of(Status status) {
        return new CompletedRequest(status);
    }

    @Override
    public Status await() {
        return status;
    }

    @Override
    public Optional<Status> test() {
        return Optional.of(status);
    }

    @Override
    public boolean isComplete() {
        return true;
    }

    @Override
    public void cancel() {
        // Already complete: nothing to cancel, as MPI says.
    }
}
