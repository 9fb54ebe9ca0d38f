package org.lockstep.pcie.layout;

/**
 * The mailbox of one (sender, receiver) pair, at the unique offset {@code mailbox_address}
 * gives it: the receiver's drained ticket on a line of its own, then the ring of slots.
 *
 * <pre>
 *  +===============================================================+  receiver's line
 *  |                     drained ticket (8): slots handed back     |  0
 *  +---------------------------------------------------------------+
 *  |                     ... padding to 64 ...                     |
 *  +===============================================================+
 *  |   slot 0   |   slot 1   |  ...  |   slot (slots - 1)          | 64
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * The receiver drains slots strictly in ticket order and stores the last drained ticket here,
 * once per batch; the sender reads it only when the ring looks full, so the hand-back costs one
 * cache-line transfer per batch rather than one per message.
 */
public final class PairMailboxDescriptor {
    public static final int DRAINED_TICKET_OFFSET = 0;
    public static final int SLOTS_OFFSET = LayoutConstants.CACHE_LINE;

    private PairMailboxDescriptor() {
    }
}
