package org.lockstep.pcie.mailbox;

import java.util.Map;
import java.util.TreeMap;

import org.lockstep.pcie.layout.LayoutConstants;

/**
 * First-fit allocator with coalescing over one sender's heap partition. Only the sender allocates
 * and frees in its partition, so the allocator lives in the sender's memory and needs no device
 * atomics; receivers only read the payloads and release the slots that point at them.
 */
final class HeapAllocator {
    static final long FAILED = -1;

    private final long base;
    private final long length;
    /** Free extents: start offset to length, disjoint and never adjacent. */
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private long bytesInUse;

    HeapAllocator(long base, long length) {
        this.base = base;
        this.length = length;
        if (length > 0) {
            free.put(base, length);
        }
    }

    /** A block of at least {@code size} bytes, cache-line aligned, or {@link #FAILED}. */
    long allocate(long size) {
        long rounded = LayoutConstants.align(Math.max(size, 1), LayoutConstants.CACHE_LINE);
        for (Map.Entry<Long, Long> extent : free.entrySet()) {
            if (extent.getValue() >= rounded) {
                long start = extent.getKey();
                long rest = extent.getValue() - rounded;
                free.remove(start);
                if (rest > 0) {
                    free.put(start + rounded, rest);
                }
                bytesInUse += rounded;
                return start;
            }
        }
        return FAILED;
    }

    /**
     * Like {@link #allocate} but from the highest free extent that fits, at its end: long-lived
     * buffers collect at the top of the partition and leave the bottom to short-lived payloads.
     */
    long allocateFromTop(long size) {
        long rounded = LayoutConstants.align(Math.max(size, 1), LayoutConstants.CACHE_LINE);
        for (Map.Entry<Long, Long> extent : free.descendingMap().entrySet()) {
            // read before the map changes: TreeMap reuses a removed inner node for its successor,
            // so the entry would then name the next higher extent (a block past this one's end)
            long start = extent.getKey();
            long rest = extent.getValue() - rounded;
            if (rest >= 0) {
                if (rest > 0) {
                    free.put(start, rest); // the extent keeps its start and loses its top
                } else {
                    free.remove(start);
                }
                bytesInUse += rounded;
                return start + rest;
            }
        }
        return FAILED;
    }

    /** Returns the block at {@code offset} of the {@code size} it was allocated with. */
    void release(long offset, long size) {
        long rounded = LayoutConstants.align(Math.max(size, 1), LayoutConstants.CACHE_LINE);
        if (offset < base || offset + rounded > base + length) {
            throw new IllegalStateException("release of [" + offset + ", +" + rounded + ") outside the heap partition");
        }
        long start = offset;
        long extent = rounded;
        Map.Entry<Long, Long> before = free.floorEntry(offset);
        if (before != null && before.getKey() + before.getValue() > offset) {
            throw new IllegalStateException("double release of heap block at " + offset);
        }
        if (before != null && before.getKey() + before.getValue() == offset) {
            start = before.getKey();
            extent += before.getValue();
            free.remove(before.getKey());
        }
        Long after = free.ceilingKey(offset);
        if (after != null && after < offset + rounded) {
            throw new IllegalStateException("double release of heap block at " + offset);
        }
        if (after != null && after == offset + rounded) {
            extent += free.remove(after);
        }
        free.put(start, extent);
        bytesInUse -= rounded;
    }

    /**
     * Marks the block at {@code offset} of {@code size} bytes as in use, as {@link #allocate} would
     * have: a restarted sender rebuilds its heap from the blocks its log directory names.
     *
     * @return false if the block is not wholly free (two directory entries overlap: corruption)
     */
    boolean reserve(long offset, long size) {
        long rounded = LayoutConstants.align(Math.max(size, 1), LayoutConstants.CACHE_LINE);
        Map.Entry<Long, Long> extent = free.floorEntry(offset);
        if (extent == null || extent.getKey() + extent.getValue() < offset + rounded || offset < base) {
            return false;
        }
        long start = extent.getKey();
        long end = start + extent.getValue();
        free.remove(start);
        if (offset > start) {
            free.put(start, offset - start);
        }
        if (end > offset + rounded) {
            free.put(offset + rounded, end - offset - rounded);
        }
        bytesInUse += rounded;
        return true;
    }

    long bytesInUse() {
        return bytesInUse;
    }

    /** The largest free extent: what one allocation can get, however much is free in all. */
    long largestFree() {
        long largest = 0;
        for (long extent : free.values()) {
            largest = Math.max(largest, extent);
        }
        return largest;
    }

    long capacity() {
        return length;
    }
}
