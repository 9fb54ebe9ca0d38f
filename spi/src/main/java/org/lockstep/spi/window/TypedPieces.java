package org.lockstep.spi.window;

import java.util.Arrays;

import org.lockstep.api.Datatype;

/**
 * The contiguous pieces that the buffers of one one-sided access share when each has its own
 * datatype of one signature (origin, target, and a get-accumulate's result): each buffer's pieces
 * ({@link Datatype#forEachPiece}) cut where any buffer's piece ends, so every cut is contiguous
 * in all of them. One type on every side gives its own pieces at the same offsets.
 */
final class TypedPieces {
    /** A piece of {@code length} bytes at {@code offsets[b]} of each buffer {@code b} (the array is reused). */
    @FunctionalInterface
    interface Visitor {
        void piece(long[] offsets, long length);
    }

    private TypedPieces() {
    }

    /**
     * Visits the pieces of buffers laid out as {@code counts[b]} elements of {@code types[b]}; the
     * types have one signature, so their data lengths agree.
     */
    static void forEach(long[] counts, Datatype[] types, Visitor visitor) {
        int n = types.length;
        long[] offsets = new long[n];
        if (sameLayout(counts, types)) {
            types[0].forEachPiece(counts[0], (offset, length) -> {
                Arrays.fill(offsets, offset);
                visitor.piece(offsets, length);
            });
            return;
        }
        long[][] pieces = new long[n][];
        for (int b = 0; b < n; b++) {
            pieces[b] = piecesOf(counts[b], types[b]);
        }
        int[] at = new int[n];
        long[] used = new long[n];
        while (2 * at[0] < pieces[0].length) {
            long length = Long.MAX_VALUE;
            for (int b = 0; b < n; b++) {
                length = Math.min(length, pieces[b][2 * at[b] + 1] - used[b]);
                offsets[b] = pieces[b][2 * at[b]] + used[b];
            }
            visitor.piece(offsets, length);
            for (int b = 0; b < n; b++) {
                used[b] += length;
                if (used[b] == pieces[b][2 * at[b] + 1]) {
                    at[b]++;
                    used[b] = 0;
                }
            }
        }
    }

    private static boolean sameLayout(long[] counts, Datatype[] types) {
        for (int b = 1; b < types.length; b++) {
            boolean same = types[b] == types[0] && counts[b] == counts[0]
                    || types[b].isContiguous() && types[0].isContiguous(); // one piece each, of the same length
            if (!same) {
                return false;
            }
        }
        return true;
    }

    /** The (offset, length) pairs of {@code count} elements of {@code type}, in order. */
    private static long[] piecesOf(long count, Datatype type) {
        long[][] out = {new long[16]};
        int[] size = {0};
        type.forEachPiece(count, (offset, length) -> {
            if (size[0] + 2 > out[0].length) {
                out[0] = Arrays.copyOf(out[0], out[0].length * 2);
            }
            out[0][size[0]++] = offset;
            out[0][size[0]++] = length;
        });
        return Arrays.copyOf(out[0], size[0]);
    }
}
