package org.lockstep.spi.collective;

/**
 * The non-power-of-two fix-up of recursive doubling and halving: with p = 2<sup>k</sup> + rem
 * ranks, each even rank below 2·rem hands its data to the odd rank above it and sits out; the
 * others take new ranks 0 … 2<sup>k</sup>−1. New ranks are in the same order as the old ones and
 * each stands for a contiguous run of old ranks ({2i, 2i+1} for i &lt; rem, else {i + rem}), so
 * an algorithm that combines neighbouring groups of new ranks in order still combines in rank order.
 */
record FoldedRanks(int size, int pof2, int rem) {
    static FoldedRanks of(int size) {
        int pof2 = Integer.highestOneBit(size);
        return new FoldedRanks(size, pof2, size - pof2);
    }

    /** Number of doubling (or halving) steps among the new ranks. */
    int levels() {
        return Integer.numberOfTrailingZeros(pof2);
    }

    /** Whether {@code rank} hands its data to {@code rank + 1} and sits out. */
    boolean sitsOut(int rank) {
        return rank < 2 * rem && rank % 2 == 0;
    }

    /** Whether {@code rank} takes the data of {@code rank - 1} before the main steps. */
    boolean absorbs(int rank) {
        return rank < 2 * rem && rank % 2 == 1;
    }

    /** The new rank of {@code rank}, or -1 if it sits out. */
    int newRank(int rank) {
        if (rank < 2 * rem) {
            return rank % 2 == 1 ? rank / 2 : -1;
        }
        return rank - rem;
    }

    /** The old rank that plays new rank {@code newRank}. */
    int rankOf(int newRank) {
        return newRank < rem ? 2 * newRank + 1 : newRank + rem;
    }

    /** The lowest old rank that new rank {@code newRank} stands for ({@code size} for {@code pof2}). */
    int firstRankOf(int newRank) {
        if (newRank >= pof2) {
            return size;
        }
        return newRank < rem ? 2 * newRank : newRank + rem;
    }

    /**
     * The element ranges of recursive halving with the distance doubling from 1 (so that the two
     * partners of a step hold partial results of neighbouring groups of ranks): entry j is the
     * range new rank {@code newRank} works on before step j, entry {@code levels()} the block it
     * ends with. At step j it keeps the lower half if bit j of its new rank is clear.
     */
    long[][] halvingRanges(int newRank, long count) {
        int levels = levels();
        long[][] ranges = new long[levels + 1][];
        long lo = 0;
        long hi = count;
        ranges[0] = new long[] {lo, hi};
        for (int j = 0; j < levels; j++) {
            long mid = lo + (hi - lo) / 2;
            if ((newRank & (1 << j)) == 0) {
                hi = mid;
            } else {
                lo = mid;
            }
            ranges[j + 1] = new long[] {lo, hi};
        }
        return ranges;
    }
}
