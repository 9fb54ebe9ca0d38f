package org.lockstep.pcie.layout;

import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceException;

/**
 * Where everything lives on a device formatted for a world: the device map and the address
 * functions of seed 001 ({@code mailbox_address}, {@code lock_address}).
 *
 * <pre>
 *  offset 0  +------------------------------+
 *            | superblock                   |  {@link SuperblockDescriptor}, one block
 *            +------------------------------+
 *            | rank table                   |  worldSize entries, {@link RankTableDescriptor}
 *            +------------------------------+
 *            | pair mailboxes               |  worldSize x worldSize mailboxes, sender-major;
 *            |   (s, r) at a unique offset  |  {@link PairMailboxDescriptor}: a ring of {@link SlotDescriptor}s
 *            +------------------------------+
 *            | asynchronous mailboxes       |  one per receiver, {@link AsyncMailboxDescriptor}
 *            |   (only with device CAS)     |
 *            +------------------------------+
 *            | collective area              |  {@link CollectiveAreaDescriptor}: per
 *            |   (device-native collectives)|  communicator slot, a block per rank
 *            +------------------------------+
 *            | payload heap                 |  one partition of heapBytesPerRank per sender;
 *            |   (indirection)              |  only that sender allocates in it
 *            +------------------------------+
 *            | checkpoint area              |  only when the job checkpoints: per rank
 *            |                              |  {@link CheckpointAreaDescriptor}
 *            +------------------------------+
 *            | unused                       |
 *  capacity  +------------------------------+
 * </pre>
 *
 * Every section starts on a device block boundary. Every offset the transport reads from the
 * device is checked against these bounds before it is used ({@link #checkHeapRange}).
 */
public final class MailboxLayout {
    private final MailboxConfig config;
    private final int blockSize;
    private final long slotLength;
    private final long mailboxLength;
    private final long asyncMailboxLength;
    private final long rankTableBase;
    private final long pairBase;
    private final long asyncBase;
    private final long collectiveBase;
    private final long heapBase;
    private final long heapPartitionLength;
    private final long checkpointBase;
    private final long logRingTailsOffset;
    private final long logRingLength;
    private final long matchLogOffset;
    private final long directoryOffset;
    private final long checkpointSlotOffset;
    private final long checkpointSlotLength;
    private final long checkpointAreaLength;
    private final long end;

    public MailboxLayout(MailboxConfig config, int blockSize) {
        this.config = config;
        this.blockSize = blockSize;
        long n = config.worldSize();
        try {
            slotLength = SlotDescriptor.slotLength(config.inlineCapacity());
            mailboxLength = Math.addExact(PairMailboxDescriptor.SLOTS_OFFSET, Math.multiplyExact(slotLength, config.slotsPerMailbox()));
            asyncMailboxLength = config.asyncSlots() == 0 ? 0
                    : Math.addExact(AsyncMailboxDescriptor.SLOTS_OFFSET, Math.multiplyExact(slotLength, config.asyncSlots()));
            rankTableBase = LayoutConstants.align(SuperblockDescriptor.LENGTH, blockSize);
            pairBase = LayoutConstants.align(rankTableBase + n * RankTableDescriptor.ENTRY_LENGTH, blockSize);
            asyncBase = LayoutConstants.align(Math.addExact(pairBase, Math.multiplyExact(n * n, mailboxLength)), blockSize);
            collectiveBase = LayoutConstants.align(Math.addExact(asyncBase, Math.multiplyExact(n, asyncMailboxLength)), blockSize);
            heapBase = LayoutConstants.align(Math.addExact(collectiveBase, CollectiveAreaDescriptor.areaLength(config.worldSize())), blockSize);
            heapPartitionLength = LayoutConstants.align(config.heapBytesPerRank(), blockSize);
            checkpointBase = Math.addExact(heapBase, Math.multiplyExact(n, heapPartitionLength));
            logRingTailsOffset = LayoutConstants.align(CheckpointAreaDescriptor.RELEASE_CURSORS_OFFSET + n * Long.BYTES, LayoutConstants.CACHE_LINE);
            matchLogOffset = LayoutConstants.align(logRingTailsOffset + n * Long.BYTES, LayoutConstants.CACHE_LINE);
            // Half of each heap partition (the top) is the sender's log rings, one per destination.
            long ring = config.checkpoints() ? heapPartitionLength / 2 / n : 0;
            logRingLength = ring - ring % LayoutConstants.CACHE_LINE;
            directoryOffset = Math.addExact(matchLogOffset,
                    Math.multiplyExact(config.matchLogEntriesPerRank(), CheckpointAreaDescriptor.MATCH_ENTRY_LENGTH));
            checkpointSlotOffset = LayoutConstants.align(Math.addExact(directoryOffset,
                    Math.multiplyExact(config.logEntriesPerRank(), CheckpointAreaDescriptor.DIRECTORY_ENTRY_LENGTH)), blockSize);
            checkpointSlotLength = LayoutConstants.align(CheckpointSlotDescriptor.BODY_OFFSET + config.checkpointBytesPerRank(), blockSize);
            checkpointAreaLength = config.checkpoints() ? Math.addExact(checkpointSlotOffset, 2 * checkpointSlotLength) : 0;
            end = Math.addExact(checkpointBase, Math.multiplyExact(n, checkpointAreaLength));
            if (end > Long.MAX_VALUE / 2) {
                throw new ArithmeticException("layout end " + end);
            }
        } catch (ArithmeticException overflow) {
            throw new DeviceException(ErrorClass.ARG, "a layout for " + config + " does not fit in 2^62 bytes");
        }
    }

