package org.lockstep.embsp.sim;

import java.lang.foreign.MemorySegment;

/**
 * One of the k memory partitions: μ bytes that the VPs t ≡ index (mod k) take turns in, and an
 * aligned staging buffer for I/O whose memory side cannot be aligned (seed 003 §6.2's shifted
 * regions, partial blocks). The staging buffer is cut into slots: slot 0 serves synchronous reads
 * and read-modify-writes, slots 1..α serve delivery writes in flight. Only the VP that holds the
 * partition uses either. In memory-mapped mode a partition has no memory of its own.
 */
public final class Partition {
    private final int index;
    private final MemorySegment memory;
    private final MemorySegment staging;
    private final long slotSize;
    private final int slots;

    Partition(int index, MemorySegment memory, MemorySegment staging, long slotSize) {
        this.index = index;
        this.memory = memory;
        this.staging = staging;
        this.slotSize = slotSize;
        this.slots = staging == null ? 0 : (int) (staging.byteSize() / slotSize);
    }

    public int index() {
        return index;
    }

    /** The μ bytes (null in memory-mapped mode). */
    public MemorySegment memory() {
        return memory;
    }

    /** Staging slot {@code slot}, aligned, {@link #slotSize()} bytes. */
    public MemorySegment slot(int slot) {
        return staging.asSlice(slot * slotSize, slotSize);
    }

    public long slotSize() {
        return slotSize;
    }

    /** Slots for writes in flight (all but the synchronous slot 0). */
    public int writeSlots() {
        return Math.max(0, slots - 1);
    }
}
