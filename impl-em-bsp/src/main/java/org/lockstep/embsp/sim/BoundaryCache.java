package org.lockstep.embsp.sim;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The boundary-block cache of seed 003 §6.2 for one collective call: the blocks of receivers'
 * contexts that hold an unaligned first or last part of an expected message. A receiver copies
 * them in while it is swapped in, before anyone may deliver to it; senders then patch the
 * fragments of their messages into the cached copies instead of reading and rewriting the block
 * on disk; at the end the receiver, swapped in again, lays its cached blocks over its memory.
 * Blocks beyond the pool's budget are not cached: their fragments fall back to read-modify-write.
 */
public final class BoundaryCache {
    private final BlockPool pool;
    private final long blockSize;
    private final Map<Long, MemorySegment> blocks = new ConcurrentHashMap<>();
    private final Map<Integer, List<Long>> byVp = new ConcurrentHashMap<>();
    private final LongAdder misses = new LongAdder();

    public BoundaryCache(BlockPool pool, long blockSize) {
        this.pool = pool;
        this.blockSize = blockSize;
    }

    private static long key(int vp, long block) {
        return ((long) vp << 32) | block;
    }

    /**
     * Called by VP {@code vp}, resident, for a region it expects a message in: caches the blocks of
     * the region's unaligned ends (if the budget allows).
     */
    public void snapshotEnds(Vp vp, long offset, long length) {
        if (length == 0 || vp.context().stationary()) {
            return;
        }
        long end = offset + length;
        if (offset % blockSize != 0) {
            snapshot(vp, offset / blockSize);
        }
        if (end % blockSize != 0) {
            snapshot(vp, end / blockSize);
        }
    }

    private void snapshot(Vp vp, long block) {
        long k = key(vp.id(), block);
        if (blocks.containsKey(k)) {
            return;
        }
        MemorySegment copy = pool.acquire();
        if (copy == null) {
            return;
        }
        MemorySegment.copy(vp.context().memory(), block * blockSize, copy, 0, blockSize);
        blocks.put(k, copy);
        byVp.computeIfAbsent(vp.id(), id -> new ArrayList<>()).add(block);
    }

    /** Writes {@code bytes} (inside one block of VP {@code vp}'s context, at {@code offset}) into the cached block; false if it is not cached. */
    public boolean patch(int vp, long offset, MemorySegment bytes) {
        long block = offset / blockSize;
        MemorySegment cached = blocks.get(key(vp, block));
        if (cached == null) {
            return false;
        }
        synchronized (cached) {
            MemorySegment.copy(bytes, 0, cached, offset - block * blockSize, bytes.byteSize());
        }
        return true;
    }

    /**
     * Write-through for bytes that land in a resident receiver's memory at {@code offset}: the
     * cached copies of the range's first and last block (the only blocks of a region that can be
     * cached) get them too, so that the overlay at the end does not undo them.
     */
    public void writeThrough(int vp, long offset, MemorySegment bytes) {
        long length = bytes.byteSize();
        if (length == 0) {
            return;
        }
        long end = offset + length;
        long first = offset / blockSize;
        long last = (end - 1) / blockSize;
        patchOverlap(vp, first, offset, end, bytes);
        if (last != first) {
            patchOverlap(vp, last, offset, end, bytes);
        }
    }

    private void patchOverlap(int vp, long block, long offset, long end, MemorySegment bytes) {
        long from = Math.max(offset, block * blockSize);
        long to = Math.min(end, (block + 1) * blockSize);
        if (to > from && blocks.containsKey(key(vp, block))) {
            patch(vp, from, bytes.asSlice(from - offset, to - from));
        }
    }

    /** Counts a fragment that had to be read-modify-written because its block was not cached. */
    void countMiss() {
        misses.increment();
    }

    /** Fragments that found no cached block. */
    public long misses() {
        return misses.sum();
    }

    /** Whether the block holding {@code offset} of VP {@code vp}'s context is cached. */
    public boolean isCached(int vp, long offset) {
        return blocks.containsKey(key(vp, offset / blockSize));
    }

    /** Called by VP {@code vp}, resident, after every delivery to it: lays its cached blocks over its memory and frees them. */
    public void overlay(Vp vp) {
        List<Long> mine = byVp.remove(vp.id());
        if (mine == null) {
            return;
        }
        for (long block : mine) {
            MemorySegment cached = blocks.remove(key(vp.id(), block));
            MemorySegment.copy(cached, 0, vp.context().memory(), block * blockSize, blockSize);
            pool.release(cached);
        }
    }

    /** Frees whatever is left (a call that failed). */
    public void releaseAll() {
        for (MemorySegment b : blocks.values()) {
            pool.release(b);
        }
        blocks.clear();
        byVp.clear();
    }
}
