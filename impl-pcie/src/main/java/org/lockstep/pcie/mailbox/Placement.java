package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.layout.SlotDescriptor.*;

import org.lockstep.pcie.layout.HeapBlockDescriptor;

/**
 * How the next piece of a send goes into a slot, chosen once per piece by the {@link Sender}:
 * its kind, its payload bytes and the slot flags that say so. One per sender, reused.
 */
final class Placement {
    /** The five ways a piece of a message travels. */
    enum Kind {
        /** Payload in the slot itself (up to the inline capacity). */
        INLINE,
        /** Payload in a heap block (or log ring block) the slot points at. */
        INDIRECT,
        /** One of several heap blocks of a message longer than a fragment. */
        FRAGMENT,
        /** The first fragment of a single-copy rendezvous: no payload, its block holds the receiver's answer. */
        OFFER,
        /** The last fragment of an accepted rendezvous: the payload is in the receive buffer already. */
        DIRECT
    }

    Kind kind;
    /** Payload bytes of this piece. */
    long length;
    /** Whether this piece is the message's first, and its last. */
    boolean first;
    boolean last;
    /** Slot flags of this piece ({@link org.lockstep.pcie.layout.SlotDescriptor}). */
    int flags;

    /** Whether this piece's payload goes through a heap block (or log ring block) this sender reserves. */
    boolean needsBlock() {
        return kind == Kind.INDIRECT || kind == Kind.FRAGMENT || kind == Kind.OFFER;
    }

    /** Whether the slot carries an indirect descriptor rather than the payload. */
    boolean indirect() {
        return kind != Kind.INLINE;
    }

    /** Bytes of the heap block this piece needs. */
    long blockLength() {
        return HeapBlockDescriptor.blockLength(length);
    }

    /** Sets this placement; the flags follow from the kind. */
    Placement set(Kind kind, long length, boolean first, boolean last, boolean synchronous, boolean preamble) {
        this.kind = kind;
        this.length = length;
        this.first = first;
        this.last = last;
        // The receiver of a synchronous message releases its first slot only once a receive matched it.
        int f = synchronous && first ? FLAG_SYNCHRONOUS : 0;
        f |= switch (kind) {
            case INLINE -> 0;
            case INDIRECT -> FLAG_INDIRECT;
            case FRAGMENT -> FLAG_INDIRECT | (first ? FLAG_FRAGMENT_FIRST : FLAG_FRAGMENT_NEXT);
            case OFFER -> FLAG_INDIRECT | FLAG_FRAGMENT_FIRST | FLAG_RENDEZVOUS;
            case DIRECT -> FLAG_INDIRECT | FLAG_FRAGMENT_NEXT | FLAG_DIRECT;
        };
        this.flags = preamble ? f | FLAG_PREAMBLE : f;
        return this;
    }
}
