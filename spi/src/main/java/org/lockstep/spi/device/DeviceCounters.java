package org.lockstep.spi.device;

import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Access counters for a device implementation, cheap enough for every access of a hot path: each
 * thread counts in its own block with plain increments (no atomic instruction, no shared cache
 * line), and {@link #snapshot()} adds the blocks up. A snapshot is exact for threads that have
 * stopped counting or synchronized with the caller; for threads still counting it may lag a few
 * accesses behind.
 */
public final class DeviceCounters {
    private static final int READS = 0;
    private static final int BYTES_READ = 1;
    private static final int WRITES = 2;
    private static final int BYTES_WRITTEN = 3;
    private static final int PERSISTS = 4;
    private static final int BYTES_PERSISTED = 5;
    private static final int ATOMICS = 6;
    /** Fields per block, padded to two cache lines so that blocks of different threads never share one. */
    private static final int BLOCK_LENGTH = 16;

    private final CopyOnWriteArrayList<long[]> blocks = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Block> local = ThreadLocal.withInitial(() -> {
        Block block = new Block(Thread.currentThread(), new long[BLOCK_LENGTH]);
        blocks.add(block.counts);
        return block;
    });
    /**
     * The block of the first thread that counted. A thread-local lookup costs more than the access
     * it counts; in a process rank one thread does nearly all accesses, and finds its block here.
     * Set once (never moved between threads, so threads that share a device do not fight over it);
     * one reference read once, so a thread never takes another thread's block.
     */
    private Block first;

    /** One thread's counts, with the thread they belong to. */
    private record Block(Thread owner, long[] counts) {
    }

    private long[] counts() {
        Block b = first;
        if (b != null && b.owner() == Thread.currentThread()) {
            return b.counts();
        }
        Block mine = local.get();
        if (b == null) {
            first = mine;
        }
        return mine.counts();
    }

    public void read(long bytes) {
        long[] c = counts();
        c[READS]++;
        c[BYTES_READ] += bytes;
    }

    public void written(long bytes) {
        long[] c = counts();
        c[WRITES]++;
        c[BYTES_WRITTEN] += bytes;
    }

    public void persisted(long bytes) {
        long[] c = counts();
        c[PERSISTS]++;
        c[BYTES_PERSISTED] += bytes;
    }

    public void atomic() {
        counts()[ATOMICS]++;
    }

    /** The sums over every thread that has counted. */
    public DeviceStatistics snapshot() {
        long[] sum = new long[BLOCK_LENGTH];
        for (long[] block : blocks) {
            for (int i = 0; i <= ATOMICS; i++) {
                sum[i] += block[i];
            }
        }
        return new DeviceStatistics(sum[BYTES_READ], sum[BYTES_WRITTEN], sum[READS], sum[WRITES],
                sum[PERSISTS], sum[BYTES_PERSISTED], sum[ATOMICS]);
    }
}
