package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.function.Predicate;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Status;
import org.lockstep.spi.messaging.AbstractRequest;
import org.lockstep.spi.messaging.MatchingEngine;
import org.lockstep.spi.messaging.ProgressEngine;

/** A posted receive of the mailbox transport; the {@link Receiver} delivers into it. */
final class ReceiveRequest extends AbstractRequest {
    final MemorySegment buffer;
    final long capacity;
    final Posted posted;
    /** The communicator's group: the status names the source by its rank there. */
    final Group group;
    /** Takes the receive out of the matching engine if it has not matched; whether it did. */
    private final Predicate<ReceiveRequest> canceller;
    /** The message that matched this receive, or null. */
    IncomingMessage matched;
    /** Posted as ANY_SOURCE while the job checkpoints: its match is logged, or replays a logged one. */
    boolean wildcard;
    /** For a replayed wildcard receive: the sequence number the log says it matched; else 0. */
    long replayedSequence;
    /** Bytes copied into the buffer so far. */
    long delivered;

    /** The entry of this receive in the matching engine's posted queue. */
    static final class Posted extends MatchingEngine.PostedReceive {
        final ReceiveRequest request;

        Posted(ReceiveRequest request, int source, int tag, int context) {
            super(source, tag, context);
            this.request = request;
        }
    }

    ReceiveRequest(ProgressEngine engine, Predicate<ReceiveRequest> canceller, MemorySegment buffer, long capacity, int source,
                   int tag, int context, Group group) {
        super(engine);
        this.group = group;
        this.canceller = canceller;
        this.buffer = buffer;
        this.capacity = capacity;
        this.posted = new Posted(this, source, tag, context);
    }

    /** The whole matched message has been copied: the receive completes (a message longer than the buffer: TRUNCATE). */
    void finish() {
        boolean truncated = matched.messageLength > capacity;
        complete(new Status(group.rankOf(matched.source), matched.tag, delivered, false, truncated ? ErrorClass.TRUNCATE : null));
    }

    /** Whether a message has matched this receive (its last fragments may still be on their way). */
    boolean isMatched() {
        return matched != null;
    }

    void failWith(LockstepException error) {
        fail(error);
    }

    @Override
    protected boolean tryCancel() {
        return canceller.test(this);
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
