package org.lockstep.embsp.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The context allocator of seed 003 §6 (PEMS2): the chunks of one context of {@code capacity}
 * bytes, kept in ordered maps (balanced trees) by offset. An allocation takes the first free chunk
 * from the lowest address that is large enough and splits its start off; a free merges the chunk
 * with free neighbours, so that freed memory is reused and fragmentation stays bounded by the
 * program's own pattern. Offsets and sizes are multiples of {@code alignment}.
 *
 * <p>Only allocated chunks are swapped: {@link #allocatedBlockRanges(long)} gives them rounded out
 * to whole blocks and merged.
 *
 * <p>Not thread-safe: one virtual processor allocates from its own context.
 */
public final class FirstFitAllocator {
    private final long capacity;
    private final long alignment;
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final TreeMap<Long, Long> allocated = new TreeMap<>();
    private long allocatedBytes;

    /**
     * @param capacity  bytes of the context, a multiple of {@code alignment}
     * @param alignment a power of two; every chunk starts and ends on it
     */
    public FirstFitAllocator(long capacity, long alignment) {
        if (alignment <= 0 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment " + alignment + " is not a positive power of two");
        }
        if (capacity < 0 || capacity % alignment != 0) {
            throw new IllegalArgumentException("capacity " + capacity + " is not a non-negative multiple of " + alignment);
        }
        this.capacity = capacity;
        this.alignment = alignment;
        if (capacity > 0) {
            free.put(0L, capacity);
        }
    }

    /**
     * Allocates {@code size} bytes (at least one alignment unit, so that a zero-byte allocation
     * still has an address of its own); returns the offset, or {@code -1} if no free chunk is large
     * enough.
     */
    public long allocate(long size) {
        if (size < 0) {
            throw new IllegalArgumentException("size " + size + " is negative");
        }
        long rounded = roundUp(Math.max(size, 1));
        if (rounded < 0) {
            return -1;
        }
        for (Map.Entry<Long, Long> chunk : free.entrySet()) {
            long length = chunk.getValue();
            if (length >= rounded) {
                long offset = chunk.getKey();
                free.remove(offset);
                if (length > rounded) {
                    free.put(offset + rounded, length - rounded);
                }
                allocated.put(offset, rounded);
                allocatedBytes += rounded;
                return offset;
            }
        }
        return -1;
    }

    /**
     * Frees the chunk that starts at {@code offset}; returns its size.
     *
     * @throws IllegalArgumentException if no allocated chunk starts there
     */
    public long free(long offset) {
        Long length = allocated.remove(offset);
        if (length == null) {
            throw new IllegalArgumentException("no allocated chunk starts at offset " + offset);
        }
        allocatedBytes -= length;
        long start = offset;
        long end = offset + length;
        Map.Entry<Long, Long> before = free.floorEntry(offset);
        if (before != null && before.getKey() + before.getValue() == start) {
            start = before.getKey();
            free.remove(start);
        }
        Long after = free.get(end);
        if (after != null) {
            free.remove(end);
            end += after;
        }
        free.put(start, end - start);
        return length;
    }

    /** The free chunk that holds {@code offset}, as {start, end}; null if that byte is allocated or outside. */
    public long[] freeChunkAround(long offset) {
        Map.Entry<Long, Long> chunk = free.floorEntry(offset);
        if (chunk == null || offset >= chunk.getKey() + chunk.getValue()) {
            return null;
        }
        return new long[] {chunk.getKey(), chunk.getKey() + chunk.getValue()};
    }

    /** The size of the allocated chunk at {@code offset}, or {@code -1}. */
    public long sizeAt(long offset) {
        Long length = allocated.get(offset);
        return length == null ? -1 : length;
    }

    /** Frees every chunk. */
    public void clear() {
        allocated.clear();
        free.clear();
        allocatedBytes = 0;
        if (capacity > 0) {
            free.put(0L, capacity);
        }
    }

    public long capacity() {
        return capacity;
    }

    public long alignment() {
        return alignment;
    }

    /** Bytes in allocated chunks (after rounding). */
    public long allocatedBytes() {
        return allocatedBytes;
    }

    /** Number of allocated chunks. */
    public int allocatedChunks() {
        return allocated.size();
    }

    /** Number of free chunks (1 for an empty context: coalescing keeps neighbours merged). */
    public int freeChunks() {
        return free.size();
    }

    /** The largest free chunk, the largest allocation that can succeed now. */
    public long largestFree() {
        long largest = 0;
        for (long length : free.values()) {
            largest = Math.max(largest, length);
        }
        return largest;
    }

    /**
     * The allocated chunks rounded out to whole blocks of {@code blockSize} and merged where they
     * touch: the ranges a swap moves, as {@code {start, end}} pairs in increasing order.
     */
    public List<long[]> allocatedBlockRanges(long blockSize) {
        List<long[]> ranges = new ArrayList<>();
        long[] current = null;
        for (Map.Entry<Long, Long> chunk : allocated.entrySet()) {
            long start = Math.floorDiv(chunk.getKey(), blockSize) * blockSize;
            long end = ceilDiv(chunk.getKey() + chunk.getValue(), blockSize) * blockSize;
            if (current != null && start <= current[1]) {
                current[1] = Math.max(current[1], end);
            } else {
                current = new long[] {start, end};
                ranges.add(current);
            }
        }
        return ranges;
    }

    /** Bytes of {@link #allocatedBlockRanges(long)}: the volume of one swap. */
    public long swapBytes(long blockSize) {
        long total = 0;
        for (long[] r : allocatedBlockRanges(blockSize)) {
            total += r[1] - r[0];
        }
        return total;
    }

    private long roundUp(long size) {
        long mask = alignment - 1;
        return size > Long.MAX_VALUE - mask ? -1 : (size + mask) & ~mask;
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
