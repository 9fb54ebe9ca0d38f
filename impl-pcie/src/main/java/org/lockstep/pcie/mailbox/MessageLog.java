package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.function.IntPredicate;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.LogRingDescriptor;
import org.lockstep.pcie.layout.LoggedBlockDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.ring.SlotHeader;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.events.Events;

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
 * <p>This class is the log's policy as the transport sees it ({@link ChannelLog}: preamble, drop
 * of re-sends, when to reclaim, how long a full log may keep a send waiting); its parts are the
 * {@link SentLog} (rings, directory, reclamation), the {@link ConsumedSets}, the {@link MatchLog},
 * the {@link LogCheckpoint} (commit and read back) and, at a restart, the {@link LogRecovery}.
 *
 * <p>Used under the endpoint's progress lock only.
 */
class MessageLog implements ChannelLog {
    /** LoggedMessage messages, or idle progress rounds, between two looks at the receivers' release cursors. */
    private static final int RECLAIM_INTERVAL = 64;

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final TransportStatistics statistics;
    private final LogReader reader;

    private final SentLog sent;

    // receiver side
    private final ConsumedSets consumed;
    private final MatchLog matches;
    private final LogCheckpoint checkpoint;
    private final long incarnation;

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
        this.incarnation = incarnation;
        this.size = layout.config().worldSize();
        this.statistics = statistics;
        reader = new LogReader(device, layout, rank);
        sent = new SentLog(device, layout, rank, heap, statistics, reader);
        consumed = new ConsumedSets(size);
        matches = new MatchLog(device, layout, rank, statistics);
        checkpoint = new LogCheckpoint(device, layout, rank, incarnation, consumed, matches, reader, statistics);
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

    /** LoggedMessage messages retained for {@code dest}, in sequence order (tests). */
    List<LoggedMessage> retainedFor(int dest) {
        return sent.retainedFor(dest);
    }

    /** LoggedMessage messages of this rank to {@code dest} with a sequence number above {@code publishedThrough}, in order. */
    List<LoggedMessage> unpublished(int dest, long publishedThrough) {
        return sent.unpublished(dest, publishedThrough);
    }

    // ------------------------------------------------------------------ receiver

    @Override
    public long skipConsumed(int source, long next) {
        return consumed.skipConsumed(source, next);
    }

    // ------------------------------------------------------------------ checkpoint

    @Override
    public long committedEpoch() {
        return checkpoint.committedEpoch();
    }

    /** Commits checkpoint {@code committedEpoch + 1} ({@link LogCheckpoint#commit}); returns the bytes written. */
    @Override
    public long commit(long[] nextSendSequence, List<MemorySegment> state) {
        return checkpoint.commit(nextSendSequence, state);
    }

    // ------------------------------------------------------------------ recovery

    /**
     * Reads this rank's committed checkpoint and the log: restores the receive cursors and the
     * wildcard replay, rebuilds this rank's heap and retained messages from its own directory, and
     * collects, per source, the logged messages to this rank its checkpoint had not consumed.
     * Reads only (apart from the heap allocator in memory): a crash during recovery recovers again.
     */
    Recovery recover() {
        RestartEvent event = Events.begun(RestartEvent::new);
        Recovery recovery = new Recovery();
        recovery.sentAtCheckpoint = new long[size];
        long matchCursor = checkpoint.read(recovery);
        // Wildcard matches of the predecessor after the checkpoint, in order.
        matches.recover(matchCursor);
        new LogRecovery(device, layout, rank, reader, consumed, sent, statistics).collect(recovery);
        preamble = recovery.epoch > 0;
        if (Events.ended(event) && Recovery.isRestart(incarnation, recovery.epoch)) {
            event.rank = rank;
            event.incarnation = incarnation;
            event.epoch = recovery.epoch;
            event.messagesReplayed = recovery.messagesToReplay();
            event.commit();
        }
        return recovery;
    }

    /** Walks {@code sender}'s log ring to {@code dest} from its persisted tail; see {@link LogReader#walkRing}. */
    LogReader.RingWalk walkRing(int sender, int dest) {
        return reader.walkRing(sender, dest, Integer.MAX_VALUE);
    }

    @Override
    public String toString() {
        return "MessageLog[rank " + rank + ", epoch " + checkpoint.committedEpoch() + ", consumed " + consumed + "]";
    }
}
