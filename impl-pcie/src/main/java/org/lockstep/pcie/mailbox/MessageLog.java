package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.layout.CheckpointAreaDescriptor.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntPredicate;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.CheckpointSlotDescriptor;
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
    private final LogReader reader;

    private final SentLog sent;

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
        reader = new LogReader(device, layout, rank);
        sent = new SentLog(device, layout, rank, heap, statistics, reader);
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
        return sequence <= sent.placedThrough(dest);
    }

    @Override
    public long reserve(int dest, long blockLength) {
        long block = sent.reserveInRing(dest, blockLength);
        if (block == LogRing.FAILED && reclaim()) {
            block = sent.reserveInRing(dest, blockLength);
        }
        if (block == LogRing.FAILED && !sent.hasDirectoryRoom()) {
            // a logged heap block needs a directory entry too
            reclaim();
            if (!sent.hasDirectoryRoom()) {
                noteFull();
                return FULL;
            }
        }
        return block == LogRing.FAILED ? IN_HEAP : block;
    }

    @Override
    public void record(long block, long blockLength, int dest, SlotHeader h) {
        sent.log(block, blockLength, dest, h.flags, h.sequence, h.tag, h.context, h.length, h.messageLength);
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
        return sent.reclaim(gone);
    }

    @Override
    public boolean reclaimWhenIdle(int progressCalls) {
        return statistics.retainedBytes > 0 && (progressCalls % RECLAIM_INTERVAL == 0 || fullSince != 0) && reclaim();
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

    /** Undoes a ring reservation that was not logged; false if {@code block} is no ring block (a heap block). */
    @Override
    public boolean rollback(int dest, long block) {
        return sent.rollback(dest, block);
    }

    @Override
    public long ringBytesInUse() {
        return sent.ringBytesInUse();
    }

    /** Logged messages retained for {@code dest}, in sequence order (tests). */
    List<Logged> retainedFor(int dest) {
        return sent.retainedFor(dest);
    }

    /** Logged messages of this rank to {@code dest} with a sequence number above {@code publishedThrough}, in order. */
    List<Logged> unpublished(int dest, long publishedThrough) {
        return sent.unpublished(dest, publishedThrough);
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

    /**
     * Per source, the logged messages to this rank its checkpoint had not consumed (from the
     * source's directory and its ring to this rank), in sequence order; and this rank's own
     * sent log, rebuilt from its directory and rings.
     */
    private void recoverDirectories(Recovery recovery) {
        long entries = layout.config().logEntriesPerRank();
        List<Logged> mine = new ArrayList<>();
        boolean[] used = new boolean[(int) entries];
        for (int source = 0; source < size; source++) {
            List<IncomingMessage> toReplay = new ArrayList<>();
            for (long index = 0; index < entries; index++) {
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
                replayFrom(source, reader.walkRing(source, rank, Integer.MAX_VALUE).blocks(), toReplay);
            } else {
                for (int dest = 0; dest < size; dest++) {
                    LogReader.RingWalk walk = reader.walkRing(rank, dest, Integer.MAX_VALUE);
                    sent.restoreRing(dest, walk, device.getLongAcquire(layout.releaseCursorAddress(dest, rank)));
                    if (dest == rank) {
                        replayFrom(rank, walk.blocks(), toReplay);
                    }
                }
            }
            toReplay.sort(Comparator.comparingLong(m -> m.sequence));
            recovery.replay.add(toReplay);
            statistics.messagesReplayed += toReplay.size();
        }
        sent.restoreHeapBlocks(mine, used);
        for (int d = 0; d < size; d++) {
            sent.placed(d, Math.max(recovery.sentAtCheckpoint[d], device.getLongAcquire(layout.releaseCursorAddress(d, rank))));
        }
    }

    /** Adds the blocks of a ring walk from {@code source} that the checkpoint had not consumed to {@code toReplay}. */
    private void replayFrom(int source, List<Logged> blocks, List<IncomingMessage> toReplay) {
        for (Logged logged : blocks) {
            if (!isConsumed(source, logged.sequence())) {
                toReplay.add(LogReader.replayed(source, logged));
            }
        }
    }

    /** Walks {@code sender}'s log ring to {@code dest} from its persisted tail; see {@link LogReader#walkRing}. */
    LogReader.RingWalk walkRing(int sender, int dest) {
        return reader.walkRing(sender, dest, Integer.MAX_VALUE);
    }

    private DeviceException corrupt(String what) {
        return new DeviceException(ErrorClass.INTERN, "corrupt device " + device.name() + ": rank " + rank + "'s " + what);
    }

    @Override
    public String toString() {
        return "MessageLog[rank " + rank + ", epoch " + committedEpoch + ", consumed " + consumed + "]";
    }
}
