package org.lockstep.applications;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * 64-bit keys and the in-place tools the applications share: the splitmix64 key stream of the
 * STXXL peer ({@code ../shared/peers/em/stxxl_sort.cpp}: key i is the (i+1)-th output from seed
 * 12345, so any rank can make its slice), and an LSD radix sort of unsigned keys that works on
 * {@link MemorySegment}s with a scratch segment of the same size — no Java heap, so that under
 * EM-BSP the data stays in the swapped context.
 */
public final class Keys {
    public static final long DEFAULT_SEED = 12345;
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    private static final int DIGIT_BITS = 16;
    private static final int DIGITS = 1 << DIGIT_BITS;
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

    /** Sorts the {@code count} longs of {@code keys} as unsigned numbers, using {@code scratch} (as large). */
    public static void radixSort(MemorySegment keys, MemorySegment scratch, long count) {
        int[] histogram = new int[DIGITS];
        MemorySegment from = keys;
        MemorySegment to = scratch;
        for (int shift = 0; shift < Long.SIZE; shift += DIGIT_BITS) {
            java.util.Arrays.fill(histogram, 0);
            for (long i = 0; i < count; i++) {
                histogram[(int) (from.getAtIndex(LONG, i) >>> shift) & (DIGITS - 1)]++;
            }
            long at = 0;
            long[] start = new long[DIGITS];
            for (int d = 0; d < DIGITS; d++) {
                start[d] = at;
                at += histogram[d];
            }
            for (long i = 0; i < count; i++) {
                long k = from.getAtIndex(LONG, i);
                int d = (int) (k >>> shift) & (DIGITS - 1);
                to.setAtIndex(LONG, start[d]++, k);
            }
            MemorySegment t = from;
            from = to;
            to = t;
        }
        // an even number of passes leaves the result in keys
    }

    /** The index of the first of the {@code count} sorted keys that is not below {@code bound} (unsigned). */
    public static long lowerBound(MemorySegment sorted, long count, long bound) {
        long lo = 0;
        long hi = count;
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
