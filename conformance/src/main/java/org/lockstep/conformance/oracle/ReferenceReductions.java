package org.lockstep.conformance.oracle;

import java.util.List;

/**
 * Reference results of reductions, computed the plain way for the collective rules: element by
 * element, combining the ranks' contributions in rank order (which is also the order MPI fixes for
 * non-commutative operations).
 */
public final class ReferenceReductions {
    /** A binary operation on one element type. */
    @FunctionalInterface
    public interface Combine<T> {
        T apply(T accumulated, T next);
    }

    private ReferenceReductions() {
    }

    /** {@code contributions.get(r)[i]} combined over r in rank order, for each i. */
    public static long[] reduce(List<long[]> contributions, Combine<Long> op) {
        int n = contributions.getFirst().length;
        long[] out = contributions.getFirst().clone();
        for (int r = 1; r < contributions.size(); r++) {
            long[] next = contributions.get(r);
            if (next.length != n) {
                throw new IllegalArgumentException("rank " + r + " contributes " + next.length + " elements, rank 0 " + n);
            }
            for (int i = 0; i < n; i++) {
                out[i] = op.apply(out[i], next[i]);
            }
        }
        return out;
    }

    /** As {@link #reduce(List, Combine)} for doubles. */
    public static double[] reduceDoubles(List<double[]> contributions, Combine<Double> op) {
        int n = contributions.getFirst().length;
        double[] out = contributions.getFirst().clone();
        for (int r = 1; r < contributions.size(); r++) {
            double[] next = contributions.get(r);
            if (next.length != n) {
                throw new IllegalArgumentException("rank " + r + " contributes " + next.length + " elements, rank 0 " + n);
            }
            for (int i = 0; i < n; i++) {
                out[i] = op.apply(out[i], next[i]);
            }
        }
        return out;
    }

    /** The inclusive prefix reductions (MPI's scan): element r is the reduction of ranks 0..r. */
    public static List<long[]> scan(List<long[]> contributions, Combine<Long> op) {
        return java.util.stream.IntStream.range(0, contributions.size())
                .mapToObj(r -> reduce(contributions.subList(0, r + 1), op)).toList();
    }
}
