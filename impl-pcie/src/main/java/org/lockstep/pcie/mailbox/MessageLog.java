package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.layout.CheckpointAreaDescriptor.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.time.Duration;
import java.util.TreeSet;
import java.util.function.IntPredicate;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.CheckpointSlotDescriptor;
import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.pcie.layout.LogRingDescriptor;
import org.lockstep.pcie.layout.LoggedBlockDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.ring.SlotHeader;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;

/**
 * One rank's share of the message log, when the job checkpoints: the device is the log and holds
 * no message twice (seed 001). Layout: {@link org.lockstep.pcie.layout.CheckpointAreaDescriptor}.
 *
 * <p>Sender side: every message is a block with a self-describing header
 * ({@link LoggedBlockDescriptor}) in the sender's log ring to its receiver
 * ({@link LogRingDescriptor}; block, then check word, each persisted), or, when too large for the
 * ring, a heap block named in the sender's log directory (block, then directory entry, each
 * persisted); only then is it published to the receiver — a message is durable before it becomes
 * visible. It is reclaimed when its receiver's release cursor, which the receiver advances only
 * after a committed checkpoint, has passed its sequence number.
 *
 * <p>Receiver side: which messages of each channel its program has consumed (a prefix, plus those
 * consumed out of order above it, as tags allow), and the order its wildcard receives matched.
 * A checkpoint stores both with the registered state; a restart reads them back and replays every
 * logged message that was not consumed, in sequence order.
 *
 * <p>Used under the endpoint's progress lock only.
 */
class MessageLog implements ChannelLog {
    /** Logged messages, or idle progress rounds, between two looks at the receivers' release cursors. */
    private static final int RECLAIM_INTERVAL = 64;

    /** A logged message this rank sent, retained until its receiver has checkpointed past it. */
    record Logged(int dest, long sequence, long block, long blockLength, long directoryIndex, int tag, int context,
                  long length, long messageLength, int flags) {
    }

    /** What a restart found in the committed checkpoint and in the log. */
    static final class Recovery {
        long epoch;
        /** The registered state section of the committed checkpoint, or null without one. */
        MemorySegment state;
        /** Per destination: the last sequence number sent at the checkpoint. */
        long[] sentAtCheckpoint;
        /** Per source: the logged messages to replay, in sequence order. */
        List<List<IncomingMessage>> replay = new ArrayList<>();
    }

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final long incarnation;
    private final HeapAllocator heap;
    private final TransportStatistics statistics;
    private final long directoryEntries;
    private final LogReader reader;

    // sender side
    /** Per destination: the log ring most logged blocks go to ({@link LogRingDescriptor}). */
    private final LogRing[] rings;
    /** Per destination: logged messages in heap blocks (too large for the ring), in sequence order. */
    private final ArrayDeque<Logged>[] heapBlocks;
    private final long[] freeDirectory;
    private int freeDirectoryCount;
    /** Per destination: the highest sequence number any incarnation of this rank has placed (re-sends up to it are dropped). */
    private final long[] placedThrough;

    // receiver side
    private final ConsumedSets consumed;
    private final MatchLog matches;
    private long committedEpoch;

    /** Receivers that have ended for good: what was logged for them is reclaimed at once. */
    private final IntPredicate gone;
    /** How long a send waits for room in a full log before it fails. */
    private final Duration fullWait;
    /**
     * A restarted incarnation that has a checkpoint to resume, until the program restores it: what
     * it sends meanwhile sets the program up again and is no part of the resumed execution, so it
     * goes outside the log ({@link org.lockstep.pcie.layout.SlotDescriptor#FLAG_PREAMBLE}).
     */
    private boolean preamble;
    /** When sends first found the log full; 0 while they do not. */
    private long fullSince;
    private int loggedSinceReclaim;

