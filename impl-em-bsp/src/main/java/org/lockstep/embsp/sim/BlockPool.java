package org.lockstep.embsp.sim;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Memory for cached boundary blocks, up to a budget: blocks of B bytes carved from slabs that
 * are allocated the first time they are needed and reused afterwards.
 */
public final class BlockPool {
    private static final int BLOCKS_PER_SLAB = 64;

    private final Arena arena;
    private final long blockSize;
    private final long budgetBlocks;
    private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();
    private long carved;
    private long inUse;
    private long peakInUse;

    BlockPool(Arena arena, long blockSize, long budgetBytes) {
        this.arena = arena;
        this.blockSize = blockSize;
        this.budgetBlocks = budgetBytes / blockSize;
    }

    /** A block, or null when the budget is spent. */
    public synchronized MemorySegment acquire() {
        if (free.isEmpty()) {
            if (carved >= budgetBlocks) {
                return null;
            }
            long count = Math.min(BLOCKS_PER_SLAB, budgetBlocks - carved);
            MemorySegment slab = arena.allocate(count * blockSize, blockSize);
            for (long i = 0; i < count; i++) {
                free.add(slab.asSlice(i * blockSize, blockSize));
            }
            carved += count;
        }
        inUse++;
        peakInUse = Math.max(peakInUse, inUse);
        return free.poll();
    }

    public synchronized void release(MemorySegment block) {
        inUse--;
        free.push(block);
    }

    /** Bytes of the most blocks in use at once. */
    public synchronized long peakBytes() {
        return peakInUse * blockSize;
    }
}
