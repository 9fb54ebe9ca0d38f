package org.lockstep.pcie.layout;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * The shape of a mailbox-formatted device, as stored in its superblock.
 *
 * @param worldSize        number of ranks
 * @param slotsPerMailbox  ring length of each pair mailbox
 * @param inlineCapacity   the indirection threshold T: messages of at most T bytes travel in place
 * @param asyncSlots       ring length of each receiver's asynchronous mailbox; 0 disables them
 * @param heapBytesPerRank size of each sender's heap partition for indirect payloads
 * @param jobKey           identifies the job, so that a process of another job cannot attach
 * @param checkpointBytesPerRank bytes of each of a rank's two checkpoint slots
 *                         ({@link CheckpointAreaDescriptor}); 0 turns checkpoints and the message
 *                         log off, so that the device holds no checkpoint area at all
 * @param ranksShareCores  whether more ranks than cores share the host, so that waits yield soon
 *                         ({@link IdleStrategy.Policy}; {@link SuperblockDescriptor#FLAG_RANKS_SHARE_CORES})
 */
public record MailboxConfig(int worldSize, int slotsPerMailbox, int inlineCapacity, int asyncSlots,
                            long heapBytesPerRank, long jobKey, long checkpointBytesPerRank, boolean ranksShareCores) {
    /** A configuration without checkpoints. */
    public MailboxConfig(int worldSize, int slotsPerMailbox, int inlineCapacity, int asyncSlots, long heapBytesPerRank, long jobKey) {
        this(worldSize, slotsPerMailbox, inlineCapacity, asyncSlots, heapBytesPerRank, jobKey, 0);
    }

    /** A configuration whose ranks are the only ones on the host. */
    public MailboxConfig(int worldSize, int slotsPerMailbox, int inlineCapacity, int asyncSlots, long heapBytesPerRank, long jobKey,
                         long checkpointBytesPerRank) {
        this(worldSize, slotsPerMailbox, inlineCapacity, asyncSlots, heapBytesPerRank, jobKey, checkpointBytesPerRank,
                shareCores(worldSize));
    }

    public static final int MAX_WORLD_SIZE = 1 << 14;
    public static final int MAX_SLOTS = 1 << 16;
    public static final int MAX_INLINE_CAPACITY = 1 << 20;

    public MailboxConfig {
        check(worldSize >= 1 && worldSize <= MAX_WORLD_SIZE, "world size " + worldSize + " is outside [1, " + MAX_WORLD_SIZE + "]");
        check(slotsPerMailbox >= 1 && slotsPerMailbox <= MAX_SLOTS, "slots per mailbox " + slotsPerMailbox + " is outside [1, " + MAX_SLOTS + "]");
        check(inlineCapacity >= 0 && inlineCapacity <= MAX_INLINE_CAPACITY, "inline threshold " + inlineCapacity + " is outside [0, " + MAX_INLINE_CAPACITY + "]");
        check(asyncSlots >= 0 && asyncSlots <= MAX_SLOTS, "async slots " + asyncSlots + " is outside [0, " + MAX_SLOTS + "]");
        check(heapBytesPerRank >= 0, "heap per rank " + heapBytesPerRank + " is negative");
        check(checkpointBytesPerRank >= 0, "checkpoint bytes per rank " + checkpointBytesPerRank + " is negative");
        check(checkpointBytesPerRank == 0 || asyncSlots == 0, "the message log of checkpoints works with pair mailboxes only; "
                + "asynchronous slots must be 0, got " + asyncSlots);
    }

    /** Whether the job checkpoints, and the device is therefore its message log. */
    public boolean checkpoints() {
        return checkpointBytesPerRank > 0;
    }

    /** The same configuration with checkpoints of {@code bytes} per rank (asynchronous mailboxes off). */
    public MailboxConfig withCheckpoints(long bytes) {
        return new MailboxConfig(worldSize, slotsPerMailbox, inlineCapacity, bytes > 0 ? 0 : asyncSlots, heapBytesPerRank, jobKey, bytes,
                ranksShareCores);
    }

    /** The same configuration on a host where {@code ranks} ranks in all share the cores (at least this job's). */
    public MailboxConfig withRanksOnHost(int ranks) {
        return new MailboxConfig(worldSize, slotsPerMailbox, inlineCapacity, asyncSlots, heapBytesPerRank, jobKey, checkpointBytesPerRank,
                shareCores(Math.max(ranks, worldSize)));
    }

    private static boolean shareCores(int ranksOnHost) {
        return IdleStrategy.Policy.forRanksOnThisHost(ranksOnHost) == IdleStrategy.Policy.OVERSUBSCRIBED;
    }

    /**
     * Entries of each sender's log directory ({@link CheckpointAreaDescriptor}): one per retained
     * message; a logged message occupies at least two cache lines of heap, so this never limits
     * before the heap does.
     */
    public long logEntriesPerRank() {
        return checkpoints() ? Math.max(64, heapBytesPerRank / (2 * LayoutConstants.CACHE_LINE)) : 0;
    }

    /** Entries of each receiver's wildcard match log: matches between two checkpoints. */
    public long matchLogEntriesPerRank() {
        return checkpoints() ? Math.max(1024, checkpointBytesPerRank / 64) : 0;
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new LockstepException(ErrorClass.ARG, message);
        }
    }
}