    @SuppressWarnings("unchecked")
    MessageLog(ExternalMemory device, MailboxLayout layout, int rank, long incarnation, HeapAllocator heap, TransportStatistics statistics,
               IntPredicate gone, Duration fullWait) {
        this.gone = gone;
        this.fullWait = fullWait;
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.size = layout.config().worldSize();
        this.incarnation = incarnation;
        this.heap = heap;
        this.statistics = statistics;
        this.directoryEntries = layout.config().logEntriesPerRank();
        if (directoryEntries > Integer.MAX_VALUE) {
            throw new LockstepException(ErrorClass.ARG, "a log directory of " + directoryEntries + " entries is too large");
        }
        heapBlocks = new ArrayDeque[size];
        for (int i = 0; i < size; i++) {
            heapBlocks[i] = new ArrayDeque<>();
        }
        freeDirectory = new long[(int) directoryEntries];
        rings = new LogRing[size];
        for (int d = 0; d < size; d++) {
            rings[d] = new LogRing(layout.logRing(rank, d), layout.logRingLength());
        }
        placedThrough = new long[size];
        reader = new LogReader(device, layout, rank);
        consumed = new ConsumedSets(size);
        matches = new MatchLog(device, layout, rank, statistics);
    }

    /** The message log of a job that checkpoints; the kit's faulty one when its self-test asks for it ({@link TransportFaults}). */
    static MessageLog open(ExternalMemory device, MailboxLayout layout, int rank, long incarnation, HeapAllocator heap,
                           TransportStatistics statistics, IntPredicate gone, RestartPolicy policy) {
        return policy.faults().breaksTheLog()
                ? new FaultyMessageLog(device, layout, rank, incarnation, heap, statistics, gone, policy.logFullWait(), policy.faults())
                : new MessageLog(device, layout, rank, incarnation, heap, statistics, gone, policy.logFullWait());
    }

    // ------------------------------------------------------------------ the channel log

    @Override
    public boolean retainsMessages() {
        return true;
    }

    @Override
    public boolean inPreamble() {
        return preamble;
    }

    @Override
    public void endPreamble() {
        preamble = false;
    }

    @Override
    public boolean placedBefore(int dest, long sequence) {
        return sequence <= placedThrough[dest];
    }

    @Override
    public long reserve(int dest, long blockLength) {
        long block = reserveInRing(dest, blockLength);
        if (block == LogRing.FAILED && reclaim()) {
            block = reserveInRing(dest, blockLength);
        }
        if (block == LogRing.FAILED && !hasDirectoryRoom()) {
            // a logged heap block needs a directory entry too
            reclaim();
            if (!hasDirectoryRoom()) {
                noteFull();
                return FULL;
            }
        }
        return block == LogRing.FAILED ? IN_HEAP : block;
    }

    @Override
    public void record(long block, long blockLength, int dest, SlotHeader h) {
        log(block, blockLength, dest, h.flags, h.sequence, h.tag, h.context, h.length, h.messageLength);
        fullSince = 0;
    }

    @Override
    public void published() {
        if (++loggedSinceReclaim == RECLAIM_INTERVAL) {
            // Keeps the rings' working set small: a checkpoint of the receiver frees its blocks soon after.
            loggedSinceReclaim = 0;
            reclaim();
        }
    }

    @Override
    public boolean reclaim() {
        return reclaim(gone);
    }

    @Override
    public boolean reclaimWhenIdle(int progressCalls) {
        return retainsAny() && (progressCalls % RECLAIM_INTERVAL == 0 || fullSince != 0) && reclaim();
    }

    @Override
    public void noteFull() {
        statistics.logFullWaits++;
        if (fullSince == 0) {
            fullSince = System.nanoTime();
        }
    }

    @Override
    public boolean fullTooLong() {
        if (fullSince != 0 && System.nanoTime() - fullSince > fullWait.toNanos()) {
            fullSince = 0;
            return true;
        }
        return false;
    }

    @Override
    public LockstepException fullError(long bytes, int reportedDest) {
        return new LockstepException(ErrorClass.NO_MEM, "rank " + rank + ": send of " + bytes + " bytes to rank "
                + reportedDest + " waited " + fullWait.toMillis() + " ms for room in the message log: "
                + statistics.retainedBytes + " bytes of " + layout.heapPartitionLength() + " in this rank's heap partition (log rings "
                + "included) are retained for receivers that "
                + "have not checkpointed past them; checkpoint more often or enlarge the device (" + MailboxOptions.HEAP_PER_RANK + ")");
    }

