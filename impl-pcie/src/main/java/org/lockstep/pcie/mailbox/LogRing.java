package org.lockstep.pcie.mailbox;

import org.lockstep.pcie.layout.LayoutConstants;

/**
 * The sender's cursors of one log ring ({@link org.lockstep.pcie.layout.LogRingDescriptor}):
 * where the next block goes and where the oldest retained block starts. Blocks are reserved one at
 * a time, then either committed (logged) or rolled back before anything else is reserved, and
 * released in the order they were committed. Used under the endpoint's progress lock only.
 */
final class LogRing {
    static final long FAILED = HeapAllocator.FAILED;

    private final long start;
    private final long end;
    /** Next free byte. */
    private long head;
    /** Start of the oldest retained block; equal to {@code head} when none is retained. */
    private long tail;
    private int blocks;
    /** Bytes of the retained blocks (cache-line rounded), wrap markers not counted. */
    private long bytesInUse;
    private long reservedBytes;
    /** Cursor state before the pending reservation, for a roll-back. */
    private long headBeforeReservation = -1;
    /** Where the wrap marker of the pending reservation goes, or -1 when it does not wrap (or needs no marker). */
    private long wrapMarker = -1;
    /** The tail moved to the ring's start for the pending reservation: persist it before the block commits. */
    private boolean tailMoved;

    LogRing(long start, long length) {
        this.start = start;
        this.end = start + length;
        this.head = start;
        this.tail = start;
    }

    /** Restores the cursors found by a walk of the ring ({@link MessageLog#recover}). */
    void restore(long tail, long head, int blocks, long bytesInUse) {
        this.tail = tail;
        this.head = head;
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
        wrapMarker = -1;
        tailMoved = false;
        if (rounded >= end - start) {
            return FAILED;
        }
        if (blocks == 0 && head + rounded > end) {
            head = start; // nothing retained: start over at the ring's start instead of wrapping
            tail = start;
            tailMoved = true;
        }
        long offset;
        if (head >= tail) {
            if (head + rounded <= end) {
                offset = head;
            } else if (start + rounded < tail) {
                wrapMarker = head < end ? head : -1;
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

    /** Whether the pending reservation moved the tail to the ring's start (the tail word must be persisted first). */
    boolean tailMoved() {
        return tailMoved;
    }

    /** The pending reservation was logged. */
    void commit() {
        blocks++;
        bytesInUse += reservedBytes;
        headBeforeReservation = -1;
        wrapMarker = -1;
        tailMoved = false;
    }

    /** Undoes the pending reservation at {@code offset}; false if {@code offset} is not it (a heap block). */
    boolean rollback(long offset) {
        if (headBeforeReservation < 0 || offset < start || offset >= end) {
            return false;
        }
        head = headBeforeReservation;
        headBeforeReservation = -1;
        wrapMarker = -1;
        return true;
    }

    /** Whether {@code offset} lies in this ring. */
    boolean contains(long offset) {
        return offset >= start && offset < end;
    }

    /** Releases the oldest retained block, {@code size} bytes at {@code offset}. */
    void release(long offset, long size) {
        if (blocks == 0 || !contains(offset)) {
            throw new IllegalStateException("release of log ring block " + offset + " with " + blocks + " blocks retained in ["
                    + start + ", " + end + ")");
        }
        blocks--;
        bytesInUse -= LayoutConstants.align(size, LayoutConstants.CACHE_LINE);
        tail = blocks == 0 ? head : offset + LayoutConstants.align(size, LayoutConstants.CACHE_LINE);
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