    public MailboxConfig config() {
        return config;
    }

    /** Bytes the device must have for this layout. */
    public long requiredCapacity() {
        return end;
    }

    public long slotLength() {
        return slotLength;
    }

    /** Entry of {@code rank} in the rank table. */
    public long rankEntry(int rank) {
        return rankTableBase + (long) rank * RankTableDescriptor.ENTRY_LENGTH;
    }

    /** {@code mailbox_address}: the unique offset of the mailbox of the pair (sender, receiver). */
    public long mailboxAddress(int sender, int receiver) {
        return pairBase + ((long) sender * config.worldSize() + receiver) * mailboxLength;
    }

    /** Bytes of one pair mailbox: its drained-ticket line and its slots. */
    public long mailboxLength() {
        return mailboxLength;
    }

    /** Bytes of one asynchronous mailbox (0 when the layout has none). */
    public long asyncMailboxLength() {
        return asyncMailboxLength;
    }

    /** First slot of the pair mailbox at {@code mailbox}. */
    public static long pairSlotsBase(long mailbox) {
        return mailbox + PairMailboxDescriptor.SLOTS_OFFSET;
    }

    /** {@code lock_address} of a pair mailbox: the word whose advance hands drained slots back to the sender. */
    public static long lockAddress(long mailbox) {
        return mailbox + PairMailboxDescriptor.DRAINED_TICKET_OFFSET;
    }

    /** The slot of a ring that holds message number {@code ticket} (1-based). */
    public long slotAddress(long ringBase, long ticket, int ringSlots) {
        return ringBase + ((ticket - 1) % ringSlots) * slotLength;
    }

    /** The drained-ticket word of {@code receiver}'s asynchronous mailbox. */
    public long asyncLockAddress(int receiver) {
        return asyncMailboxAddress(receiver) + AsyncMailboxDescriptor.DRAINED_TICKET_OFFSET;
    }

    /** The asynchronous mailbox of {@code receiver}; only when {@link MailboxConfig#asyncSlots()} > 0. */
    public long asyncMailboxAddress(int receiver) {
        return asyncBase + receiver * asyncMailboxLength;
    }

    /** First slot of the asynchronous mailbox of {@code receiver}. */
    public long asyncSlotsBase(int receiver) {
        return asyncMailboxAddress(receiver) + AsyncMailboxDescriptor.SLOTS_OFFSET;
    }

    /**
     * The block of {@code worldRank} in communicator slot {@code slot} of the collective area
     * ({@link CollectiveAreaDescriptor}); the world must have an area.
     */
    public long collectiveBlock(int slot, int worldRank) {
        int n = config.worldSize();
        if (slot < 0 || slot >= CollectiveAreaDescriptor.COMMUNICATOR_SLOTS || worldRank < 0 || worldRank >= n
                || n > CollectiveAreaDescriptor.MAX_WORLD_SIZE) {
            throw new IllegalArgumentException("no collective block for slot " + slot + ", world rank " + worldRank + " of " + n);
        }
        return collectiveBase + ((long) slot * n + worldRank) * CollectiveAreaDescriptor.blockLength(n);
    }

    /** Start of the heap partition in which {@code sender} allocates. */
    public long heapPartition(int sender) {
        return heapBase + sender * heapPartitionLength;
    }

    public long heapPartitionLength() {
        return heapPartitionLength;
    }

    /**
     * Bytes at the start of each heap partition that its sender's allocator manages: all of it
     * without checkpoints; the lower half with them, the upper half holding its log rings.
     */
    public long heapAllocatorLength() {
        return config.checkpoints() ? heapPartitionLength - logRingLength * config.worldSize() : heapPartitionLength;
    }