    @Override
    public boolean mayRepeat() {
        return true;
    }

    @Override
    public boolean retains(IncomingMessage message) {
        return !message.isSynchronous() && !message.isPreamble();
    }

    @Override
    public boolean logsWildcards() {
        return !preamble;
    }

    @Override
    public long[] replayedWildcard() {
        return preamble ? null : matches.nextReplayed();
    }

    @Override
    public void matched(ReceiveRequest request, IncomingMessage message) {
        if (!request.wildcard || message.isPreamble()) {
            return;
        }
        if (request.replayedSequence > 0) {
            if (message.sequence != request.replayedSequence) {
                throw new LockstepException(ErrorClass.INTERN, "rank " + rank + ": replayed wildcard receive matched sequence "
                        + message.sequence + " from rank " + message.source + ", the log says " + request.replayedSequence
                        + ": the program is not deterministic between checkpoint and crash");
            }
            return;
        }
        matches.log(message.source, message.sequence);
    }

    @Override
    public void consumed(int source, long first, long last) {
        if (first > 0) { // a preamble message (sequence 0) is no part of the channel
            consumed.consumed(source, first, last);
        }
    }

    // ------------------------------------------------------------------ sender

    /** Whether a directory entry is free for one more logged message. */
    boolean hasDirectoryRoom() {
        return freeDirectoryCount > 0;
    }

    /** The highest sequence number to {@code dest} that an earlier incarnation placed; a re-send up to it is dropped. */
    long placedThrough(int dest) {
        return placedThrough[dest];
    }

    /**
     * Reserves a block for the next logged message to {@code dest} in its log ring, or returns
     * {@link LogRing#FAILED} when the ring has no room (the caller then allocates from the heap).
     * The reservation is {@linkplain #log logged} or {@linkplain #rollback rolled back} before the
     * next one.
     */
    long reserveInRing(int dest, long blockLength) {
        return rings[dest].reserve(blockLength);
    }

    /** Undoes a ring reservation that was not logged; false if {@code block} is no ring block (a heap block). */
    @Override
    public boolean rollback(int dest, long block) {
        return rings[dest].rollback(block);
    }

    /**
     * Writes a logged block's header (the payload is written already) and makes the block durable:
     * in a log ring, block then check word, each persisted; a heap block is then also named in the
     * directory, persisted. After this returns, the message survives a crash of this process and
     * (on a persistent device) power loss, and may be published.
     */
    void log(long block, long blockLength, int dest, int flags, long sequence, int tag, int context, long length, long messageLength) {
        LogRing ring = rings[dest];
        long w0 = ((long) flags << 32) | (dest & 0xffffffffL);
        long w2 = ((long) context << 32) | (tag & 0xffffffffL);
        long index = -1;
        if (ring.contains(block)) {
            if (ring.tailUnpersisted()) {
                persistTail(dest);
            }
            long marker = ring.wrapMarker();
            if (marker >= 0) {
                writeHeader(marker, LogRingDescriptor.WRAP_DESTINATION & 0xffffffffL, sequence, 0, 0, 0, ring.end() - marker, true);
                device.persist(marker, LayoutConstants.CACHE_LINE);
            }
            long check = writeHeader(block, w0, sequence, w2, length, messageLength, blockLength, false);
            device.persist(block, HeapBlockDescriptor.blockLength(length));
            device.putLong(block + LoggedBlockDescriptor.CHECK_OFFSET, check);
            device.persist(block + LoggedBlockDescriptor.CHECK_OFFSET, Long.BYTES);
            ring.commit();
        } else {
            writeHeader(block, w0, sequence, w2, length, messageLength, blockLength, true);
            device.persist(block, HeapBlockDescriptor.blockLength(length));
            index = freeDirectory[--freeDirectoryCount];
            long entry = layout.directoryEntry(rank, index);
            device.putLongRelease(entry, block);
            device.persist(entry, DIRECTORY_ENTRY_LENGTH);
            // A ring block needs no record here: the ring's own headers say what it retains.
            heapBlocks[dest].addLast(new Logged(dest, sequence, block, blockLength, index, tag, context, length, messageLength, flags));
        }
        placedThrough[dest] = Math.max(placedThrough[dest], sequence);
        statistics.messagesLogged++;
        statistics.retainedBytes += LayoutConstants.align(blockLength, LayoutConstants.CACHE_LINE);
    }

