package org.lockstep.applications;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

/**
 * Prefix sums of N 64-bit values spread in blocks over the ranks: local prefix sums, an exclusive
 * scan of the block totals, and the offset added to every element. Value i is a key of the shared
 * stream reduced to 20 bits, so every prefix is checked against a closed form computed on the
 * side: element i must equal the sum of values 0..i (checked for every element by a second
 * running sum), and the last rank's last element must equal the allreduced total.
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

    /** The data block, three words and the allocator's alignment. */
    @Override
    public long contextBytes(int ranks) {
        return 8 * (values / ranks + 1) + SampleSort.ALLOCATION_SLACK;
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
        // check: the offset is the sum of all earlier values, every element the running sum from it
        long expectedBefore = 0;
        for (long i = 0; i < first; i++) {
            expectedBefore += value(i);
        }
        if (before != expectedBefore) {
            throw new AssertionError("prefix-sums: rank " + r + " starts at " + before + ", expected " + expectedBefore);
        }
        long check = expectedBefore;
        for (long i = 0; i < n; i++) {
            check += value(first + i);
            if (data.getAtIndex(LONG, i) != check) {
                throw new AssertionError("prefix-sums: element " + (first + i) + " is " + data.getAtIndex(LONG, i) + ", expected " + check);
            }
        }
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
