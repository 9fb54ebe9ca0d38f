package org.lockstep.embsp.sim;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.lockstep.embsp.io.ContextStore;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.io.IoDriver;
import org.lockstep.embsp.io.IoHandle;
import org.lockstep.embsp.io.IoMeter;
import org.lockstep.embsp.memory.PrivateMappings;

/**
 * One context's lazy swap-in (lockstep.embsp.lazySwapIn): its allocated blocks are mapped from
 * its file over the partition ({@link PrivateMappings}) instead of read, so only the pages someone
 * touches are read, and a swap-out writes back only the pages written since. What the faults read
 * is counted when the context leaves the partition, as swap-in bytes on the meters of the swap-in
 * that mapped it: the run's exactly, the superstep's and the call's as far as they are still open
 * then (a call's record closes when its last VP leaves it; the reads come later). The chunks that
 * the contexts before wrote most of after a swap-in at the same superstep ({@link AccessHistory})
 * are read eagerly instead, by the I/O driver into plain memory: a written page is written back
 * anyway, and mapped it would have cost two faults and a copy. Called under the context's write lock.
 */
final class LazySwapIn {
    private static final IoMeter[] NO_METERS = new IoMeter[0];

    private final PrivateMappings mappings;
    private final ContextStore store;
    private final int vp;
    private final MemorySegment memory;
    private final AccessHistory history;
    private IoMeter[] swapInMeters = NO_METERS;
    /** The superstep of the swap-in that made the mappings: what is read and written is learned under it. */
    private int superstep = -1;
    /** The file ranges mapped now: {disk, position, length, offset in the partition}. */
    private final List<long[]> mapped = new ArrayList<>();
    /** Parts of the mapped ranges the program freed since ({start, end}, sorted, merged): later stores there are new data's. */
    private final List<long[]> freed = new ArrayList<>();
    /** Parts of the mapped ranges read ahead on a collective's hint ({@link #readAhead}) since {@link #map}. */
    private final List<long[]> hinted = new ArrayList<>();
    /** Per chunk: bytes mapped, and bytes of them written before they were freed or the context left. */
    private final long[] mappedOfChunk;
    private final long[] writtenOfChunk;

    LazySwapIn(PrivateMappings mappings, AccessHistory history, ContextStore store, int vp, MemorySegment memory) {
        this.mappings = mappings;
        this.history = history;
        this.store = store;
        this.vp = vp;
        this.memory = memory;
        int chunks = (int) ((memory.byteSize() + AccessHistory.CHUNK - 1) / AccessHistory.CHUNK);
        this.mappedOfChunk = new long[chunks];
        this.writtenOfChunk = new long[chunks];
    }

    /**
     * Maps {@code blocks} ({start, end} block ranges) over the partition, which holds nothing else
     * afterwards, except the chunks the contexts swapped in at {@code superstep} before wrote most
     * of: those are read now. Reads ahead the mapped chunks they read much of. Returns the bytes read
     * eagerly (counted on {@code meters} as they are read).
     */
    long map(int superstep, List<long[]> blocks, IoMeter... meters) {
        clear();
        this.superstep = superstep;
        swapInMeters = meters.clone();
        List<long[]> eager = new ArrayList<>();
        List<long[]> lazy = new ArrayList<>();
        for (long[] r : blocks) {
            for (long from = r[0]; from < r[1]; ) {
                long chunk = from / AccessHistory.CHUNK;
                long to = Math.min(r[1], (chunk + 1) * AccessHistory.CHUNK);
                if (history.writesMuchOf(superstep, chunk)) {
                    extend(eager, from, to);
                } else {
                    extend(lazy, from, to);
                }
                from = to;
            }
        }
        for (long[] r : lazy) {
            store.forEachExtent(vp, r[0], r[1] - r[0], (disk, position, rangeOffset, length) -> {
                mappings.map(memory, r[0] + rangeOffset, length, disk, position);
                mapped.add(new long[] {disk, position, length, r[0] + rangeOffset});
            });
        }
        for (long[] m : mapped) {
            forEachChunk(m, (chunk, from, to) -> {
                mappedOfChunk[(int) chunk] += to - from;
                if (history.readsMuchOf(superstep, chunk)) {
                    mappings.readAhead(memory, from, to - from);
                }
            });
        }
        List<IoHandle> reads = new ArrayList<>();
        long bytes = 0;
        for (long[] e : eager) {
            reads.add(store.submit(IoDriver.Direction.READ, vp, e[0], memory.asSlice(e[0], e[1] - e[0]), IoCategory.SWAP_IN, meters));
            bytes += e[1] - e[0];
        }
        ContextStore.all(reads).await();
        return bytes;
    }

    /** Adds [from, to) to the sorted ranges {@code ranges}, which it follows. */
    private static void extend(List<long[]> ranges, long from, long to) {
        if (!ranges.isEmpty() && ranges.getLast()[1] == from) {
            ranges.getLast()[1] = to;
        } else {
            ranges.add(new long[] {from, to});
        }
    }