    /** Writes a logged block's header words at {@code block}, the check word too if {@code withCheck}; returns the check. */
    private long writeHeader(long block, long w0, long sequence, long w2, long length, long messageLength, long blockLength,
                             boolean withCheck) {
        // Word stores: for one header line they cost less than a bulk copy through a scratch segment.
        long check = LoggedBlockDescriptor.check(w0, sequence, w2, length, messageLength, blockLength);
        device.putLong(block + LoggedBlockDescriptor.DESTINATION_OFFSET, w0);
        device.putLong(block + LoggedBlockDescriptor.SEQUENCE_OFFSET, sequence);
        device.putLong(block + LoggedBlockDescriptor.TAG_OFFSET, w2);
        device.putLong(block + LoggedBlockDescriptor.LENGTH_OFFSET, length);
        device.putLong(block + LoggedBlockDescriptor.MESSAGE_LENGTH_OFFSET, messageLength);
        device.putLong(block + LoggedBlockDescriptor.BLOCK_LENGTH_OFFSET, blockLength);
        if (withCheck) {
            device.putLong(block + LoggedBlockDescriptor.CHECK_OFFSET, check);
        }
        return check;
    }

    private void persistTail(int dest) {
        long word = layout.logRingTailAddress(rank, dest);
        device.putLongRelease(word, rings[dest].tail());
        device.persist(word, Long.BYTES);
        rings[dest].tailPersisted();
    }

    /**
     * Reclaims the logged messages that no restart can need any more: those up to each receiver's
     * release cursor, and all of those to receivers in {@code gone} (finished for good). Directory
     * entries are cleared and persisted before their blocks return to the heap, so that a crash
     * never leaves an entry naming a reused block.
     */
    boolean reclaim(IntPredicate gone) {
        List<Logged> freed = null;
        boolean any = false;
        for (int dest = 0; dest < size; dest++) {
            ArrayDeque<Logged> queue = heapBlocks[dest];
            LogRing ring = rings[dest];
            if (queue.isEmpty() && ring.blocks() == 0) {
                continue;
            }
            long cursor = gone.test(dest) ? Long.MAX_VALUE : device.getLongAcquire(layout.releaseCursorAddress(dest, rank));
            while (!queue.isEmpty() && queue.peekFirst().sequence() <= cursor) {
                if (freed == null) {
                    freed = new ArrayList<>();
                }
                freed.add(queue.pollFirst());
            }
            boolean ringReleased = false;
            while (ring.blocks() > 0) {
                long block = ring.oldest();
                if (device.getLong(block + LoggedBlockDescriptor.SEQUENCE_OFFSET) > cursor) {
                    break;
                }
                long blockLength = device.getLong(block + LoggedBlockDescriptor.BLOCK_LENGTH_OFFSET);
                ring.release(blockLength);
                released(blockLength);
                ringReleased = true;
            }
            if (ringReleased) {
                persistTail(dest); // before the space behind it is written again (the next reservation)
                any = true;
            }
        }
        if (freed == null) {
            return any;
        }
        long lowest = Long.MAX_VALUE;
        long highest = -1;
        for (Logged logged : freed) {
            device.putLong(layout.directoryEntry(rank, logged.directoryIndex()), 0);
            lowest = Math.min(lowest, logged.directoryIndex());
            highest = Math.max(highest, logged.directoryIndex());
        }
        // One persist over the span (freed indices cluster: the free list is a stack); persisting more is harmless.
        device.persist(layout.directoryEntry(rank, lowest), (highest - lowest + 1) * DIRECTORY_ENTRY_LENGTH);
        for (Logged logged : freed) {
            heap.release(logged.block(), logged.blockLength());
            freeDirectory[freeDirectoryCount++] = logged.directoryIndex();
            released(logged.blockLength());
        }
        return true;
    }

