package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** MPI_Dims_create: balanced, non-increasing, fixed entries kept; DIMS for what cannot be factored. */
class DimsCreationTest {
    @Test
    void freeDimensionsAreTheClosestNonIncreasingFactorisation() {
        assertArrayEquals(new int[] {4, 3}, CartesianCommunicator.dimsCreate(12, new int[2]));
        assertArrayEquals(new int[] {9, 8}, CartesianCommunicator.dimsCreate(72, new int[2]), "a greedy split of primes gives 12 x 6");
        assertArrayEquals(new int[] {4, 3, 2}, CartesianCommunicator.dimsCreate(24, new int[] {0, 3, 0}));
        assertArrayEquals(new int[] {7, 1, 1}, CartesianCommunicator.dimsCreate(7, new int[3]));
        assertArrayEquals(new int[] {1}, CartesianCommunicator.dimsCreate(1, new int[1]));
        assertArrayEquals(new int[0], CartesianCommunicator.dimsCreate(1, new int[0]));
    }

    @Test
    void everyAnswerMultipliesOutAndNoOtherFactorisationIsCloser() {
        for (int dimensions = 1; dimensions <= 4; dimensions++) {
            for (int nodes = 1; nodes <= 300; nodes++) {
                int[] dims = CartesianCommunicator.dimsCreate(nodes, new int[dimensions]);
                int product = 1;
                for (int i = 0; i < dims.length; i++) {
                    product *= dims[i];
                    assertTrue(i == 0 || dims[i - 1] >= dims[i], "non-increasing for " + nodes);
                }
                assertEquals(nodes, product);
                assertEquals(closestSpread(nodes, dimensions, nodes), dims[0] - dims[dimensions - 1], "spread for " + nodes + " in "
                        + dimensions);
            }
        }
    }

    /** The least largest-minus-smallest of any non-increasing factorisation with factors at most {@code max} (brute force). */
    private static int closestSpread(int nodes, int dimensions, int max) {
        if (dimensions == 1) {
            return nodes <= max ? 0 : Integer.MAX_VALUE;
        }
        int best = Integer.MAX_VALUE;
        for (int d = Math.min(nodes, max); d >= 1; d--) {
            if (nodes % d == 0) {
                int rest = smallestOf(nodes / d, dimensions - 1, d);
                if (rest > 0) {
                    best = Math.min(best, d - rest);
                }
            }
        }
        return best;
    }

    /** The largest possible smallest factor (0 if none) of {@code nodes} in {@code dimensions} factors at most {@code max}. */
    private static int smallestOf(int nodes, int dimensions, int max) {
        if (dimensions == 1) {
            return nodes <= max ? nodes : 0;
        }
        int best = 0;
        for (int d = Math.min(nodes, max); d >= 1; d--) {
            if (nodes % d == 0) {
                best = Math.max(best, Math.min(d, smallestOf(nodes / d, dimensions - 1, d)));
            }
        }
        return best;
    }

    @Test
    void whatCannotBeFactoredIsADimsError() {
        assertEquals(ErrorClass.DIMS, assertThrows(LockstepException.class, () -> CartesianCommunicator.dimsCreate(10, new int[] {3, 0}))
                .errorClass());
        assertEquals(ErrorClass.DIMS, assertThrows(LockstepException.class, () -> CartesianCommunicator.dimsCreate(6, new int[] {4}))
                .errorClass());
        assertEquals(ErrorClass.DIMS, assertThrows(LockstepException.class, () -> CartesianCommunicator.dimsCreate(0, new int[1]))
                .errorClass());
        assertEquals(ErrorClass.DIMS, assertThrows(LockstepException.class, () -> CartesianCommunicator.dimsCreate(6, new int[] {-1, 0}))
                .errorClass());
    }
}