    /** Calls {@code action} for each piece of mapped range {@code m} inside one {@link AccessHistory#CHUNK} of the context. */
    private static void forEachChunk(long[] m, ChunkAction action) {
        long end = m[3] + m[2];
        for (long from = m[3]; from < end; ) {
            long chunk = from / AccessHistory.CHUNK;
            long to = Math.min(end, (chunk + 1) * AccessHistory.CHUNK);
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
                    hinted.add(new long[] {from, to});
                }
            }
        }
    }

    /**
     * The program freed [{@code from}, {@code to}): its mapped pages become fresh anonymous ones, and
     * what it had written of them is learned first (later stores there are a new allocation's). What
     * the faults read there before stays in the page cache, so {@link #countReads} still counts it.
     */
    void forget(long from, long to) {
        List<long[]> hit = new ArrayList<>();
        for (long[] m : mapped) {
            if (m[3] < to && from < m[3] + m[2]) {
                hit.add(new long[] {Math.max(from, m[3]), Math.min(to, m[3] + m[2])});
            }
        }
        if (hit.isEmpty()) {
            return;
        }
        List<long[]> written = mappings.written(memory, from, to);
        if (written != null) {
            learnWrites(written);
        }
        for (long[] h : hit) {
            mappings.forget(memory, h[0], h[1]);
        }
        addFreed(from, to);
    }

    /**
     * Pages written since {@link #map}, as {start, end} offsets; null if that cannot be told. What
     * was written of the mapped blocks is learned (the context is leaving).
     */
    List<long[]> written() {
        List<long[]> written = mappings.written(memory);
        if (written != null) {
            learnWrites(written);
            for (int c = 0; c < mappedOfChunk.length; c++) {
                if (mappedOfChunk[c] > 0) {
                    history.recordWrites(superstep, c, mappedOfChunk[c], writtenOfChunk[c]);
                }
            }
        }
        Arrays.fill(mappedOfChunk, 0);
        Arrays.fill(writtenOfChunk, 0);
        return written;
    }

    /** Adds to each chunk the bytes of {@code written} (sorted {start, end} offsets) on its mapped, not freed, parts. */
    private void learnWrites(List<long[]> written) {
        List<long[]> own = AwaitedRegions.subtract(written, freed);
        for (long[] m : mapped) {
            forEachChunk(m, (chunk, from, to) -> writtenOfChunk[(int) chunk] += overlap(own, from, to));
        }
    }

    /** Bytes of the sorted, disjoint {@code ranges} inside [from, to). */
    static long overlap(List<long[]> ranges, long from, long to) {
        int low = 0;
        int high = ranges.size();
        while (low < high) { // the first range that ends after from
            int mid = (low + high) >>> 1;
            if (ranges.get(mid)[1] <= from) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        long bytes = 0;
        for (int i = low; i < ranges.size() && ranges.get(i)[0] < to; i++) {
            bytes += Math.min(to, ranges.get(i)[1]) - Math.max(from, ranges.get(i)[0]);
        }
        return bytes;
    }

    /** Adds [from, to) to {@link #freed}, keeping it sorted and merged. */
    private void addFreed(long from, long to) {
        freed.add(new long[] {from, to});
        List<long[]> merged = Context.mergeToBlocks(freed, 1);
        freed.clear();
        freed.addAll(merged);
    }

    /**
     * Counts what the faults read of the mapped blocks (before a swap-out's O_DIRECT write drops
     * some of it from the cache); returns the bytes. The kernel's read-around past a mapped range's
     * ends (at most half its window each side) is not counted: it is no block of the context's.
     */
    long countReads() {
        long[] bytes = {0};
        List<long[]> hints = Context.mergeToBlocks(hinted, 1);
        for (long[] m : mapped) {
            forEachChunk(m, (chunk, from, to) -> {
                long read = mappings.cachedBytes((int) m[0], m[1] + from - m[3], to - from);
                // what the collectives' hints read, the same hints will read for the VPs after: not learned
                long hintedLength = 0;
                long hintedRead = 0;
                for (long[] h : Context.intersect(hints, List.of(new long[] {from, to}))) {
                    hintedLength += h[1] - h[0];
                    hintedRead += mappings.cachedBytes((int) m[0], m[1] + h[0] - m[3], h[1] - h[0]);
                }
                history.recordReads(superstep, chunk, to - from - hintedLength, read - hintedRead);
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
        freed.clear();
        hinted.clear();
        Arrays.fill(mappedOfChunk, 0);
        Arrays.fill(writtenOfChunk, 0);
        store.forEachExtent(vp, 0, store.contextSize(), (disk, position, rangeOffset, length) -> mappings.drop(disk, position, length));
    }
}