    private void released(long blockLength) {
        long bytes = LayoutConstants.align(blockLength, LayoutConstants.CACHE_LINE);
        statistics.retainedBytes -= bytes;
        statistics.bytesReclaimed += bytes;
        statistics.messagesReclaimed++;
    }

    @Override
    public long ringBytesInUse() {
        long bytes = 0;
        for (LogRing ring : rings) {
            bytes += ring.bytesInUse();
        }
        return bytes;
    }

    /** Whether anything is retained (reclamation has work). */
    boolean retainsAny() {
        return statistics.retainedBytes > 0;
    }

    /** Logged messages retained for {@code dest}, in sequence order (tests). */
    List<Logged> retainedFor(int dest) {
        return merged(ringBlocks(dest), heapBlocks[dest]);
    }

    private static List<Logged> merged(List<Logged> inRing, java.util.Collection<Logged> inHeap) {
        List<Logged> all = new ArrayList<>(inRing);
        all.addAll(inHeap);
        all.sort(Comparator.comparingLong(Logged::sequence));
        return all;
    }

    // ------------------------------------------------------------------ receiver

    @Override
    public long skipConsumed(int source, long next) {
        return consumed.skipConsumed(source, next);
    }

    /** Whether the message with {@code sequence} from {@code source} has been consumed (a duplicate). */
    boolean isConsumed(int source, long sequence) {
        return consumed.isConsumed(source, sequence);
    }

    // ------------------------------------------------------------------ checkpoint

    @Override
    public long committedEpoch() {
        return committedEpoch;
    }

    /**
     * Commits checkpoint {@code committedEpoch + 1}: transport cursors plus {@code state} (the
     * registered-state section) into the inactive slot, persisted; then the epoch word, persisted;
     * then the release cursors. Returns the bytes written.
     */
    @Override
    public long commit(long[] nextSendSequence, MemorySegment state) {
        long epoch = committedEpoch + 1;
        long matchCursor = matches.cursor();
        long transportWords = 2 + size + consumed.words(); // world size, consumed sets, per destination, match position
        long transportLength = transportWords * Long.BYTES;
        long bodyLength = transportLength + state.byteSize();
        if (bodyLength > layout.checkpointBodyCapacity()) {
            throw new LockstepException(ErrorClass.NO_MEM, "rank " + rank + ": a checkpoint of " + bodyLength
                    + " bytes does not fit the checkpoint slot of " + layout.checkpointBodyCapacity() + " bytes; raise "
                    + Checkpoints.STATE_BYTES_PROPERTY);
        }
        // The transport section is built here; the registered state goes to the device straight from its own memory.
        MemorySegment body = MemorySegment.ofArray(new long[(int) transportWords]);
        long at = 0;
        body.set(ValueLayout.JAVA_LONG, at, size);
        at += 8;
        at = consumed.write(body, at);
        for (int d = 0; d < size; d++) {
            body.set(ValueLayout.JAVA_LONG, at, nextSendSequence[d] - 1);
            at += 8;
        }
        body.set(ValueLayout.JAVA_LONG, at, matchCursor);
        long slot = layout.checkpointSlot(rank, (int) (epoch & 1));
        device.write(slot + CheckpointSlotDescriptor.BODY_OFFSET, body, 0, transportLength);
        if (state.byteSize() > 0) {
            device.write(slot + CheckpointSlotDescriptor.BODY_OFFSET + transportLength, state, 0, state.byteSize());
        }
        long check = CheckpointChecksum.of(epoch, bodyLength, body, transportWords, state);
        device.putLong(slot + CheckpointSlotDescriptor.EPOCH_OFFSET, epoch);
        device.putLong(slot + CheckpointSlotDescriptor.LENGTH_OFFSET, bodyLength);
        device.putLong(slot + CheckpointSlotDescriptor.CHECKSUM_OFFSET, check);
        device.putLong(slot + CheckpointSlotDescriptor.INCARNATION_OFFSET, incarnation);
        device.persist(slot, CheckpointSlotDescriptor.BODY_OFFSET + bodyLength);
        device.putLongRelease(layout.committedEpochAddress(rank), epoch);
        device.persist(layout.committedEpochAddress(rank), Long.BYTES);
        committedEpoch = epoch;
        matches.committed(matchCursor);
        // Only a committed checkpoint may release anything.
        for (int s = 0; s < size; s++) {
            device.putLongRelease(layout.releaseCursorAddress(rank, s), consumed.prefix(s));
        }
        device.persist(layout.releaseCursorAddress(rank, 0), (long) size * Long.BYTES);
        statistics.checkpoints++;
        statistics.checkpointBytes += bodyLength;
        return CheckpointSlotDescriptor.BODY_OFFSET + bodyLength;
    }

