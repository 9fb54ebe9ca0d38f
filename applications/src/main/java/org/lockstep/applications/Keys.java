package org.lockstep.applications;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * 64-bit keys and the in-place tools the applications share: the splitmix64 key stream that the
 * STXXL peer sorts too ({@code bench/peers/em/stxxl-sort.cpp}: key i is the (i+1)-th output from
 * seed 12345, so any rank can make its slice), and an LSD radix sort of unsigned keys that works on
 * {@link MemorySegment}s with a scratch segment of the same size — no Java heap, so that under
 * EM-BSP the data stays in the swapped context.
 */
public final class Keys {
    public static final long DEFAULT_SEED = 12345;
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    private static final int DIGIT_BITS = 11;
    private static final int DIGITS = 1 << DIGIT_BITS;
    private static final int DIGIT_MASK = DIGITS - 1;
    /** ⌈64 / 11⌉ = 6 passes: even, so the sorted keys end where they started. */
    private static final int PASSES = (Long.SIZE + DIGIT_BITS - 1) / DIGIT_BITS;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private Keys() {
    }

    /** Key {@code index} of the stream from {@code seed}. */
    public static long key(long seed, long index) {
        long z = seed + (index + 1) * GOLDEN_GAMMA;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Sorts the {@code count} longs of {@code keys} as unsigned numbers, using {@code scratch} (as
     * large): one pass counts all six 11-bit digits (2048 buckets fit in the L1/L2 caches, where
     * 16-bit digits thrash the TLB), then six scatter passes; an even number of passes leaves the
     * result in {@code keys}.
     */
    public static void radixSort(MemorySegment keys, MemorySegment scratch, long count) {
        if (count == 0) {
            return;
        }
        long[][] histograms = new long[PASSES][DIGITS];
        for (long i = 0; i < count; i++) {
            long k = keys.getAtIndex(LONG, i);
            for (int pass = 0; pass < PASSES; pass++) {
                histograms[pass][(int) (k >>> (pass * DIGIT_BITS)) & DIGIT_MASK]++;
            }
        }
        MemorySegment from = keys;
        MemorySegment to = scratch;
        for (int pass = 0; pass < PASSES; pass++) {
            long[] start = histograms[pass];
            if (start[(int) (from.getAtIndex(LONG, 0) >>> (pass * DIGIT_BITS)) & DIGIT_MASK] == count) {
                // every key has the same digit: a straight copy replaces the scatter (the pass count stays even, so the result ends in keys)
                MemorySegment.copy(from, 0, to, 0, count * Long.BYTES);
            } else {
                long at = 0;
                for (int d = 0; d < DIGITS; d++) {
                    long c = start[d];
                    start[d] = at;
                    at += c;
                }
                int shift = pass * DIGIT_BITS;
                for (long i = 0; i < count; i++) {
                    long k = from.getAtIndex(LONG, i);
                    to.setAtIndex(LONG, start[(int) (k >>> shift) & DIGIT_MASK]++, k);
                }
            }
            MemorySegment t = from;
            from = to;
            to = t;
        }
    }

    /** The index of the first of the {@code count} sorted keys that is not below {@code bound} (unsigned). */
    public static long lowerBound(MemorySegment sorted, long count, long bound) {
        return lowerBound(sorted, 0, count, bound);
    }

    /** The index of the first of the sorted keys {@code [from, to)} that is not below {@code bound} (unsigned); {@code to} if none. */
    public static long lowerBound(MemorySegment sorted, long from, long to, long bound) {
        long lo = from;
        long hi = to;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(sorted.getAtIndex(LONG, mid), bound) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
