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
    private final ReadHistory history;
    private IoMeter[] swapInMeters = NO_METERS;
    /** The superstep of the swap-in that made the mappings: what the faults read is learned under it. */
    private int superstep = -1;
    /** The file ranges mapped now: {disk, position, length, offset in the partition}. */
    private final List<long[]> mapped = new ArrayList<>();

    LazySwapIn(PrivateMappings mappings, ReadHistory history, ContextStore store, int vp, MemorySegment memory) {
        this.mappings = mappings;
        this.history = history;
        this.store = store;
        this.vp = vp;
        this.memory = memory;
    }

    /**
     * Maps {@code blocks} ({start, end} block ranges) over the partition, which holds nothing else
     * afterwards, and reads ahead the chunks the contexts swapped in at {@code superstep} before read
     * much of.
     */
    void map(int superstep, List<long[]> blocks, IoMeter... meters) {
        clear();
        this.superstep = superstep;
        swapInMeters = meters.clone();
        for (long[] r : blocks) {
            store.forEachExtent(vp, r[0], r[1] - r[0], (disk, position, rangeOffset, length) -> {
                mappings.map(memory, r[0] + rangeOffset, length, disk, position);
                mapped.add(new long[] {disk, position, length, r[0] + rangeOffset});
            });
        }
        for (long[] m : mapped) {
            forEachChunk(m, (chunk, from, to) -> {
                if (history.readsMuchOf(superstep, chunk)) {
                    mappings.readAhead(memory, from, to - from);
                }
            });
        }
    }

    /** Calls {@code action} for each piece of mapped range {@code m} inside one {@link ReadHistory#CHUNK} of the context. */
    private static void forEachChunk(long[] m, ChunkAction action) {
        long end = m[3] + m[2];
        for (long from = m[3]; from < end; ) {
            long chunk = from / ReadHistory.CHUNK;
            long to = Math.min(end, (chunk + 1) * ReadHistory.CHUNK);
            action.piece(chunk, from, to);
            from = to;
        }
    }

    @FunctionalInterface
    private interface ChunkAction {
        void piece(long chunk, long from, long to);
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

    /**
     * The program freed [{@code from}, {@code to}): its mapped pages become fresh anonymous ones. What
     * the faults read there before stays in the page cache, so {@link #countReads} still counts it.
     */
    void forget(long from, long to) {
        for (long[] m : mapped) {
            if (m[3] < to && from < m[3] + m[2]) {
                mappings.forget(memory, Math.max(from, m[3]), Math.min(to, m[3] + m[2]));
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
        long[] bytes = {0};
        for (long[] m : mapped) {
            forEachChunk(m, (chunk, from, to) -> {
                long read = mappings.cachedBytes((int) m[0], m[1] + from - m[3], to - from);
                history.record(superstep, chunk, to - from, read);
                bytes[0] += read;
            });
        }
        for (IoMeter m : swapInMeters) {
            if (m != null) {
                m.count(IoCategory.SWAP_IN, bytes[0]);
            }
        }
        return bytes[0];
    }

    /** The context leaves the partition: {@link #clear}, and later reads count nowhere. */
    void release() {
        clear();
        swapInMeters = NO_METERS;
    }

    /**
     * Fresh pages where the context's blocks were mapped, and its file range out of the page cache:
     * nothing of it stays mapped. The rest of the partition keeps its pages, as eager swaps do (a
     * fresh page costs a fault and its zeroing at the next touch); what a later context allocates
     * there and keeps is written back, as the scan reports such pages written.
     */
    private void clear() {
        for (long[] m : mapped) {
            mappings.forget(memory, m[3], m[3] + m[2]);
        }
        mapped.clear();
        store.forEachExtent(vp, 0, store.contextSize(), (disk, position, rangeOffset, length) -> mappings.drop(disk, position, length));
    }
}
