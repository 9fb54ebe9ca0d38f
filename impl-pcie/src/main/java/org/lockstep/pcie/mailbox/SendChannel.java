package org.lockstep.pcie.mailbox;

import java.util.ArrayDeque;

import org.lockstep.pcie.ring.SlotRing;

/**
 * This rank's end of the channel to one destination: its pair mailbox (as the sender sees it),
 * the channel's next sequence number, the sends waiting for room, and, after a restart, the
 * logged messages a predecessor placed but never published. Used under the endpoint's lock.
 */
final class SendChannel {
    final int dest;
    /** The pair mailbox (this rank, dest): the next ticket to publish and the drained ticket as last read. */
    final SlotRing ring;
    /** Sequence number of the channel's next message (preamble messages take none). */
    long nextSequence = 1;
    /** Sends not yet fully placed, in the order they were started. */
    final ArrayDeque<SendRequest> pending = new ArrayDeque<>();
    /** LoggedMessage messages a predecessor placed but never published, to publish before anything new. */
    final ArrayDeque<LoggedMessage> republish = new ArrayDeque<>();

    SendChannel(int dest, SlotRing ring) {
        this.dest = dest;
        this.ring = ring;
    }

    /** Whether a new send must queue behind earlier ones. */
    boolean busy() {
        return !pending.isEmpty() || !republish.isEmpty();
    }
}
