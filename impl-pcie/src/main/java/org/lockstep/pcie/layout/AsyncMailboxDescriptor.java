package org.lockstep.pcie.layout;

/**
 * A receiver's asynchronous mailbox: a claim word that senders advance with compare-and-set (so
 * it exists only on devices with atomics), the receiver's drained ticket, then a ring of slots
 * laid out as {@link SlotDescriptor} describes.
 *
 * <pre>
 *  +===============================================================+
 *  |                     claimed ticket (8), CAS by senders        |  0
 *  +---------------------------------------------------------------+
 *  |                     ... padding to 64 ...                     |
 *  +===============================================================+  receiver's line
 *  |                     drained ticket (8)                        | 64
 *  +---------------------------------------------------------------+
 *  |                     ... padding to 128 ...                    |
 *  +===============================================================+
 *  |   slot 0   |   slot 1   |  ...  |   slot (async slots - 1)    | 128
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * A sender claims ticket {@code c + 1} by moving the claim word from {@code c} to {@code c + 1},
 * and only if that ticket's slot has been drained; it then fills and publishes the slot as in a
 * pair mailbox. Messages from one sender may go to its pair mailbox or to the receiver's
 * asynchronous mailbox; the channel sequence number in every slot restores their order.
 */
public final class AsyncMailboxDescriptor {
    public static final int CLAIMED_TICKET_OFFSET = 0;
    public static final int DRAINED_TICKET_OFFSET = LayoutConstants.CACHE_LINE;
    public static final int SLOTS_OFFSET = 2 * LayoutConstants.CACHE_LINE;

    private AsyncMailboxDescriptor() {
    }
}