    // ------------------------------------------------------------------ recovery

    /**
     * Reads this rank's committed checkpoint and the log: restores the receive cursors and the
     * wildcard replay, rebuilds this rank's heap and retained messages from its own directory, and
     * collects, per source, the logged messages to this rank its checkpoint had not consumed.
     * Reads only (apart from the heap allocator in memory): a crash during recovery recovers again.
     */
    Recovery recover() {
        Recovery recovery = new Recovery();
        recovery.sentAtCheckpoint = new long[size];
        long epoch = device.getLongAcquire(layout.committedEpochAddress(rank));
        long matchCursor = 0;
        if (epoch < 0) {
            throw corrupt("committed epoch " + epoch);
        }
        if (epoch > 0) {
            LogReader.CheckpointBody read = reader.checkpointBody(epoch);
            MemorySegment body = read.body();
            long length = read.length();
            long at = 0;
            if (length < 8 || body.get(ValueLayout.JAVA_LONG, 0) != size) {
                throw corrupt("checkpoint of epoch " + epoch + " is for another world size");
            }
            at += 8;
            try {
                at = consumed.read(body, at);
                for (int d = 0; d < size; d++, at += 8) {
                    recovery.sentAtCheckpoint[d] = body.get(ValueLayout.JAVA_LONG, at);
                }
                matchCursor = body.get(ValueLayout.JAVA_LONG, at);
                at += 8;
            } catch (IndexOutOfBoundsException e) {
                throw corrupt("checkpoint of epoch " + epoch + " ends inside its transport section");
            }
            recovery.state = body.asSlice(at, length - at);
            recovery.epoch = epoch;
        }
        committedEpoch = epoch;
        // Wildcard matches of the predecessor after the checkpoint, in order.
        matches.recover(matchCursor);
        recoverDirectories(recovery);
        preamble = recovery.epoch > 0;
        return recovery;
    }

