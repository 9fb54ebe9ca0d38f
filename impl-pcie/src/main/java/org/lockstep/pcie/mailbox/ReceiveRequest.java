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
    /** The communicator's group: the status names the source by its rank there. */
    final Group group;
    private final MailboxEndpoint endpoint;
    private IncomingMessage matched;
    /** Posted as ANY_SOURCE while the job checkpoints: its match is logged, or replays a logged one. */
    boolean wildcard;
    /** For a replayed wildcard receive: the sequence number the log says it matched; else 0. */
    long replayedSequence;
    private long delivered;

    /** The entry of this receive in the matching engine's posted queue. */
    static final class Posted extends MatchingEngine.PostedReceive {
        final ReceiveRequest request;

        Posted(ReceiveRequest request, int source, int tag, int context) {
            super(source, tag, context);
            this.request = request;
        }
    }

    ReceiveRequest(MailboxEndpoint endpoint, MemorySegment buffer, long capacity, int source, int tag, int context, Group group) {
        super(endpoint);
        this.group = group;
        this.endpoint = endpoint;
        this.buffer = buffer;
        this.capacity = capacity;
        this.posted = new Posted(this, source, tag, context);
    }

    /**
     * The receive has matched {@code message}: {@code copy_message}, then {@code unlock_mailbox}.
     * A fragmented message completes the receive only once its last fragment is copied.
     */
    void deliver(IncomingMessage message) {
        endpoint.matched(this, message);
        matched = message;
        delivered += endpoint.copyMessage(message, buffer, 0, capacity);
        endpoint.unlockMailbox(message);
        Reassembly reassembly = message.reassembly;
        if (reassembly == null) {
            finish();
            return;
        }
        if (reassembly.broken) {
            reassembly.releaseStaging();
            fail(new org.lockstep.api.ProcessFailedException(ErrorClass.PROC_FAILED, message.source, "receive of a message of "
                    + message.messageLength + " bytes from rank " + message.source + ": the sender ended after "
                    + reassembly.arrived + " bytes"));
            return;
        }
        reassembly.receive = this;
        long staged = reassembly.arrived - message.length;
        long room = Math.max(0, Math.min(staged, capacity - message.length));
        if (room > 0) {
            MemorySegment.copy(reassembly.staging(), 0, buffer, message.length, room);
            delivered += room;
        }
        if (reassembly.isComplete()) {
            reassembly.releaseStaging();
            finish();
        }
    }

    /** A later fragment of the matched message, at {@code offset} within it. */
    void appendFragment(IncomingMessage fragment, long offset) {
        delivered += endpoint.copyMessage(fragment, buffer, offset, capacity);
        endpoint.unlockMailbox(fragment);
        if (matched.reassembly.isComplete()) {
            matched.reassembly.releaseStaging();
            finish();
        }
    }

    private void finish() {
        endpoint.consumed(matched.source, matched.sequence,
                matched.reassembly == null ? matched.sequence : matched.reassembly.lastSequence);
        boolean truncated = matched.messageLength > capacity;
        complete(new Status(group.rankOf(matched.source), matched.tag, delivered, false, truncated ? ErrorClass.TRUNCATE : null));
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
        return matched == null ? -1 : matched.messageLength;
    }

    @Override
    public int peer() {
        return group.rankOf(posted.source());
    }
}
