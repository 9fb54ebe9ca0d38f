package org.lockstep.pcie.mailbox;

import org.lockstep.pcie.layout.LayoutConstants;

/**
 * The sender's cursors of one log ring ({@link org.lockstep.pcie.layout.LogRingDescriptor}):
 * where the next block goes and where the oldest retained block starts. Blocks are reserved one at
 * a time, then either committed (logged) or rolled back before anything else is reserved, and
 * released oldest first. Used under the endpoint's progress lock only.
 *
 * <p>The head wraps to the ring's start as soon as it is {@link #WARM_BYTES} in and the start is
 * free again, not only at the ring's end: while receivers checkpoint often enough the ring keeps
 * reusing the same cache-warm lines instead of streaming through cold memory.
 */
final class LogRing {
    static final long FAILED = HeapAllocator.FAILED;
    /** Bytes after which the head goes back to a free ring start. */
    static final long WARM_BYTES = 256 << 10;

    private final long start;
    private final long end;
    /** Next free byte. */
    private long head;
    /** Where the oldest retained block starts, or the wrap point before it; equal to {@code head} when none is retained. */
    private long tail;
    /** The head's position when it last wrapped while blocks before it were retained (the tail goes to the start there); -1 if none. */
    private long wrappedAt = -1;
    private int blocks;
    /** Bytes of the retained blocks (cache-line rounded), wrap markers not counted. */
    private long bytesInUse;
    // the pending reservation
    private long reservedBytes;
    private long headBeforeReservation = -1;
    private long tailBeforeReservation;
    private long wrappedAtBeforeReservation;
    private long wrapMarker = -1;
    /** The tail as last persisted in the device: a block may only commit once the tail word says where the walk starts. */
    private long persistedTail;

    LogRing(long start, long length) {
        this.start = start;
        this.end = start + length;
        this.head = start;
        this.tail = start;
        this.persistedTail = start;
    }

    /**
     * Restores the cursors found by a walk of the ring ({@link MessageLog#walkRing}); the tail word
     * holds {@code persistedTail} (behind {@code tail} when the walk dropped released blocks).
     */
    void restore(long tail, long head, long wrappedAt, int blocks, long bytesInUse, long persistedTail) {
        this.tail = tail;
        this.persistedTail = persistedTail;
        this.head = head;
        this.wrappedAt = blocks == 0 ? -1 : wrappedAt;
        this.blocks = blocks;
        this.bytesInUse = bytesInUse;
    }

    /**
     * Reserves {@code size} bytes (rounded to cache lines) for the next block, or returns
     * {@link #FAILED} if the retained blocks leave no room. At most one reservation is pending.
     */
    long reserve(long size) {
        long rounded = LayoutConstants.align(size, LayoutConstants.CACHE_LINE);
        headBeforeReservation = head;
        tailBeforeReservation = tail;
        wrappedAtBeforeReservation = wrappedAt;
        wrapMarker = -1;
        if (rounded >= end - start) {
            return FAILED;
        }
        if (blocks == 0 && (head + rounded > end || head - start >= WARM_BYTES)) {
            head = start; // nothing retained: start over (the tail word follows before the block commits)
            tail = start;
        }
        long offset;
        if (head >= tail && wrappedAt < 0) {
            boolean startIsFree = start + rounded < tail;
            if (head + rounded <= end && !(startIsFree && head - start >= WARM_BYTES)) {
                offset = head;
            } else if (startIsFree) {
                wrapMarker = head < end ? head : -1;
                wrappedAt = head;
                offset = start;
            } else {
                return FAILED;
            }
        } else if (head + rounded < tail) {
            offset = head;
        } else {
            return FAILED;
        }
        head = offset + rounded;
        reservedBytes = rounded;
        return offset;
    }

    /** Where the pending reservation's wrap marker must be written, or -1. */
    long wrapMarker() {
        return wrapMarker;
    }

    /** Whether the tail moved since it was last persisted (then the tail word must be persisted before a block commits). */
    boolean tailUnpersisted() {
        return tail != persistedTail;
    }

    /** The tail word now holds {@link #tail}. */
    void tailPersisted() {
        persistedTail = tail;
    }

    /** The pending reservation was logged. */
    void commit() {
        blocks++;
        bytesInUse += reservedBytes;
        headBeforeReservation = -1;
        wrapMarker = -1;
    }

    /** Undoes the pending reservation at {@code offset}; false if {@code offset} is not it (a heap block). */
    boolean rollback(long offset) {
        if (headBeforeReservation < 0 || offset < start || offset >= end) {
            return false;
        }
        head = headBeforeReservation;
        tail = tailBeforeReservation; // an empty ring's reservation may have moved it to the start
        wrappedAt = wrappedAtBeforeReservation;
        headBeforeReservation = -1;
        wrapMarker = -1;
        return true;
    }

    /** Whether {@code offset} lies in this ring. */
    boolean contains(long offset) {
        return offset >= start && offset < end;
    }

    /** Where the oldest retained block starts (only while {@link #blocks} is not 0). */
    long oldest() {
        return tail == wrappedAt || tail == end ? start : tail;
    }

    /** Releases the oldest retained block, of {@code size} bytes. */
    void release(long size) {
        if (blocks == 0) {
            throw new IllegalStateException("release of a log ring block with none retained in [" + start + ", " + end + ")");
        }
        long offset = oldest();
        if (offset == start && tail != start) {
            wrappedAt = -1; // the tail follows the head's wrap
        }
        blocks--;
        bytesInUse -= LayoutConstants.align(size, LayoutConstants.CACHE_LINE);
        tail = offset + LayoutConstants.align(size, LayoutConstants.CACHE_LINE);
        if (blocks == 0) {
            tail = head;
            wrappedAt = -1;
        }
    }

    long bytesInUse() {
        return bytesInUse;
    }

    long tail() {
        return tail;
    }

    long head() {
        return head;
    }

    int blocks() {
        return blocks;
    }

    long start() {
        return start;
    }

    long end() {
        return end;
    }
}