    private void recoverDirectories(Recovery recovery) {
        List<Logged> mine = new ArrayList<>();
        boolean[] used = new boolean[(int) directoryEntries];
        for (int source = 0; source < size; source++) {
            List<IncomingMessage> toReplay = new ArrayList<>();
            for (long index = 0; index < directoryEntries; index++) {
                long block = device.getLongAcquire(layout.directoryEntry(source, index));
                if (block == 0) {
                    continue;
                }
                layout.checkHeapRange(source, block, 0);
                Logged logged = reader.readBlock(source, block, index);
                if (logged == null) {
                    continue; // torn or stale: never a message anyone consumed (blocks are persisted before they are named)
                }
                if (source == rank) {
                    mine.add(logged);
                    used[(int) index] = true;
                }
                if (logged.dest() == rank && !isConsumed(source, logged.sequence())) {
                    toReplay.add(LogReader.replayed(source, logged));
                }
            }
            if (source != rank) {
                for (Logged logged : reader.walkRing(source, rank, Integer.MAX_VALUE).blocks()) {
                    if (!isConsumed(source, logged.sequence())) {
                        toReplay.add(LogReader.replayed(source, logged));
                    }
                }
            } else {
                for (int dest = 0; dest < size; dest++) {
                    LogReader.RingWalk walk = reader.walkRing(rank, dest, Integer.MAX_VALUE);
                    // Leading blocks the receiver's checkpoint has released are gone already (an empty ring's
                    // walk reads an earlier lap): the ring restarts at the first block still retained.
                    long released = device.getLongAcquire(layout.releaseCursorAddress(dest, rank));
                    List<Logged> kept = walk.blocks();
                    int drop = 0;
                    while (drop < kept.size() && kept.get(drop).sequence() <= released) {
                        placedThrough[dest] = Math.max(placedThrough[dest], kept.get(drop).sequence());
                        drop++;
                    }
                    kept = kept.subList(drop, kept.size());
                    long bytes = 0;
                    for (Logged logged : kept) {
                        bytes += LayoutConstants.align(logged.blockLength(), LayoutConstants.CACHE_LINE);
                        placedThrough[dest] = Math.max(placedThrough[dest], logged.sequence());
                    }
                    long tail = kept.isEmpty() ? walk.head() : kept.get(0).block();
                    // a first block before the walk's tail lies after the wrap: the wrap is behind the ring then
                    long wrappedAt = kept.isEmpty() || tail < walk.tail() ? -1 : walk.wrappedAt();
                    rings[dest].restore(tail, walk.head(), wrappedAt, kept.size(), bytes, walk.tail());
                    statistics.retainedBytes += bytes;
                    if (dest == rank) {
                        for (Logged logged : walk.blocks()) {
                            if (!isConsumed(rank, logged.sequence())) {
                                toReplay.add(LogReader.replayed(rank, logged));
                            }
                        }
                    }
                }
            }
            toReplay.sort(Comparator.comparingLong(m -> m.sequence));
            recovery.replay.add(toReplay);
            statistics.messagesReplayed += toReplay.size();
        }
        mine.sort(Comparator.comparingLong(Logged::sequence));
        for (Logged logged : mine) {
            if (!heap.reserve(logged.block(), logged.blockLength())) {
                throw corrupt("log directory entries of rank " + rank + " overlap at heap block " + logged.block());
            }
            heapBlocks[logged.dest()].addLast(logged);
            placedThrough[logged.dest()] = Math.max(placedThrough[logged.dest()], logged.sequence());
            statistics.retainedBytes += LayoutConstants.align(logged.blockLength(), LayoutConstants.CACHE_LINE);
        }
        for (int d = 0; d < size; d++) {
            placedThrough[d] = Math.max(placedThrough[d], Math.max(recovery.sentAtCheckpoint[d],
                    device.getLongAcquire(layout.releaseCursorAddress(d, rank))));
        }
        freeDirectoryCount = 0;
        for (long index = directoryEntries - 1; index >= 0; index--) {
            if (!used[(int) index]) {
                freeDirectory[freeDirectoryCount++] = index;
            }
        }
    }

    /**
     * Walks {@code sender}'s log ring to {@code dest} from its persisted tail
     * ({@link LogRingDescriptor}); see {@link LogReader#walkRing}.
     */
    LogReader.RingWalk walkRing(int sender, int dest) {
        return reader.walkRing(sender, dest, Integer.MAX_VALUE);
    }

    /** This rank's retained blocks in its ring to {@code dest}: a walk of as many blocks as the ring holds. */
    private List<Logged> ringBlocks(int dest) {
        return reader.walkRing(rank, dest, rings[dest].blocks()).blocks();
    }

    /** Logged messages of this rank, per destination, with a sequence number above {@code publishedThrough[dest]}, in order. */
    List<Logged> unpublished(int dest, long publishedThrough) {
        List<Logged> result = new ArrayList<>();
        for (Logged logged : merged(ringBlocks(dest), heapBlocks[dest])) {
            if (logged.sequence() > publishedThrough) {
                result.add(logged);
            }
        }
        return result;
    }

    private DeviceException corrupt(String what) {
        return new DeviceException(ErrorClass.INTERN, "corrupt device " + device.name() + ": rank " + rank + "'s " + what);
    }

    @Override
    public String toString() {
        return "MessageLog[rank " + rank + ", epoch " + committedEpoch + ", consumed " + consumed + "]";
    }
}
