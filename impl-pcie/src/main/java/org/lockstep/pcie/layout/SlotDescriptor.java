package org.lockstep.pcie.layout;

/**
 * A message slot of a pair mailbox or an asynchronous mailbox. It belongs to the sender until the
 * sender publishes it and to the receiver until the receiver has drained it; a small message fits
 * in the slot's first cache line together with its header, so that it crosses between cores as one
 * line.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     ticket (8): published last, with release  |  0
 *  +---------------------------------------------------------------+
 *  |                     channel sequence number (8)               |  8
 *  +---------------------------------------------------------------+
 *  |                     length (8): bytes in this slot's payload  | 16
 *  +-------------------------------+-------------------------------+
 *  |             tag               |         context id            | 24
 *  +-------------------------------+-------------------------------+
 *  |            flags              |         source rank           | 32
 *  +===============================+===============================+
 *  | in place:   payload (up to the inline capacity) ...           | 40
 *  |                                                               |
 *  | indirect:   heap block offset (8); direct: buffer offset      | 40
 *  |             message length (8), of all fragments              | 48
 *  |             descriptor check (8) of the ticket and bytes 8..55 | 56
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>An indirect slot's descriptor says where the receiver reads the payload; an offset moved
 * elsewhere inside the sender's heap partition passes every range check and would hand the
 * receive bytes that are not the message's. So the sender seals it: the descriptor check
 * ({@link #descriptorCheck}) covers the job key, the ticket and every header and descriptor
 * word, and the receiver compares it before it touches the payload. It costs no line transfer
 * (the word shares the header's line) and an in-place slot, whose payload travels in that line,
 * has none.
 *
 * <p>The lock of seed 001 ("locked until the receiver reads it") is an ownership hand-off with
 * single-writer words only. Message number {@code t} of a ring of {@code n} slots goes to slot
 * {@code (t - 1) mod n}; the sender may fill it once the receiver's drained ticket (in the
 * mailbox's header, {@link PairMailboxDescriptor}) is at least {@code t - n}, writes payload and
 * header, and publishes by storing {@code t} into the ticket word with release. The receiver sees
 * the message when it reads {@code t} with acquire, takes what it needs — it copies an in-place
 * payload into the matching receive or, if none is posted, into its own memory — and hands the
 * slots back in order by advancing its drained ticket. An indirect payload stays locked in its
 * heap block ({@link HeapBlockDescriptor}) until a receive has read it.
 */
public final class SlotDescriptor {
    public static final int TICKET_OFFSET = 0;
    public static final int SEQUENCE_OFFSET = 8;
    public static final int LENGTH_OFFSET = 16;
    public static final int TAG_OFFSET = 24;
    public static final int CONTEXT_OFFSET = 28;
    public static final int FLAGS_OFFSET = 32;
    public static final int SOURCE_OFFSET = 36;
    /** Where an in-place payload starts; an indirect message keeps its descriptor here instead. */
    public static final int PAYLOAD_OFFSET = 40;
    public static final int HEAP_OFFSET_OFFSET = 40;
    public static final int MESSAGE_LENGTH_OFFSET = 48;
    public static final int DESCRIPTOR_CHECK_OFFSET = 56;

    /** Bytes of the header after the ticket, written in one burst before the ticket publishes it. */
    public static final int HEADER_BURST_LENGTH = PAYLOAD_OFFSET - SEQUENCE_OFFSET;
    /** Bytes of the indirect descriptor that follows the header. */
    public static final int INDIRECT_DESCRIPTOR_LENGTH = LayoutConstants.CACHE_LINE - PAYLOAD_OFFSET;

    /** The payload is in a heap block ({@link HeapBlockDescriptor}) at the heap offset, not in place. */
    public static final int FLAG_INDIRECT = 1;
    /** A synchronous message (always indirect): its heap block's release tells the sender a receive matched. */
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
     * receiver drains it (a claimed ticket must be published, or the ring stops there).
     */
    public static final int FLAG_VOID = 16;
    /**
     * The first fragment (no payload) of a message offered for single-copy delivery: the sender
     * waits for the answer in its heap block ({@link HeapBlockDescriptor#ANSWER_OFFSET}).
     */
    public static final int FLAG_RENDEZVOUS = 32;
    /**
     * The last fragment of an accepted rendezvous: the sender has already written its length bytes
     * straight into the receive buffer at the offset in the heap block offset field.
     */
    public static final int FLAG_DIRECT = 64;
    /**
     * Sent by a restarted incarnation before it restored its checkpoint (with the message log on):
     * the program is setting itself up again (e.g. duplicating communicators), which is not part of
     * the execution it resumes. Such a message has sequence number 0 and sits outside its channel's
     * sequence: it is neither logged nor deduplicated, and the receiver delivers it in ring order.
     * Always indirect, never fragmented, only in the pair mailbox.
     */
    public static final int FLAG_PREAMBLE = 128;
    /** Every flag a valid slot may carry. */
    public static final int KNOWN_FLAGS = FLAG_INDIRECT | FLAG_SYNCHRONOUS | FLAG_FRAGMENT_FIRST | FLAG_FRAGMENT_NEXT | FLAG_VOID
            | FLAG_RENDEZVOUS | FLAG_DIRECT | FLAG_PREAMBLE;

    private SlotDescriptor() {
    }

    /**
     * The check word of an indirect slot: the job key, the ticket it is published as, and the
     * words at {@link #SEQUENCE_OFFSET} through {@link #MESSAGE_LENGTH_OFFSET} as the device holds
     * them. A change to any one of them always changes it ({@link LayoutConstants#checkStep}).
     */
    public static long descriptorCheck(long jobKey, long ticket, long sequence, long length, long tagWord, long flagsWord,
                                       long heapOffset, long messageLength) {
        long h = LayoutConstants.checkStep(0x6A09E667F3BCC909L, jobKey);
        h = LayoutConstants.checkStep(h, ticket);
        h = LayoutConstants.checkStep(h, sequence);
        h = LayoutConstants.checkStep(h, length);
        h = LayoutConstants.checkStep(h, tagWord);
        h = LayoutConstants.checkStep(h, flagsWord);
        h = LayoutConstants.checkStep(h, heapOffset);
        return LayoutConstants.checkStep(h, messageLength);
    }

    /** Bytes one slot occupies for a given in-place payload capacity (whole cache lines, at least one). */
    public static long slotLength(int inlineCapacity) {
        return LayoutConstants.align(PAYLOAD_OFFSET + (long) Math.max(inlineCapacity, INDIRECT_DESCRIPTOR_LENGTH),
                LayoutConstants.CACHE_LINE);
    }
}
