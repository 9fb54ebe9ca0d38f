package mpi;

import java.util.Optional;

import org.lockstep.api.Status;

/** An operation that was complete when it started (a buffered send, once its data is copied). */
final class CompletedRequest implements org.lockstep.api.Request {
    private final Status status;

    CompletedRequest(Status status) {
        this.status = status;
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
        // complete already: nothing to cancel
    }
}
