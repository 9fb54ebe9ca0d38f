package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Status;
import org.lockstep.spi.messaging.AbstractRequest;
import org.lockstep.spi.messaging.MatchingEngine;

/** A posted receive of the mailbox transport. */
final class ReceiveRequest extends AbstractRequest {
    final MemorySegment buffer;
    final long capacity;
    final Posted posted;
    private final MailboxEndpoint endpoint;
    private long messageLength;

    /** The entry of this receive in the matching engine's posted queue. */
    static final class Posted extends MatchingEngine.PostedReceive {
        final ReceiveRequest request;

        Posted(ReceiveRequest request, int source, int tag, int context) {
            super(source, tag, context);
            this.request = request;
        }
    }

    ReceiveRequest(MailboxEndpoint endpoint, MemorySegment buffer, long capacity, int source, int tag, int context) {
        super(endpoint);
        this.endpoint = endpoint;
        this.buffer = buffer;
        this.capacity = capacity;
        this.posted = new Posted(this, source, tag, context);
    }

    /** Completes the receive with the message: {@code copy_message}, then {@code unlock_mailbox}. */
    void deliver(IncomingMessage message) {
        long delivered = endpoint.copyMessage(message, buffer, capacity);
        endpoint.unlockMailbox(message);
        messageLength = message.length();
        boolean truncated = message.length() > capacity;
        complete(new Status(message.source(), message.tag(), delivered, false, truncated ? ErrorClass.TRUNCATE : null));
    }

    void failWith(LockstepException error) {
        fail(error);
    }

    @Override
    protected boolean tryCancel() {
        return endpoint.cancelReceive(this);
    }

    @Override
    protected long truncatedLength() {
        return messageLength;
    }

    @Override
    public int peer() {
        return posted.source();
    }
}
