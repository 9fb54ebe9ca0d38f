package org.lockstep.pcie.layout;

import static org.lockstep.pcie.layout.LayoutConstants.checkStep;

/**
 * A heap block ({@link HeapBlockDescriptor}) of a logged message — with checkpoints, every
 * message is one. The sender fills the rest of the block's first line with the message's header,
 * so that the block describes itself once the slot that pointed at it has been recycled: a
 * restarted receiver replays it from the sender's log directory, a restarted sender rebuilds its
 * heap from it. The receiver still owns word 0 (the released ticket) once the slot is published;
 * the sender writes the header only before it publishes.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                released ticket (8): the receiver's word       |  0
 *  +-------------------------------+-------------------------------+
 *  |         destination           |            flags              |  8
 *  +-------------------------------+-------------------------------+
 *  |                channel sequence number (8)                    | 16
 *  +-------------------------------+-------------------------------+
 *  |             tag               |         context id            | 24
 *  +-------------------------------+-------------------------------+
 *  |                length (8): bytes in this block                | 32
 *  +---------------------------------------------------------------+
 *  |                message length (8), of all fragments           | 40
 *  +---------------------------------------------------------------+
 *  |                block length (8), as allocated                 | 48
 *  +---------------------------------------------------------------+
 *  |                header check (8) of bytes 8..55                | 56
 *  +===============================================================+
 *  |                payload                                        | 64
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class LoggedBlockDescriptor {
    public static final int DESTINATION_OFFSET = 8;
    public static final int FLAGS_OFFSET = 12;
    public static final int SEQUENCE_OFFSET = 16;
    public static final int TAG_OFFSET = 24;
    public static final int CONTEXT_OFFSET = 28;
    public static final int LENGTH_OFFSET = 32;
    public static final int MESSAGE_LENGTH_OFFSET = 40;
    public static final int BLOCK_LENGTH_OFFSET = 48;
    public static final int CHECK_OFFSET = 56;
    /** Bytes of the header from {@link #DESTINATION_OFFSET}, check included. */
    public static final int HEADER_LENGTH = 56;

    private LoggedBlockDescriptor() {
    }

    /** The check of header words {@code w[0..5]} (bytes 8..55). */
    public static long check(long w0, long w1, long w2, long w3, long w4, long w5) {
        long h = checkStep(checkStep(checkStep(checkStep(checkStep(checkStep(0x2545F4914F6CDD1DL, w0), w1), w2), w3), w4), w5);
        return h | 1;
    }
}
