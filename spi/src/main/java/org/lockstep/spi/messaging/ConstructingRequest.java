package org.lockstep.spi.messaging;

import java.util.Optional;
import java.util.function.Supplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * The request of a non-blocking communicator constructor: an agreement in flight (a collective's
 * request), and the step that makes the communicator from its result once it has completed.
 */
public final class ConstructingRequest implements CommunicatorRequest {
    private final Request agreement;
    private final Supplier<Communicator> construct;
    private Communicator made;

    public ConstructingRequest(Request agreement, Supplier<Communicator> construct) {
        this.agreement = agreement;
        this.construct = construct;
    }

    private Status made(Status s) {
        if (made == null) {
            made = construct.get();
        }
        return s;
    }

    @Override
    public Status await() {
        return made(agreement.await());
    }

    @Override
    public Optional<Status> test() {
        return agreement.test().map(this::made);
    }

    @Override
    public boolean isComplete() {
        return agreement.isComplete();
    }

    @Override
    public void cancel() {
        // a collective cannot be withdrawn
    }

    @Override
    public Communicator communicator() {
        if (made == null) {
            if (!agreement.isComplete()) {
                throw new LockstepException(ErrorClass.PENDING, "the new communicator is not made yet: complete the request first");
            }
            made(agreement.await());
        }
        return made;
    }
}
