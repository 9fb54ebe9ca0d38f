package org.lockstep.embsp.sim;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.embsp.io.ContextStore;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.io.IoMeter;
import org.lockstep.embsp.memory.PrivateMappings;

/**
 * One context's lazy swap-in (lockstep.embsp.lazySwapIn): its allocated blocks are mapped from
 * its file over the partition ({@link PrivateMappings}) instead of read, so only the pages someone
 * touches are read, and a swap-out writes back only the pages written since. What the faults read
 * is counted when the context leaves the partition, as swap-in bytes on the meters of the swap-in
 * that mapped it: the run's exactly, the superstep's and the call's as far as they are still open
 * then (a call's record closes when its last VP leaves it; the reads come later). Called under the
 * context's write lock.
 */
final class LazySwapIn {
    private static final IoMeter[] NO_METERS = new IoMeter[0];

    private final PrivateMappings mappings;
    private final ContextStore store;
    private final int vp;
    private final MemorySegment memory;
    private IoMeter[] swapInMeters = NO_METERS;
    /** The file ranges mapped now: {disk, position, length, offset in the partition}. */
    private final List<long[]> mapped = new ArrayList<>();

    LazySwapIn(PrivateMappings mappings, ContextStore store, int vp, MemorySegment memory) {
        this.mappings = mappings;
        this.store = store;
        this.vp = vp;
        this.memory = memory;
    }

    /** Maps {@code blocks} ({start, end} block ranges) over the partition, which holds nothing else afterwards. */
    void map(List<long[]> blocks, IoMeter... meters) {
        clear();
        swapInMeters = meters.clone();
        for (long[] r : blocks) {
            store.forEachExtent(vp, r[0], r[1] - r[0], (disk, position, rangeOffset, length) -> {
                mappings.map(memory, r[0] + rangeOffset, length, disk, position);
                mapped.add(new long[] {disk, position, length, r[0] + rangeOffset});
            });
        }
    }

    /** Has the mapped parts of {@code ranges} ({start, end} offsets) read ahead: the superstep is about to read them. */
    void readAhead(List<long[]> ranges) {
        for (long[] m : mapped) {
            for (long[] r : ranges) {
                long from = Math.max(m[3], r[0]);
                long to = Math.min(m[3] + m[2], r[1]);
                if (to > from) {
                    mappings.readAhead(memory, from, to - from);
                }
            }
        }
    }

    /** Pages written since {@link #map}, as {start, end} offsets; null if that cannot be told. */
    List<long[]> written() {
        return mappings.written(memory);
    }

    /**
     * Counts what the faults read of the mapped blocks (before a swap-out's O_DIRECT write drops
     * some of it from the cache); returns the bytes. The kernel's read-around past a mapped range's
     * ends (at most half its window each side) is not counted: it is no block of the context's.
     */
    long countReads() {
        long bytes = 0;
        for (long[] m : mapped) {
            bytes += mappings.cachedBytes((int) m[0], m[1], m[2]);
        }
        for (IoMeter m : swapInMeters) {
            if (m != null) {
                m.count(IoCategory.SWAP_IN, bytes);
            }
        }
        return bytes;
    }

    /** The context leaves the partition: {@link #clear}, and later reads count nowhere. */
    void release() {
        clear();
        swapInMeters = NO_METERS;
    }

    /** Fresh pages over the partition and the context's file range out of the page cache: nothing of it stays in memory. */
    private void clear() {
        mapped.clear();
        mappings.clear(memory);
        store.forEachExtent(vp, 0, store.contextSize(), (disk, position, rangeOffset, length) -> mappings.drop(disk, position, length));
    }
}
