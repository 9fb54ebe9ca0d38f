package org.lockstep.pcie.mailbox;

import java.util.Arrays;

import org.lockstep.pcie.layout.LayoutConstants;

/**
 * First-fit allocator with coalescing over one sender's heap partition. Only the sender allocates
 * and frees in its partition, so the allocator lives in the sender's memory and needs no device
 * atomics; receivers only read the payloads and release the slots that point at them.
 *
 * <p>The free extents are two parallel arrays sorted by start (disjoint, never adjacent), so that
 * a message's allocate and release box nothing and allocate no entry: every indirect message takes
 * a block and gives it back (a map of boxed offsets made 173 bytes of garbage per 4 KiB message,
 * Dec 2026).
 */
final class HeapAllocator {
    static final long FAILED = -1;

    private final long base;
    private final long length;
    /** Free extents, sorted by start: {@code [starts[i], starts[i] + lengths[i])} for {@code i < count}. */
    private long[] starts = new long[16];
    private long[] lengths = new long[16];
    private int count;
    private long bytesInUse;

    HeapAllocator(long base, long length) {
        this.base = base;
        this.length = length;
        if (length > 0) {
            insertAt(0, base, length);
        }
    }

    /** A block of at least {@code size} bytes, cache-line aligned, or {@link #FAILED}. */
    long allocate(long size) {
        long rounded = rounded(size);
        for (int i = 0; i < count; i++) {
            if (lengths[i] >= rounded) {
                long start = starts[i];
                takeFromBottom(i, rounded);
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
        long rounded = rounded(size);
        for (int i = count - 1; i >= 0; i--) {
            long rest = lengths[i] - rounded;
            if (rest >= 0) {
                long block = starts[i] + rest;
                if (rest > 0) {
                    lengths[i] = rest; // the extent keeps its start and loses its top
                } else {
                    removeAt(i);
                }
                bytesInUse += rounded;
                return block;
            }
        }
        return FAILED;
    }

    /** Returns the block at {@code offset} of the {@code size} it was allocated with. */
    void release(long offset, long size) {
        long rounded = rounded(size);
        if (offset < base || offset + rounded > base + length) {
            throw new IllegalStateException("release of [" + offset + ", +" + rounded + ") outside the heap partition");
        }
        int before = floorIndex(offset);
        if (before >= 0 && starts[before] + lengths[before] > offset) {
            throw new IllegalStateException("double release of heap block at " + offset);
        }
        int after = before + 1;
        if (after < count && starts[after] < offset + rounded) {
            throw new IllegalStateException("double release of heap block at " + offset);
        }
        boolean joinsBefore = before >= 0 && starts[before] + lengths[before] == offset;
        boolean joinsAfter = after < count && starts[after] == offset + rounded;
        if (joinsBefore && joinsAfter) {
            lengths[before] += rounded + lengths[after];
            removeAt(after);
        } else if (joinsBefore) {
            lengths[before] += rounded;
        } else if (joinsAfter) {
            starts[after] = offset;
            lengths[after] += rounded;
        } else {
            insertAt(after, offset, rounded);
        }
        bytesInUse -= rounded;
    }

    /**
     * Marks the block at {@code offset} of {@code size} bytes as in use, as {@link #allocate} would
     * have: a restarted sender rebuilds its heap from the blocks its log directory names.
     *
     * @return false if the block is not wholly free (two directory entries overlap: corruption)
     */
    boolean reserve(long offset, long size) {
        long rounded = rounded(size);
        int i = floorIndex(offset);
        if (i < 0 || starts[i] + lengths[i] < offset + rounded || offset < base) {
            return false;
        }
        long start = starts[i];
        long end = start + lengths[i];
        if (offset > start) {
            lengths[i] = offset - start;
            if (end > offset + rounded) {
                insertAt(i + 1, offset + rounded, end - offset - rounded);
            }
        } else {
            takeFromBottom(i, rounded);
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
        for (int i = 0; i < count; i++) {
            largest = Math.max(largest, lengths[i]);
        }
        return largest;
    }

    long capacity() {
        return length;
    }

    private static long rounded(long size) {
        return LayoutConstants.align(Math.max(size, 1), LayoutConstants.CACHE_LINE);
    }

    /** Extent {@code i} loses its first {@code bytes} bytes (all of it: it goes). */
    private void takeFromBottom(int i, long bytes) {
        if (lengths[i] > bytes) {
            starts[i] += bytes;
            lengths[i] -= bytes;
        } else {
            removeAt(i);
        }
    }

    /** The index of the last extent that starts at or below {@code offset}, or -1. */
    private int floorIndex(long offset) {
        int found = Arrays.binarySearch(starts, 0, count, offset);
        return found >= 0 ? found : -found - 2;
    }

    private void insertAt(int i, long start, long extent) {
        if (count == starts.length) {
            starts = Arrays.copyOf(starts, 2 * count);
            lengths = Arrays.copyOf(lengths, 2 * count);
        }
        System.arraycopy(starts, i, starts, i + 1, count - i);
        System.arraycopy(lengths, i, lengths, i + 1, count - i);
        starts[i] = start;
        lengths[i] = extent;
        count++;
    }

    private void removeAt(int i) {
        System.arraycopy(starts, i + 1, starts, i, count - i - 1);
        System.arraycopy(lengths, i + 1, lengths, i, count - i - 1);
        count--;
    }
}
