package org.lockstep.mpiprograms;

/** The block layouts the programs' vector collectives share. */
final class Layouts {
    /** Counts and displacements of blocks, and the elements they span. */
    record Blocks(int[] counts, int[] displs, int total) {
    }

    private Layouts() {
    }

    /** Rank r's block holds r + 1 elements; the blocks lie in reverse rank order (displacements need not follow rank order). */
    static Blocks reverseRankOrder(int size) {
        int[] counts = new int[size];
        int[] displs = new int[size];
        int total = 0;
        for (int r = size - 1; r >= 0; r--) {
            counts[r] = r + 1;
            displs[r] = total;
            total += r + 1;
        }
        return new Blocks(counts, displs, total);
    }

    /** An alltoallv in which every rank sends k + 1 elements to rank k: what a rank sends. */
    static Blocks growingSends(int size) {
        return blocks(size, k -> k + 1);
    }

    /** What {@code rank} receives in that alltoallv: rank + 1 elements from every rank. */
    static Blocks growingReceives(int rank, int size) {
        return blocks(size, k -> rank + 1);
    }

    private static Blocks blocks(int size, java.util.function.IntUnaryOperator count) {
        int[] counts = new int[size];
        int[] displs = new int[size];
        int total = 0;
        for (int k = 0; k < size; k++) {
            counts[k] = count.applyAsInt(k);
            displs[k] = total;
            total += counts[k];
        }
        return new Blocks(counts, displs, total);
    }
}
