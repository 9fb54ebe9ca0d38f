package org.lockstep.embsp.sim;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.lockstep.embsp.io.ContextStore;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.io.IoDriver;
import org.lockstep.embsp.io.IoHandle;
import org.lockstep.embsp.io.IoMeter;
import org.lockstep.embsp.memory.FirstFitAllocator;
import org.lockstep.embsp.memory.PrivateMappings;
import org.lockstep.embsp.memory.WriteWatch;
import org.lockstep.spi.events.Events;

/**
 * One virtual processor's context: the memory its program allocates from the communicator
 * ({@code MPI_Alloc_mem}), placed by a {@link FirstFitAllocator} in the VP's partition (always
 * the same one, so segments stay valid across swaps), and its residency. A swap-in reads the
 * allocated blocks; a swap-out writes back only the allocated blocks on pages written since the
 * swap-in, as the {@link WriteWatch} saw them (all of them where it cannot tell). A stationary
 * context never swaps and is always resident: in memory-mapped mode it is its mapped file region
 * (the kernel pages it as the program touches it); when every context fits in the memory budget
 * ({@code lockstep.embsp.keepResident}) it has memory of its own.
 *
 * <p>Residency changes under the write lock; a VP that reads or delivers into another's context
 * holds the read lock, so a context never changes residency under an access.
 */
public final class Context {
    /** Alignment of allocations: enough for every datatype and a cache line. */
    public static final long ALLOCATION_ALIGNMENT = 64;

    private final int vp;
    private final MemorySegment memory;
    private final FirstFitAllocator allocator;
    private final ContextStore store;
    private final WriteWatch writes;
    private final boolean stationary;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private volatile Residency residency;
    private List<long[]> loaned = List.of();
    private final AwaitedRegions awaited = new AwaitedRegions();
    /** The kit's self-test fault SWAPS_TWICE; false in every real job. */
    private final boolean swapsTwice;
    /** Maps the context's blocks over the partition at a swap-in instead of reading them; null: read them all. */
    private final LazySwapIn lazy;

    Context(int vp, MemorySegment memory, ContextStore store) {
        this(vp, memory, store, WriteWatch.none(), null, null, false, false);
    }

    /**
     * @param mappings lazy swap-in's mappings, or null to read every allocated block at a swap-in
     * @param ownMemory the context keeps {@code memory} to itself and never swaps
     */
    Context(int vp, MemorySegment memory, ContextStore store, WriteWatch writes, PrivateMappings mappings, AccessHistory history,
            boolean ownMemory, boolean swapsTwice) {
        this.vp = vp;
        this.writes = writes;
        this.lazy = mappings == null || store.mapped() || ownMemory ? null : new LazySwapIn(mappings, history, store, vp, memory);
        this.swapsTwice = swapsTwice;
        this.memory = memory;
        this.store = store;
        this.stationary = store.mapped() || ownMemory;
        this.allocator = new FirstFitAllocator(memory.byteSize(), ALLOCATION_ALIGNMENT);
        this.residency = stationary ? Residency.RESIDENT : Residency.ON_DISK;
    }

    public int vp() {
        return vp;
    }

    /** The memory this context occupies when resident. */
    public MemorySegment memory() {
        return memory;
    }

    public FirstFitAllocator allocator() {
        return allocator;
    }

    public Residency residency() {
        return residency;
    }

    /** Whether this context never swaps: memory-mapped, or resident in memory of its own. */
    public boolean stationary() {
        return stationary;
    }

    public ReentrantReadWriteLock lock() {
        return lock;
    }

    /** Whether {@code segment} lies inside this context's memory. */
    public boolean contains(MemorySegment segment) {
        if (!segment.isNative()) {
            return false;
        }
        long start = segment.address() - memory.address();
        return start >= 0 && start + segment.byteSize() <= memory.byteSize();
    }

    /** Offset of {@code segment} in this context (it must be {@link #contains contained}). */
    public long offsetOf(MemorySegment segment) {
        return segment.address() - memory.address();
    }

    /** Allocates {@code size} bytes; null if no free chunk is large enough. */
    public MemorySegment allocate(long size) {
        long offset = allocator.allocate(size);
        return offset < 0 ? null : memory.asSlice(offset, size);
    }

