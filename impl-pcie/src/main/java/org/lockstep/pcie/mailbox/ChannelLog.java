package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.List;

import org.lockstep.api.LockstepException;
import org.lockstep.pcie.ring.SlotHeader;

/**
 * What the sender and receiver of the mailbox transport keep of each channel's messages for a
 * restart: {@link #NONE} when the job does not checkpoint (every call does nothing, or says so),
 * the {@link MessageLog} when it does — the device is then the message log of seed 001: every
 * message is durable before it is published and retained until its receiver's committed
 * checkpoint has consumed it; re-sends of a restarted sender are dropped, what it placed but never
 * published is published again, wildcard receives replay their logged matches, and a restarted
 * rank's traffic before it restores its checkpoint (its preamble) goes outside the log.
 *
 * <p>Used under the endpoint's lock.
 */
interface ChannelLog {
    /** What {@link #reserve} returns when the ring has no room: the caller takes a heap block. */
    long IN_HEAP = HeapAllocator.FAILED;
    /** What {@link #reserve} returns when the log can take no more messages until receivers checkpoint. */
    long FULL = -2;

    /** The log of a job that does not checkpoint. */
    ChannelLog NONE = new ChannelLog() { };

    /** Whether messages are retained for restarts (every one then goes through a heap block or log ring). */
    default boolean retainsMessages() {
        return false;
    }

    /** Whether a restarted rank is still in its preamble: it has not restored its checkpoint yet. */
    default boolean inPreamble() {
        return false;
    }

    /** The program restored its checkpoint: its sends from here on re-execute what its predecessor did. */
    default void endPreamble() {
    }

    // ------------------------------------------------------------------ sender

    /** Whether message {@code sequence} to {@code dest} was placed by a predecessor: a re-send, dropped. */
    default boolean placedBefore(int dest, long sequence) {
        return false;
    }

    /**
     * Reserves a block for a logged message to {@code dest} in its log ring: its offset,
     * {@link #IN_HEAP} when the ring has no room (a heap block it is), or {@link #FULL}.
     */
    default long reserve(int dest, long blockLength) {
        return IN_HEAP;
    }

    /** Undoes a ring reservation that was not logged; false if {@code block} is no ring block (a heap block). */
    default boolean rollback(int dest, long block) {
        return false;
    }

    /** Makes the block of the message described by {@code header} to {@code dest} durable, before it is published. */
    default void record(long block, long blockLength, int dest, SlotHeader header) {
    }

    /** A recorded message has been published. */
    default void published() {
    }

    /** Frees what no restart can need any more; whether anything was freed. */
    default boolean reclaim() {
        return false;
    }

    /** An idle progress round: frees what no restart can need any more, now and then; whether anything was freed. */
    default boolean reclaimWhenIdle(int progressCalls) {
        return false;
    }

    /** A send found no room for its block: the log is full (until receivers checkpoint). */
    default void noteFull() {
    }

    /** Whether the log has been full for longer than a send may wait; clears the mark when it says so. */
    default boolean fullTooLong() {
        return false;
    }

    /** The error of a send of {@code bytes} to {@code reportedDest} that waited too long for room in the log. */
    default LockstepException fullError(long bytes, int reportedDest) {
        throw new IllegalStateException("no message log");
    }

    /** Bytes the log rings hold. */
    default long ringBytesInUse() {
        return 0;
    }

    // ------------------------------------------------------------------ receiver

    /** Whether a message may arrive twice (replayed and published, or republished): later copies are dropped. */
    default boolean mayRepeat() {
        return false;
    }

    /** Whether a received message's payload stays in the device after it is consumed (retained for restarts). */
    default boolean retains(IncomingMessage message) {
        return false;
    }

    /** The first sequence number at or after {@code next} from {@code source} that a restored checkpoint has not consumed. */
    default long skipConsumed(int source, long next) {
        return next;
    }

    /** Whether an ANY_SOURCE receive posted now has its match logged (or replayed). */
    default boolean logsWildcards() {
        return false;
    }

    /**
     * The match a restarted rank's next wildcard receive must repeat, {source, sequence}, or null
     * when there is none (then it matches freely).
     */
    default long[] replayedWildcard() {
        return null;
    }

    /** A receive matched {@code message}: a wildcard match is logged (persisted) before the receive completes. */
    default void matched(ReceiveRequest request, IncomingMessage message) {
    }

    /** The program has consumed a whole message from {@code source}, fragments {@code first..last}. */
    default void consumed(int source, long first, long last) {
    }

    // ------------------------------------------------------------------ checkpoint and restart

    /** Commits a checkpoint: cursors plus the state section, {@code state}'s pieces in order; returns the bytes written. */
    default long commit(long[] nextSendSequence, List<MemorySegment> state) {
        throw new IllegalStateException("no message log");
    }

    default long committedEpoch() {
        return 0;
    }
}
