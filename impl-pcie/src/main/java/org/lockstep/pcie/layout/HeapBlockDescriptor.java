package org.lockstep.pcie.layout;

/**
 * A block of a sender's heap partition that holds one indirect payload (a large message, a
 * fragment of one, or a synchronous message of any size). Its first line belongs to the receiver:
 * the payload's lock, released once the payload has been read.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +===============================================================+  receiver's line
 *  |                     released ticket (8): 0 until read         |  0
 *  +---------------------------------------------------------------+
 *  |                     ... padding to 64 ...                     |
 *  +===============================================================+
 *  |                     payload (length bytes)                    | 64
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The sender zeroes the released word and writes the payload before it publishes the slot that
 * points here; the receiver, having read the slot, hands the slot itself back at once and keeps
 * only the payload locked — so a large message that waits for its receive never blocks the ring.
 * The receiver unlocks the payload by storing the slot's ticket here with release; only then does
 * the sender reuse the block. A synchronous send completes when it sees that store, which the
 * receiver makes only for a matched receive.
 */
public final class HeapBlockDescriptor {
    public static final int RELEASED_TICKET_OFFSET = 0;
    public static final int PAYLOAD_OFFSET = LayoutConstants.CACHE_LINE;

    private HeapBlockDescriptor() {
    }

    /** Bytes of a block that holds {@code payloadLength} bytes. */
    public static long blockLength(long payloadLength) {
        return PAYLOAD_OFFSET + payloadLength;
    }
}
