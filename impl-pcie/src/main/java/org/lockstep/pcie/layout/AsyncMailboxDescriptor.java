package org.lockstep.pcie.layout;

/**
 * A receiver's asynchronous mailbox: one claim word that senders advance with compare-and-set
 * (so it exists only on devices with atomics), then a ring of slots laid out as
 * {@link SlotDescriptor} describes.
 *
 * <pre>
 *  +===============================================================+
 *  |                     claimed ticket (8), CAS by senders        |  0
 *  +---------------------------------------------------------------+
 *  |                     ... padding to 64 ...                     |
 *  +===============================================================+
 *  |   slot 0   |   slot 1   |  ...  |   slot (async slots - 1)    | 64
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * A sender claims ticket {@code c + 1} by moving the claim word from {@code c} to {@code c + 1},
 * and only if that ticket's slot has been released; it then fills and publishes the slot as in a
 * pair mailbox. Messages from one sender may go to its pair mailbox or to the receiver's
 * asynchronous mailbox; the channel sequence number in every slot restores their order.
 */
public final class AsyncMailboxDescriptor {
    public static final int CLAIMED_TICKET_OFFSET = 0;
    public static final int SLOTS_OFFSET = LayoutConstants.CACHE_LINE;

    private AsyncMailboxDescriptor() {
    }
}