    /** Start of {@code sender}'s log ring for messages to {@code dest} ({@link LogRingDescriptor}); only with checkpoints. */
    public long logRing(int sender, int dest) {
        return heapPartition(sender) + heapAllocatorLength() + dest * logRingLength;
    }

    /** Bytes of one log ring (a multiple of the cache line; 0 without checkpoints). */
    public long logRingLength() {
        return logRingLength;
    }

    /** The word where {@code sender} keeps the persisted tail of its log ring to {@code dest}. */
    public long logRingTailAddress(int sender, int dest) {
        return checkpointArea(sender) + logRingTailsOffset + (long) dest * Long.BYTES;
    }

    /**
     * Checks that a heap block read from a slot, with a payload of {@code length} bytes, lies in its
     * sender's heap partition; a corrupted or hostile device image fails here instead of reading out
     * of bounds.
     */
    public void checkHeapRange(int sender, long blockOffset, long length) {
        long base = heapPartition(sender);
        long blockLength = length < 0 || length > heapPartitionLength ? -1 : HeapBlockDescriptor.blockLength(length);
        if (blockOffset < base || blockLength < 0 || blockLength > heapPartitionLength
                || blockOffset - base > heapPartitionLength - blockLength || (blockOffset & (LayoutConstants.CACHE_LINE - 1)) != 0) {
            throw new DeviceException(ErrorClass.INTERN, "corrupt device: payload block [" + blockOffset + ", +" + length
                    + ") of sender " + sender + " is outside its heap partition [" + base + ", +" + heapPartitionLength + ")");
        }
    }

    /**
     * Checks that a receive buffer range named by a receiver ({@code length} bytes at device
     * {@code offset}) lies in that receiver's heap partition, where its device buffers are
     * allocated; a hostile or corrupt answer fails here instead of causing an out-of-bounds write.
     */
    public void checkBufferRange(int receiver, long offset, long length) {
        long base = heapPartition(receiver);
        if (length < 0 || length > heapPartitionLength || offset < base || offset - base > heapPartitionLength - length) {
            throw new DeviceException(ErrorClass.INTERN, "corrupt device: receive buffer [" + offset + ", +" + length
                    + ") named by rank " + receiver + " is outside its heap partition [" + base + ", +" + heapPartitionLength + ")");
        }
    }

    /** Start of {@code rank}'s checkpoint area ({@link CheckpointAreaDescriptor}); only when the job checkpoints. */
    public long checkpointArea(int rank) {
        return checkpointBase + rank * checkpointAreaLength;
    }

    /** The word holding {@code rank}'s committed checkpoint epoch. */
    public long committedEpochAddress(int rank) {
        return checkpointArea(rank) + CheckpointAreaDescriptor.COMMITTED_EPOCH_OFFSET;
    }

    /** The word where {@code receiver} says up to which sequence number from {@code sender} its checkpoint has consumed all. */
    public long releaseCursorAddress(int receiver, int sender) {
        return checkpointArea(receiver) + CheckpointAreaDescriptor.RELEASE_CURSORS_OFFSET + (long) sender * Long.BYTES;
    }

    /** Entry {@code position} (mod the ring) of {@code receiver}'s wildcard match log. */
    public long matchLogEntry(int receiver, long position) {
        return checkpointArea(receiver) + matchLogOffset
                + Math.floorMod(position, config.matchLogEntriesPerRank()) * CheckpointAreaDescriptor.MATCH_ENTRY_LENGTH;
    }

    /** Word {@code index} of {@code sender}'s log directory. */
    public long directoryEntry(int sender, long index) {
        return checkpointArea(sender) + directoryOffset + index * CheckpointAreaDescriptor.DIRECTORY_ENTRY_LENGTH;
    }

    /** Checkpoint slot {@code which} (0 = A, 1 = B) of {@code rank}. */
    public long checkpointSlot(int rank, int which) {
        return checkpointArea(rank) + checkpointSlotOffset + which * checkpointSlotLength;
    }

    /** Bytes of a checkpoint slot's body. */
    public long checkpointBodyCapacity() {
        return checkpointSlotLength - CheckpointSlotDescriptor.BODY_OFFSET;
    }

    /** Bytes of a checkpoint slot, header included (what a commit persists at most). */
    public long checkpointSlotLength() {
        return checkpointSlotLength;
    }

    /** Control words of every rank's checkpoint area that formatting clears (everything before the slots). */
    public long checkpointControlLength() {
        return config.checkpoints() ? checkpointSlotOffset : 0;
    }

    public int blockSize() {
        return blockSize;
    }
}
