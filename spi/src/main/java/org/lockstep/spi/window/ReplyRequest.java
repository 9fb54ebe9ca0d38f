package org.lockstep.spi.window;

import java.util.Optional;

import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A request-based get or fetch of the point-to-point window: complete once the target's reply to
 * its last ticket is in. Replies of one target come in the order asked, so that reply is the
 * access's last (a derived type's pieces each have one).
 */
final class ReplyRequest implements Request {
    private final RmaAgent agent;
    private final int target;
    private final int lastTicket;

    ReplyRequest(RmaAgent agent, int target, int lastTicket) {
        this.agent = agent;
        this.target = target;
        this.lastTicket = lastTicket;
    }

    @Override
    public Status await() {
        agent.awaitUntil(this::isComplete, r -> r == target, () -> { });
        return Status.empty();
    }

    @Override
    public Optional<Status> test() {
        if (!isComplete()) {
            agent.serveAvailable();
        }
        return isComplete() ? Optional.of(Status.empty()) : Optional.empty();
    }

    @Override
    public boolean isComplete() {
        return agent.answered(lastTicket);
    }

    @Override
    public void cancel() {
        // an access in flight is not cancelled (MPI: only receives are); the request completes as usual
    }
}
