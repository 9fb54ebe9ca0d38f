package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;

import org.lockstep.pcie.layout.SlotDescriptor;
import org.lockstep.spi.device.WordRegion;

/**
 * A message (or fragment) the receiver has seen in a slot and not yet read: the header fields,
 * copied out once and checked against the layout, and where its payload lies. The payload stays
 * locked (owned by the receiver) until {@code unlock_mailbox} releases it after the copy.
 */
final class IncomingMessage {
    final long slotAddress;
    final long ticket;
    final long sequence;
    final int source;
    final int tag;
    final int context;
    /** Bytes of payload in this slot. */
    final long length;
    /** Bytes of the whole message (differs from {@link #length} for fragments). */
    final long messageLength;
    final int flags;
    final long payloadAddress;
    /** What {@link #payloadLockAddress} is for an in-place payload: its slot goes back with the drain. */
    static final long NO_LOCK = -1;

    /** The word whose release hands an indirect payload's heap block back, or {@link #NO_LOCK}. */
    final long payloadLockAddress;
    /** For an in-place payload: the ring's region that holds its slot (the payload is read through it); else null. */
    WordRegion ring;
    /** A local copy of the payload, taken when the message had to leave the device before it matched. */
    MemorySegment spilled;
    /** Whether the payload still holds device space the receiver counts against its sender's budget. */
    boolean held;
    /** For the first fragment of a fragmented message: where its other fragments collect. */
    Reassembly reassembly;

    boolean isIndirect() {
        return (flags & SlotDescriptor.FLAG_INDIRECT) != 0;
    }

    boolean isDirect() {
        return (flags & SlotDescriptor.FLAG_DIRECT) != 0;
    }

    boolean isSynchronous() {
        return (flags & SlotDescriptor.FLAG_SYNCHRONOUS) != 0;
    }

    /** Sent by a restarted rank before it restored its checkpoint: unlogged, so its block goes back on release. */
    boolean isPreamble() {
        return (flags & SlotDescriptor.FLAG_PREAMBLE) != 0;
    }

    IncomingMessage(long slotAddress, long ticket, long sequence, int source, int tag, int context,
                    long length, long messageLength, int flags, long payloadAddress, long payloadLockAddress) {
        this.slotAddress = slotAddress;
        this.ticket = ticket;
        this.sequence = sequence;
        this.source = source;
        this.tag = tag;
        this.context = context;
        this.length = length;
        this.messageLength = messageLength;
        this.flags = flags;
        this.payloadAddress = payloadAddress;
        this.payloadLockAddress = payloadLockAddress;
    }
}