    /** Frees a segment from {@link #allocate}; false if it is not one. */
    public boolean free(MemorySegment segment) {
        if (!contains(segment)) {
            return false;
        }
        long offset = offsetOf(segment);
        long size = allocator.sizeAt(offset);
        if (size < 0 || segment.byteSize() > size) {
            return false;
        }
        allocator.free(offset);
        if (lazy != null) {
            forgetFreed(offset);
        }
        return true;
    }

    /** Without this, a new allocation over the freed pages would read their dead contents from disk at its first store. */
    private void forgetFreed(long offset) {
        lock.writeLock().lock();
        try {
            long[] chunk = allocator.freeChunkAround(offset);
            if (residency == Residency.RESIDENT && chunk != null) {
                lazy.forget(chunk[0], chunk[1]);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Writes the allocated blocks written since the swap-in to disk: the context leaves its partition. */
    public void swapOut(IoMeter... meters) {
        if (stationary) {
            return;
        }
        lock.writeLock().lock();
        try {
            if (residency == Residency.RESIDENT) {
                SwapEvent event = Events.begun(SwapEvent::new);
                List<long[]> changed = changedBlockRanges();
                if (lazy != null) {
                    long read = lazy.countReads();
                    if (event != null) {
                        event.swapped(vp, "in, lazily", read);
                        event = Events.begun(SwapEvent::new);
                    }
                }
                long bytes = move(changed, IoDriver.Direction.WRITE, IoCategory.SWAP_OUT, meters);
                if (swapsTwice) { // kit self-test fault hook, off by default
                    bytes += move(changed, IoDriver.Direction.WRITE, IoCategory.SWAP_OUT, meters);
                }
                if (event != null) {
                    event.swapped(vp, "out", bytes);
                }
            }
            if (lazy != null) {
                lazy.release();
            }
            residency = Residency.ON_DISK;
            loaned = List.of();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Reads the allocated blocks into the partition: the context is resident again. */
    public void swapIn(IoMeter... meters) {
        swapIn(-1, meters);
    }

    /** As {@link #swapIn(IoMeter...)}, by a VP in {@code superstep} (a lazy swap-in learns what is read there). */
    public void swapIn(int superstep, IoMeter... meters) {
        if (stationary) {
            return;
        }
        lock.writeLock().lock();
        try {
            if (residency != Residency.RESIDENT && lazy != null) {
                // the faults read what is touched; the reads count when the context leaves
                SwapEvent event = Events.begun(SwapEvent::new);
                long eager = lazy.map(superstep, allocator.allocatedBlockRanges(store.blockSize()), meters);
                if (event != null && eager > 0) {
                    event.swapped(vp, "in", eager);
                }
                residency = Residency.RESIDENT;
                loaned = List.of();
            } else if (residency != Residency.RESIDENT) {
                SwapEvent event = Events.begun(SwapEvent::new);
                // nobody else stores into the partition now; the read's own stores need not be counted
                writes.allowWrites(memory);
                long bytes = move(allocator.allocatedBlockRanges(store.blockSize()), IoDriver.Direction.READ, IoCategory.SWAP_IN, meters);
                if (event != null) {
                    event.swapped(vp, "in", bytes);
                }
                // memory and disk agree now: only later stores need writing back
                writes.forget(memory);
                residency = Residency.RESIDENT;
                loaned = List.of();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Reads the blocks of {@code ranges} ({start, end} byte pairs, rounded out to blocks) into the
     * partition as a read-only copy, the disk staying the truth; a resident context is left as it is.
     */
    public void loan(List<long[]> ranges, IoMeter... meters) {
        if (stationary) {
            return;
        }
        lock.writeLock().lock();
        try {
            if (residency != Residency.ON_DISK) {
                return;
            }
            SwapEvent event = Events.begun(SwapEvent::new);
            List<long[]> blocks = mergeToBlocks(ranges, store.blockSize());
            long bytes = move(blocks, IoDriver.Direction.READ, IoCategory.SWAP_IN, meters);
            if (event != null) {
                event.swapped(vp, "loan", bytes);
            }
            loaned = blocks;
            residency = Residency.LOANED;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * The VP is about to read {@code ranges} ({start, end} bytes) of its resident context (a
     * collective's send buffer, what it has just received): with lazy swap-in they are read ahead in
     * large requests instead of page by page as they are touched; otherwise nothing to do.
     */
    public void expectReads(List<long[]> ranges) {
        lock.readLock().lock();
        try {
            if (lazy != null && residency == Residency.RESIDENT) {
                lazy.readAhead(ranges);
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The block ranges a loan read, for accounting. */
    public List<long[]> loanedRanges() {
        return loaned;
    }

    /** The VP has ended: its memory is released without I/O. */
    public void discard() {
        lock.writeLock().lock();
        try {
            if (lazy != null && residency == Residency.RESIDENT) {
                lazy.countReads();
            }
            if (lazy != null && residency != Residency.ON_DISK) {
                lazy.release();
            }
            allocator.clear();
            residency = stationary ? Residency.RESIDENT : Residency.ON_DISK;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * A collective call will deliver into {@code ranges} ({start, end} bytes): until a message
     * reaches them their bytes are meaningless, and a swap-out does not write their whole blocks.
     */
    public void awaitDeliveries(List<long[]> ranges) {
        for (long[] r : ranges) {
            awaited.await(r[0], r[1]);
        }
    }

    /** A message reached {@code [from, to)} (in memory or on disk). */
    void delivered(long from, long to) {
        awaited.arrived(from, to);
    }

    /** The call that awaited deliveries is over. */
    public void endDeliveries() {
        awaited.clear();
    }

    /** Bytes one swap of this context moves now. */
    public long swapBytes() {
        return stationary ? 0 : allocator.swapBytes(store.blockSize());
    }

    /** The allocated blocks on pages written since the swap-in (every allocated block if that is unknown), less those awaiting a delivery. */
    private List<long[]> changedBlockRanges() {
        List<long[]> allocated = allocator.allocatedBlockRanges(store.blockSize());
        List<long[]> written = lazy != null ? lazy.written() : writes.written(memory);
        List<long[]> changed = written == null ? allocated : intersect(allocated, mergeToBlocks(written, store.blockSize()));
        return AwaitedRegions.subtract(changed, awaited.wholeBlocks(store.blockSize()));
    }

    /** The parts both sorted, disjoint range lists cover. */
    static List<long[]> intersect(List<long[]> a, List<long[]> b) {
        List<long[]> both = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.size() && j < b.size()) {
            long start = Math.max(a.get(i)[0], b.get(j)[0]);
            long end = Math.min(a.get(i)[1], b.get(j)[1]);
            if (end > start) {
                both.add(new long[] {start, end});
            }
            if (a.get(i)[1] < b.get(j)[1]) {
                i++;
            } else {
                j++;
            }
        }
        return both;
    }

    /** Moves {@code ranges} between memory and disk; the bytes moved. */
    private long move(List<long[]> ranges, IoDriver.Direction direction, IoCategory category, IoMeter... meters) {
        List<IoHandle> pending = new ArrayList<>();
        long bytes = 0;
        for (long[] r : ranges) {
            pending.add(store.submit(direction, vp, r[0], memory.asSlice(r[0], r[1] - r[0]), category, meters));
            bytes += r[1] - r[0];
        }
        ContextStore.all(pending).await();
        return bytes;
    }

    /** {start, end} ranges rounded out to blocks, sorted and merged. */
    static List<long[]> mergeToBlocks(List<long[]> ranges, long block) {
        List<long[]> sorted = new ArrayList<>();
        for (long[] r : ranges) {
            if (r[1] > r[0]) {
                sorted.add(new long[] {Math.floorDiv(r[0], block) * block, -Math.floorDiv(-r[1], block) * block});
            }
        }
        sorted.sort((a, b) -> Long.compare(a[0], b[0]));
        List<long[]> merged = new ArrayList<>();
        for (long[] r : sorted) {
            if (!merged.isEmpty() && r[0] <= merged.getLast()[1]) {
                merged.getLast()[1] = Math.max(merged.getLast()[1], r[1]);
            } else {
                merged.add(r);
            }
        }
        return merged;
    }
}
