package org.lockstep.applications;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;

/**
 * CGM sample sort of N 64-bit keys (regular sampling, PSRS): each rank sorts its N/p keys, sends
 * p − 1 regular samples to all (Allgather), picks the same p − 1 splitters from the p(p − 1)
 * samples, partitions its keys by them, exchanges the buckets (Alltoall of counts, Alltoallv of
 * keys; regular sampling keeps every bucket under 2N/p) and sorts what it received. It then checks
 * itself: every rank sorted, ranks in order, no key lost or invented (count, xor and sum of the keys
 * before and after). Keys are the STXXL peer's stream, so the checksums match that program's.
 *
 * <p>Every buffer is allocated from the communicator: under EM-BSP the keys live in the contexts.
 */
public final class SampleSort implements Application {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private final long keys;
    private final long seed;

    public SampleSort(long keys) {
        this(keys, Keys.DEFAULT_SEED);
    }

    public SampleSort(long keys, long seed) {
        if (keys < 1) {
            throw new IllegalArgumentException("sort needs at least one key, got " + keys);
        }
        this.keys = keys;
        this.seed = seed;
    }

    @Override
    public String name() {
        return "sort";
    }

    /**
     * Bytes of context one rank needs for {@code keys} keys on {@code ranks} ranks, in the worst
     * case: its n keys, then the keys it receives (regular sampling bounds them by 2n) and as much
     * scratch to sort them, placed after the n keys by first fit (so the extent is n + 2·2n), and
     * the p(p − 1) samples twice and the keys' page index in the hole the first scratch leaves.
     */
    public static long contextBytes(long keys, int ranks) {
        long mine = keys / ranks + 1;
        long samples = 2L * ranks * ranks;
        return 8 * (mine + PageIndex.entries(mine) + Math.max(2 * (2 * mine + 1), samples) + 8L * ranks + FIGURES * (ranks + 1L))
                + ALLOCATION_SLACK;
    }

    /** Figures per rank in the final check. */
    private static final int FIGURES = 7;

    /** Room for the allocator's alignment of the dozen or so allocations. */
    static final long ALLOCATION_SLACK = 64L << 10;

    @Override
    public long size() {
        return keys;
    }

    @Override
    public long contextBytes(int ranks) {
        return contextBytes(keys, ranks);
    }

    /** The splitters and the Alltoallv's four per-rank arrays, those four once more in the simulator's copy. */
    @Override
    public long heapBytes(int ranks) {
        return 8L * (1 + 4 + 4) * ranks;
    }

    /** {@code 31·xor + sum} of the keys: sorting changes neither. */
    @Override
    public long expectedDigest() {
        long xor = 0;
        long sum = 0;
        for (long i = 0; i < keys; i++) {
            long k = Keys.key(seed, i);
            xor ^= k;
            sum += k;
        }
        return xor * 31 + sum;
    }

    @Override
    public long run(Communicator w) {
        int p = w.size();
        int r = w.rank();
        long first = keys * r / p;
        long n = keys * (r + 1) / p - first;
        MemorySegment local = w.allocate(8 * Math.max(1, n));
        MemorySegment scratch = w.allocate(8 * Math.max(1, n));
        long xor = 0;
        long sum = 0;
        for (long i = 0; i < n; i++) {
            long k = Keys.key(seed, first + i);
            local.setAtIndex(LONG, i, k);
            xor ^= k;
            sum += k;
        }
        Keys.radixSort(local, scratch, n);
        w.free(scratch);
        // built while the keys are in memory: after the Allgather each splitter's search reads one page of them
        MemorySegment pageFirsts = w.allocate(8 * PageIndex.entries(n));
        PageIndex index = new PageIndex(local, n, pageFirsts);

        // regular samples, then the same splitters everywhere
        int s = p - 1;
        MemorySegment samples = w.allocate(8L * Math.max(1, s));
        for (int i = 0; i < s; i++) {
            samples.setAtIndex(LONG, i, n == 0 ? -1L : local.getAtIndex(LONG, (i + 1) * n / p));
        }
        MemorySegment allSamples = w.allocate(8L * Math.max(1, (long) s * p));
        w.allgather(samples, s, Datatype.LONG, allSamples);
        MemorySegment sampleScratch = w.allocate(8L * Math.max(1, (long) s * p));
        Keys.radixSort(allSamples, sampleScratch, (long) s * p);
        long[] splitters = new long[s];
        for (int i = 0; i < s; i++) {
            splitters[i] = allSamples.getAtIndex(LONG, Math.min((long) s * p - 1, (long) (i + 1) * s));
        }
        w.free(sampleScratch);
        w.free(allSamples);
        w.free(samples);

        // bucket j holds keys in [splitter j-1, splitter j)
        long[] sendCounts = new long[p];
        long[] sendDispls = new long[p];
        long start = 0;
        for (int j = 0; j < p; j++) {
            long end = j == p - 1 ? n : index.lowerBound(splitters[j]);
            end = Math.max(end, start);
            sendDispls[j] = start;
            sendCounts[j] = end - start;
            start = end;
        }
        w.free(pageFirsts);
        MemorySegment counts = w.allocate(8L * p);
        MemorySegment incoming = w.allocate(8L * p);
        for (int j = 0; j < p; j++) {
            counts.setAtIndex(LONG, j, sendCounts[j]);
        }
        w.alltoall(counts, 1, Datatype.LONG, incoming);
        long[] recvCounts = new long[p];
        long[] recvDispls = new long[p];
        long total = 0;
        for (int j = 0; j < p; j++) {
            recvCounts[j] = incoming.getAtIndex(LONG, j);
            recvDispls[j] = total;
            total += recvCounts[j];
        }
        w.free(incoming);
        w.free(counts);
        MemorySegment received = w.allocate(8 * Math.max(1, total));
        w.alltoallv(local, sendCounts, sendDispls, Datatype.LONG, received, recvCounts, recvDispls);
        w.free(local);
        MemorySegment sortScratch = w.allocate(8 * Math.max(1, total));
        Keys.radixSort(received, sortScratch, total);
        w.free(sortScratch);
        return verify(w, received, total, xor, sum);
    }

