package org.lockstep.pcie.layout;

/**
 * A message slot of a pair mailbox or an asynchronous mailbox. The first line belongs to the
 * sender, the second to the receiver; the in-place payload follows.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +===============================================================+  sender's line
 *  |                     ticket (8): published last, with release  |  0
 *  +---------------------------------------------------------------+
 *  |                     channel sequence number (8)               |  8
 *  +-------------------------------+-------------------------------+
 *  |             tag               |         context id            | 16
 *  +-------------------------------+-------------------------------+
 *  |                     length (8), bytes of the message          | 24
 *  +-------------------------------+-------------------------------+
 *  |            flags              |         source rank           | 32
 *  +-------------------------------+-------------------------------+
 *  |                     heap offset (8), when INDIRECT            | 40
 *  +---------------------------------------------------------------+
 *  |                     sender incarnation (8)                    | 48
 *  +---------------------------------------------------------------+
 *  |                     message length (8), of all fragments      | 56
 *  +===============================================================+  receiver's line
 *  |                     released ticket (8): the lock hand-off    | 64
 *  +---------------------------------------------------------------+
 *  |                     ... padding to 128 ...                    |
 *  +===============================================================+
 *  |                     in-place payload (inline capacity bytes)  | 128
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The length word is the bytes in this slot's payload; the message length word is the length of
 * the whole message, which differs only for fragments.
 *
 * <p>The lock of seed 001 ("locked until the receiver reads it") is this ownership hand-off:
 * message number {@code t} of a ring of {@code n} slots goes to slot {@code (t - 1) mod n}; the
 * sender may fill the slot only once its released ticket equals {@code t - n} (the previous
 * occupant has been read), fills payload and header, and publishes by storing {@code t} into the
 * ticket word with release. The receiver sees the message when it reads {@code t} with acquire,
 * copies it out, and unlocks by storing {@code t} into the released-ticket word with release.
 * Each word has exactly one writer, so no atomic read-modify-write is needed.
 */
public final class SlotDescriptor {
    public static final int TICKET_OFFSET = 0;
    public static final int SEQUENCE_OFFSET = 8;
    public static final int TAG_OFFSET = 16;
    public static final int CONTEXT_OFFSET = 20;
    public static final int LENGTH_OFFSET = 24;
    public static final int FLAGS_OFFSET = 32;
    public static final int SOURCE_OFFSET = 36;
    public static final int HEAP_OFFSET_OFFSET = 40;
    public static final int SENDER_INCARNATION_OFFSET = 48;
    public static final int MESSAGE_LENGTH_OFFSET = 56;

    /** The sender's line; everything after the ticket is written in one burst before the ticket. */
    public static final int HEADER_LINE_LENGTH = LayoutConstants.CACHE_LINE;
    /** Bytes of the header burst: from the sequence number to the end of the sender's line. */
    public static final int HEADER_BURST_LENGTH = HEADER_LINE_LENGTH - SEQUENCE_OFFSET;

    public static final int RELEASED_TICKET_OFFSET = LayoutConstants.CACHE_LINE;
    public static final int PAYLOAD_OFFSET = 2 * LayoutConstants.CACHE_LINE;

    /** The payload is in a heap block ({@link HeapBlockDescriptor}) at the heap offset, not in place. */
    public static final int FLAG_INDIRECT = 1;
    /** The first slot of a synchronous send: the sender waits for its release, which only a match gives. */
    public static final int FLAG_SYNCHRONOUS = 2;
    /**
     * The first fragment of a message too large for one heap block: it is matched like any
     * message, with the message length; the fragments that follow it on the channel carry
     * {@link #FLAG_FRAGMENT_NEXT} and are appended in sequence order. Every fragment is indirect.
     */
    public static final int FLAG_FRAGMENT_FIRST = 4;
    /** A fragment after the first; never matched on its own. */
    public static final int FLAG_FRAGMENT_NEXT = 8;
    /**
     * A claimed asynchronous slot whose message could not be written: it carries nothing and the
     * receiver releases it at once (a claimed ticket must be published, or the ring stops there).
     */
    public static final int FLAG_VOID = 16;
    /** Every flag a valid slot may carry. */
    public static final int KNOWN_FLAGS = FLAG_INDIRECT | FLAG_SYNCHRONOUS | FLAG_FRAGMENT_FIRST | FLAG_FRAGMENT_NEXT | FLAG_VOID;

    private SlotDescriptor() {
    }

    /** Bytes one slot occupies for a given in-place payload capacity. */
    public static long slotLength(int inlineCapacity) {
        return PAYLOAD_OFFSET + LayoutConstants.align(inlineCapacity, LayoutConstants.CACHE_LINE);
    }
}
