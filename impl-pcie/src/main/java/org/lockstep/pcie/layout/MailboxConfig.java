package org.lockstep.pcie.layout;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * The shape of a mailbox-formatted device, as stored in its superblock.
 *
 * @param worldSize        number of ranks
 * @param slotsPerMailbox  ring length of each pair mailbox
 * @param inlineCapacity   the indirection threshold T: messages of at most T bytes travel in place
 * @param asyncSlots       ring length of each receiver's asynchronous mailbox; 0 disables them
 * @param heapBytesPerRank size of each sender's heap partition for indirect payloads
 * @param jobKey           identifies the job, so that a process of another job cannot attach
 */
public record MailboxConfig(int worldSize, int slotsPerMailbox, int inlineCapacity, int asyncSlots,
                            long heapBytesPerRank, long jobKey) {
    public static final int MAX_WORLD_SIZE = 1 << 14;
    public static final int MAX_SLOTS = 1 << 16;
    public static final int MAX_INLINE_CAPACITY = 1 << 20;

    public MailboxConfig {
        check(worldSize >= 1 && worldSize <= MAX_WORLD_SIZE, "world size " + worldSize + " is outside [1, " + MAX_WORLD_SIZE + "]");
        check(slotsPerMailbox >= 1 && slotsPerMailbox <= MAX_SLOTS, "slots per mailbox " + slotsPerMailbox + " is outside [1, " + MAX_SLOTS + "]");
        check(inlineCapacity >= 0 && inlineCapacity <= MAX_INLINE_CAPACITY, "inline threshold " + inlineCapacity + " is outside [0, " + MAX_INLINE_CAPACITY + "]");
        check(asyncSlots >= 0 && asyncSlots <= MAX_SLOTS, "async slots " + asyncSlots + " is outside [0, " + MAX_SLOTS + "]");
        check(heapBytesPerRank >= 0, "heap per rank " + heapBytesPerRank + " is negative");
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new LockstepException(ErrorClass.ARG, message);
        }
    }
}
