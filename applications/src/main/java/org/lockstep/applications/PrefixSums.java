package org.lockstep.applications;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

/**
 * Prefix sums of N 64-bit values spread in blocks over the ranks: local prefix sums, an exclusive
 * scan of the block totals, and the offset added to every element. Value i is a key of the shared
 * stream reduced to 20 bits, so that every value can be recomputed where it is checked: each
 * element must be the one before it plus its value, each rank's offset the sum of the earlier
 * ranks' totals (gathered, summed at rank 0 and scattered back: independent of Exscan), and the
 * last rank's last element the allreduced total.
 */
public final class PrefixSums implements Application {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final long VALUE_MASK = (1L << 20) - 1;

    private final long values;

    public PrefixSums(long values) {
        if (values < 1) {
            throw new IllegalArgumentException("prefix sums need at least one value, got " + values);
        }
        this.values = values;
    }

    @Override
    public long size() {
        return values;
    }

    /** The data block, the p totals at the root (every context has the same size), a few words and the allocator's alignment. */
    @Override
    public long contextBytes(int ranks) {
        return 8 * (values / ranks + 1) + 8L * ranks + SampleSort.ALLOCATION_SLACK;
    }

    /** A few words: the data is all in the context. */
    @Override
    public long heapBytes(int ranks) {
        return 0;
    }

    /** The sum of all values. */
    @Override
    public long expectedDigest() {
        long sum = 0;
        for (long i = 0; i < values; i++) {
            sum += value(i);
        }
        return sum;
    }

    @Override
    public String name() {
        return "prefix-sums";
    }

    static long value(long i) {
        return Keys.key(Keys.DEFAULT_SEED, i) & VALUE_MASK;
    }

    @Override
    public long run(Communicator w) {
        int p = w.size();
        int r = w.rank();
        long first = values * r / p;
        long n = values * (r + 1) / p - first;
        MemorySegment data = w.allocate(8 * Math.max(1, n));
        long running = 0;
        for (long i = 0; i < n; i++) {
            running += value(first + i);
            data.setAtIndex(LONG, i, running);
        }
        MemorySegment total = w.allocate(8);
        MemorySegment offset = w.allocate(8);
        total.set(LONG, 0, running);
        offset.set(LONG, 0, 0);
        w.exscan(total, offset, 1, Datatype.LONG, Op.SUM);
        long before = r == 0 ? 0 : offset.get(LONG, 0);
        for (long i = 0; i < n; i++) {
            data.setAtIndex(LONG, i, data.getAtIndex(LONG, i) + before);
        }
        // check: every element is its predecessor plus its value, and each rank's offset is the sum of
        // the earlier ranks' totals, computed independently of Exscan: the totals are gathered at
        // rank 0, summed there in order, and the expected offsets scattered back (O(p) values, so
        // the check stays O(N + p) in total and each collective moves p words)
        long check = before;
        for (long i = 0; i < n; i++) {
            check += value(first + i);
            if (data.getAtIndex(LONG, i) != check) {
                throw new AssertionError("prefix-sums: element " + (first + i) + " is " + data.getAtIndex(LONG, i) + ", expected " + check);
            }
        }
        MemorySegment totals = w.allocate(8L * p);
        w.gather(total, 1, Datatype.LONG, totals, 0);
        if (r == 0) {
            long sumBefore = 0;
            for (int q = 0; q < p; q++) {
                long t = totals.getAtIndex(LONG, q);
                totals.setAtIndex(LONG, q, sumBefore);
                sumBefore += t;
            }
        }
        MemorySegment expected = w.allocate(8);
        w.scatter(totals, 1, Datatype.LONG, expected, 0);
        long expectedBefore = expected.get(LONG, 0);
        if (before != expectedBefore) {
            throw new AssertionError("prefix-sums: rank " + r + " starts at " + before + ", but the earlier ranks' totals sum to "
                    + expectedBefore);
        }
        w.free(expected);
        w.free(totals);
        MemorySegment grand = w.allocate(8);
        w.allreduce(total, grand, 1, Datatype.LONG, Op.SUM);
        long sum = grand.get(LONG, 0);
        if (r == p - 1 && n > 0 && data.getAtIndex(LONG, n - 1) != sum) {
            throw new AssertionError("prefix-sums: the last prefix " + data.getAtIndex(LONG, n - 1) + " is not the total " + sum);
        }
        w.free(grand);
        w.free(offset);
        w.free(total);
        w.free(data);
        return sum;
    }
}
