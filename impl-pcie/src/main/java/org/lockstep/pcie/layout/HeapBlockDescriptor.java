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
 *  |                     rendezvous answer (8): NONE, ACCEPT, DECLINE |  8
 *  +---------------------------------------------------------------+
 *  |                     receive buffer offset in the device (8)   | 16
 *  +---------------------------------------------------------------+
 *  |                     receive buffer length (8)                 | 24
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
 *
 * <p>Single-copy rendezvous: a large message offered for single-copy delivery (slot flag
 * {@link SlotDescriptor#FLAG_RENDEZVOUS}) has a block with no payload, and the sender waits for
 * the answer before it moves any byte. When the receiver matches it with a receive whose buffer
 * lies in device memory it writes that buffer's offset and length, then stores
 * {@link #ANSWER_ACCEPT} with release; the sender checks the range against the layout and copies
 * the payload straight into it. Otherwise (no receive yet, a buffer in process memory, a
 * wildcard source, truncation) it stores {@link #ANSWER_DECLINE} and the message follows as
 * ordinary fragments. The sender zeroes the answer with the released word.
 *
 * <p>With checkpoints on, single copy is off and bytes 8..63 of the first line hold instead the
 * logged message's header, written by the sender before it publishes ({@link LoggedBlockDescriptor}).
 */
public final class HeapBlockDescriptor {
    public static final int RELEASED_TICKET_OFFSET = 0;
    public static final int ANSWER_OFFSET = 8;
    public static final int ANSWER_BUFFER_OFFSET = 16;
    public static final int ANSWER_LENGTH_OFFSET = 24;
    public static final int PAYLOAD_OFFSET = LayoutConstants.CACHE_LINE;

    /** No answer yet. */
    public static final long ANSWER_NONE = 0;
    /** The receiver posted a device-resident buffer: copy the payload there. */
    public static final long ANSWER_ACCEPT = 1;
    /** Send the payload through the heap as usual. */
    public static final long ANSWER_DECLINE = 2;

    private HeapBlockDescriptor() {
    }

    /** Bytes of a block that holds {@code payloadLength} bytes. */
    public static long blockLength(long payloadLength) {
        return PAYLOAD_OFFSET + payloadLength;
    }
}
