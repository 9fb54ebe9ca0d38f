package org.lockstep.mpi.comm;

import java.util.Optional;

import org.lockstep.api.Request;
import org.lockstep.api.Status;

/** A request that completed when it was started (operations on {@code PROC_NULL}). */
record CompletedRequest(Status status) implements Request {
    static Request of(Status status) {
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
        // already complete: nothing to cancel
    }
}
