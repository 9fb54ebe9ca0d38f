package org.lockstep.pcie.mailbox;

import java.util.TreeMap;

import org.lockstep.pcie.ring.SlotRing;

/**
 * This rank's end of the channel from one source: its pair mailbox (as the receiver sees it),
 * the next sequence number to deliver and the arrivals ahead of it, the fragmented message
 * in progress with the receive it fills, and the source's heap bytes its unexpected messages
 * hold. Used under the endpoint's lock.
 */
final class ReceiveChannel {
    final int source;
    /** The pair mailbox (source, this rank): the next ticket to drain. */
    final SlotRing ring;
    /** How the receiver reads this ring's slots into arrivals. */
    final SlotRing.Reader<IncomingMessage> reader;
    /** Sequence number of the next message to deliver in channel order. */
    long nextSequence = 1;
    /** Arrivals ahead of {@link #nextSequence}, by sequence number, waiting for the gap to fill. */
    final TreeMap<Long, IncomingMessage> ahead = new TreeMap<>();
    /** The fragmented message whose later fragments are still arriving, or null. */
    Reassembly reassembly;
    /** The receive that matched {@link #reassembly}'s first fragment and takes the later ones; null until one matches. */
    ReceiveRequest reassemblingInto;
    /** Heap bytes of unexpected messages from this source that this rank keeps locked in the source's heap. */
    long heldHeapBytes;

    ReceiveChannel(int source, SlotRing ring, SlotRing.Reader<IncomingMessage> reader) {
        this.source = source;
        this.ring = ring;
        this.reader = reader;
    }

    /** The fragmented message in progress has ended: whole, or its sender gone. */
    void endReassembly() {
        reassembly = null;
        reassemblingInto = null;
    }
}
