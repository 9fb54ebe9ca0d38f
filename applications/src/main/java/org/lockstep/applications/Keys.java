package org.lockstep.applications;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

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
     * large). From {@link #SPLIT_FROM} keys on, one pass splits them by the 11 highest bits that
     * differ among them into 2048 buckets of {@code scratch}, and each bucket, small enough to stay
     * in the caches, is sorted on the bits below by a least-significant-digit sort of at most 11-bit
     * digits back into {@code keys}; fewer keys take the plain LSD sort. Three passes over memory
     * in place of seven: 4 Mi keys here in 20-21 ns a key against 28-36 (the sample sort's local and
     * final sorts are most of its CPU time).
     */
    public static void radixSort(MemorySegment keys, MemorySegment scratch, long count) {
        if (count < SPLIT_FROM) {
            lsdSort(keys, scratch, count);
            return;
        }
        long first = keys.getAtIndex(LONG, 0);
        long differing = 0;
        long[] bucketStart = new long[DIGITS + 1];
        // counted by the top 11 bits while looking: right unless those are all the same
        int topShift = Long.SIZE - DIGIT_BITS;
        for (long i = 0; i < count; i++) {
            long k = keys.getAtIndex(LONG, i);
            differing |= k ^ first;
            bucketStart[(int) (k >>> topShift)]++;
        }
        if (differing == 0) {
            return;
        }
        int shift = Math.max(0, Long.SIZE - Long.numberOfLeadingZeros(differing) - DIGIT_BITS);
        if (shift != topShift) {
            Arrays.fill(bucketStart, 0);
            for (long i = 0; i < count; i++) {
                bucketStart[(int) (keys.getAtIndex(LONG, i) >>> shift) & DIGIT_MASK]++;
            }
        }
        long at = 0;
        for (int d = 0; d <= DIGITS; d++) {
            long c = bucketStart[d];
            bucketStart[d] = at;
            at += c;
        }
        long[] next = bucketStart.clone();
        for (long i = 0; i < count; i++) {
            long k = keys.getAtIndex(LONG, i);
            scratch.setAtIndex(LONG, next[(int) (k >>> shift) & DIGIT_MASK]++, k);
        }
        int passes = (shift + DIGIT_BITS - 1) / DIGIT_BITS;
        int width = passes == 0 ? 0 : (shift + passes - 1) / passes;
        long[] histograms = new long[passes << width];
        for (int d = 0; d < DIGITS; d++) {
            sortBucket(scratch, keys, bucketStart[d], bucketStart[d + 1], passes, width, histograms);
        }
    }

    /** Keys from which {@link #radixSort} splits by the high bits first. */
    static final long SPLIT_FROM = 1L << 16;

    /**
     * Sorts {@code source[from, to)} on its {@code passes · width} low bits (the higher ones are
     * equal) into {@code target[from, to)}, the two ranges alternating as LSD passes of digits of
     * {@code width} bits (at most 11: the counts stay in the L1 cache); a pass whose digit all keys
     * share is skipped. {@code histograms} has room for every pass's counts.
     */
    private static void sortBucket(MemorySegment source, MemorySegment target, long from, long to, int passes, int width,
                                   long[] histograms) {
        int digits = 1 << width;
        int mask = digits - 1;
        Arrays.fill(histograms, 0);
        for (long i = from; i < to; i++) {
            long k = source.getAtIndex(LONG, i);
            for (int pass = 0; pass < passes; pass++) {
                histograms[pass * digits + ((int) (k >>> (pass * width)) & mask)]++;
            }
        }
        MemorySegment in = source;
        MemorySegment out = target;
        long n = to - from;
        for (int pass = 0; pass < passes && n > 1; pass++) {
            int base = pass * digits;
            int shift = pass * width;
            if (histograms[base + ((int) (in.getAtIndex(LONG, from) >>> shift) & mask)] == n) {
                continue; // every key has this digit: the pass would not move one
            }
            long at = from;
            for (int d = 0; d < digits; d++) {
                long c = histograms[base + d];
                histograms[base + d] = at;
                at += c;
            }
            for (long i = from; i < to; i++) {
                long k = in.getAtIndex(LONG, i);
                out.setAtIndex(LONG, histograms[base + ((int) (k >>> shift) & mask)]++, k);
            }
            MemorySegment t = in;
            in = out;
            out = t;
        }
        if (in != target && n > 0) {
            MemorySegment.copy(in, from * Long.BYTES, target, from * Long.BYTES, n * Long.BYTES);
        }
    }

    /**
     * The plain LSD sort: one pass counts all six 11-bit digits (2048 buckets fit in the L1/L2
     * caches, where 16-bit digits thrash the TLB), then six scatter passes; an even number of passes
     * leaves the result in {@code keys}.
     */
    private static void lsdSort(MemorySegment keys, MemorySegment scratch, long count) {
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
