package org.lockstep.spi.messaging;

import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.Status;

/** The request of a communicator constructor that completed when it started (a provider whose construction never waits). */
public record CompletedCommunicatorRequest(Communicator communicator) implements CommunicatorRequest {
    private static final Status DONE = Status.of(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0);

    @Override
    public Status await() {
        return DONE;
    }

    @Override
    public Optional<Status> test() {
        return Optional.of(DONE);
    }

    @Override
    public boolean isComplete() {
        return true;
    }

    @Override
    public void cancel() {
        // complete already
    }
}
