package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.layout.SlotDescriptor.FLAG_PREAMBLE;

import java.util.ArrayDeque;

import org.lockstep.pcie.ring.SlotHeader;
import org.lockstep.pcie.ring.SlotRing;

/**
 * This rank's end of the channel to one destination: its pair mailbox and the destination's
 * asynchronous mailbox (as the sender sees them), the channel's next sequence number, the sends
 * waiting for room, and, after a restart, the logged messages a predecessor placed but never
 * published. Used under the endpoint's lock.
 */
final class SendChannel {
    final int dest;
    /** The pair mailbox (this rank, dest): the next ticket to publish and the drained ticket as last read. */
    final SlotRing ring;
    /** dest's asynchronous mailbox as senders see it, taken when the pair ring is full; null without device atomics. */
    final SlotRing asyncRing;
    /** Sequence number of the channel's next message (preamble messages take none). */
    long nextSequence = 1;
    /** Sends not yet fully placed, in the order they were started. */
    final ArrayDeque<SendRequest> pending = new ArrayDeque<>();
    /** LoggedMessage messages a predecessor placed but never published, to publish before anything new. */
    final ArrayDeque<LoggedMessage> republish = new ArrayDeque<>();

    SendChannel(int dest, SlotRing ring, SlotRing asyncRing) {
        this.dest = dest;
        this.ring = ring;
        this.asyncRing = asyncRing;
    }

    /** Whether a new send must queue behind earlier ones. */
    boolean busy() {
        return !pending.isEmpty() || !republish.isEmpty();
    }

    /**
     * A restart: the pair ring resumes after its last published ticket, what the predecessor
     * logged beyond the last published sequence number waits to be published again first, and
     * sequence numbers go on from the checkpoint.
     */
    void resume(MessageLog messageLog, long sentAtCheckpoint) {
        ring.resumeAfterPublished();
        // The last slot still in the ring that carries a logged message (a preamble one has no sequence number).
        long publishedThrough = ring.lastSequenceWithout(FLAG_PREAMBLE);
        republish.addAll(messageLog.unpublished(dest, publishedThrough));
        nextSequence = sentAtCheckpoint + 1;
    }

    /** Publishes, in order, the predecessor's unpublished logged messages while the pair ring has room; whether any. */
    boolean republishLogged(SlotHeader header, TransportStatistics statistics) {
        boolean any = false;
        while (!republish.isEmpty() && ring.hasRoom()) {
            LoggedMessage logged = republish.pollFirst();
            header.set(logged.sequence(), logged.tag(), logged.context(), logged.length(), logged.messageLength(), logged.flags(),
                    logged.block());
            ring.publish(ring.next(), header, null, 0);
            ring.advance();
            statistics.messagesRepublished++;
            any = true;
        }
        return any;
    }
}
