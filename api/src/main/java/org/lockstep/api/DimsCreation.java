package org.lockstep.api;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code MPI_Dims_create}: the free dimensions are the non-increasing factorisation of what the
 * fixed ones leave whose largest and smallest factor are closest (an exhaustive search over the
 * divisors; handing prime factors greedily to the smallest dimension misses the balanced answer,
 * e.g. 12 x 6 for 72 in 2 dimensions, where 9 x 8 is closer).
 */
final class DimsCreation {
    private DimsCreation() {
    }

    static int[] fill(int nodes, int[] dims) {
        if (dims == null) {
            throw new LockstepException(ErrorClass.DIMS, "dims is null");
        }
        if (nodes < 1) {
            throw new LockstepException(ErrorClass.DIMS, "the number of nodes must be positive, got " + nodes);
        }
        long fixed = 1;
        int free = 0;
        for (int d : dims) {
            if (d < 0) {
                throw new LockstepException(ErrorClass.DIMS, "a dimension cannot be negative: " + d);
            }
            if (d == 0) {
                free++;
            } else {
                fixed *= d;
                if (fixed > nodes) {
                    break;
                }
            }
        }
        if (nodes % fixed != 0 || (free == 0 && fixed != nodes)) {
            throw new LockstepException(ErrorClass.DIMS, nodes + " nodes do not fill dimensions whose fixed entries multiply to "
                    + fixed + (free == 0 ? " (no free entry)" : ""));
        }
        if (free == 0) {
            return dims;
        }
        int rest = (int) (nodes / fixed);
        List<Integer> divisors = divisorsDescending(rest);
        int[] best = new int[free];
        int[] trial = new int[free];
        search(rest, 0, Integer.MAX_VALUE, divisors, trial, best, new int[] {Integer.MAX_VALUE});
        int next = 0;
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] == 0) {
                dims[i] = best[next++];
            }
        }
        return dims;
    }

    /** Fills {@code trial[at..]} with non-increasing divisors ≤ {@code max} multiplying to {@code n}, keeping the least spread in {@code best}. */
    private static void search(int n, int at, int max, List<Integer> divisors, int[] trial, int[] best, int[] bestSpread) {
        int left = trial.length - at;
        if (left == 1) {
            if (n <= max) {
                trial[at] = n;
                int spread = trial[0] - n;
                if (spread < bestSpread[0]) {
                    bestSpread[0] = spread;
                    System.arraycopy(trial, 0, best, 0, trial.length);
                }
            }
            return;
        }
        for (int d : divisors) {
            if (d > max || n % d != 0) {
                continue;
            }
            if (Math.pow(d, left) < n) {
                return; // smaller divisors cannot reach n either
            }
            if (at > 0 && d < trial[0] - bestSpread[0]) {
                return; // every completion is already less balanced than the best
            }
            trial[at] = d;
            search(n / d, at + 1, d, divisors, trial, best, bestSpread);
        }
    }

    private static List<Integer> divisorsDescending(int n) {
        List<Integer> low = new ArrayList<>();
        List<Integer> high = new ArrayList<>();
        for (int d = 1; (long) d * d <= n; d++) {
            if (n % d == 0) {
                low.add(d);
                if (d != n / d) {
                    high.add(n / d);
                }
            }
        }
        List<Integer> all = new ArrayList<>(high);
        for (int i = low.size() - 1; i >= 0; i--) {
            all.add(low.get(i));
        }
        return all;
    }
}
