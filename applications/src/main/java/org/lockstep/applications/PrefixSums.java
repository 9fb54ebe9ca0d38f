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
 * element must be the one before it plus its value, the first element of each rank the last of the
 * rank before plus its value (passed on by one point-to-point message to the right, so the check
 * stays O(N) in total), and the last rank's last element the allreduced total.
 */
public final class PrefixSums implements Application {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final long VALUE_MASK = (1L << 20) - 1;
    /** Tag of the message that passes a rank's last prefix to the next rank. */
    private static final int CHAIN_TAG = 7;

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
        // check, by induction along the ranks: every element is its predecessor plus its value, and
        // a rank starts where the previous one ended (its last prefix, passed on to the right)
        long check = before;
        for (long i = 0; i < n; i++) {
            check += value(first + i);
            if (data.getAtIndex(LONG, i) != check) {
                throw new AssertionError("prefix-sums: element " + (first + i) + " is " + data.getAtIndex(LONG, i) + ", expected " + check);
            }
        }
        MemorySegment last = w.allocate(8);
        MemorySegment previous = w.allocate(8);
        last.set(LONG, 0, check);
        previous.set(LONG, 0, 0);
        w.sendrecv(last, 1, Datatype.LONG, r + 1 < p ? r + 1 : Communicator.PROC_NULL, CHAIN_TAG,
                previous, 1, Datatype.LONG, r > 0 ? r - 1 : Communicator.PROC_NULL, CHAIN_TAG);
        long expectedBefore = r == 0 ? 0 : previous.get(LONG, 0);
        if (before != expectedBefore) {
            throw new AssertionError("prefix-sums: rank " + r + " starts at " + before + ", but rank " + (r - 1) + " ended at "
                    + expectedBefore);
        }
        w.free(previous);
        w.free(last);
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