    /**
     * Checks the sorted keys of every rank and returns the digest. Each rank checks its own order
     * and frees its keys before the one Allgather of the per-rank figures, so that the superstep
     * swaps no keys (under EM-BSP every superstep swaps what is allocated).
     */
    private long verify(Communicator w, MemorySegment sorted, long count, long xorIn, long sumIn) {
        int p = w.size();
        int r = w.rank();
        long xor = 0;
        long sum = 0;
        for (long i = 0; i < count; i++) {
            long k = sorted.getAtIndex(LONG, i);
            if (i > 0 && Long.compareUnsigned(sorted.getAtIndex(LONG, i - 1), k) > 0) {
                throw new AssertionError("sort: rank " + r + " is out of order at key " + i);
            }
            xor ^= k;
            sum += k;
        }
        // [count, min, max, xor in, sum in, xor out, sum out] per rank, gathered everywhere
        MemorySegment mine = w.allocate(8 * FIGURES);
        mine.setAtIndex(LONG, 0, count);
        mine.setAtIndex(LONG, 1, count == 0 ? 0 : sorted.getAtIndex(LONG, 0));
        mine.setAtIndex(LONG, 2, count == 0 ? 0 : sorted.getAtIndex(LONG, count - 1));
        mine.setAtIndex(LONG, 3, xorIn);
        mine.setAtIndex(LONG, 4, sumIn);
        mine.setAtIndex(LONG, 5, xor);
        mine.setAtIndex(LONG, 6, sum);
        w.free(sorted);
        MemorySegment all = w.allocate(8L * FIGURES * p);
        w.allgather(mine, FIGURES, Datatype.LONG, all);
        long totalCount = 0;
        long xorBefore = 0;
        long sumBefore = 0;
        long xorAfter = 0;
        long sumAfter = 0;
        long previousMax = 0;
        boolean seen = false;
        for (int q = 0; q < p; q++) {
            long c = all.getAtIndex(LONG, (long) FIGURES * q);
            totalCount += c;
            xorBefore ^= all.getAtIndex(LONG, (long) FIGURES * q + 3);
            sumBefore += all.getAtIndex(LONG, (long) FIGURES * q + 4);
            xorAfter ^= all.getAtIndex(LONG, (long) FIGURES * q + 5);
            sumAfter += all.getAtIndex(LONG, (long) FIGURES * q + 6);
            if (c > 0) {
                long min = all.getAtIndex(LONG, (long) FIGURES * q + 1);
                if (seen && Long.compareUnsigned(previousMax, min) > 0) {
                    throw new AssertionError("sort: rank " + q + " starts below the previous rank's largest key");
                }
                previousMax = all.getAtIndex(LONG, (long) FIGURES * q + 2);
                seen = true;
            }
        }
        w.free(all);
        w.free(mine);
        if (totalCount != keys || xorBefore != xorAfter || sumBefore != sumAfter) {
            throw new AssertionError("sort: keys lost or changed: " + totalCount + " of " + keys + " keys, xor " + xorAfter
                    + " vs " + xorBefore + ", sum " + sumAfter + " vs " + sumBefore);
        }
        // every rank computed this from the same gathered figures
        return xorAfter * 31 + sumAfter;
    }
}
