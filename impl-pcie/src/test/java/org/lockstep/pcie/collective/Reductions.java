package org.lockstep.pcie.collective;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

/** Inputs of reduction tests and their sequential reference: the fold of every rank's input in rank order. */
final class Reductions {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final int MODULUS = 251;

    /**
     * A non-commutative, associative user operation on INT: each int packs a 2x2 matrix of bytes
     * mod 251 ({@code [a b; c d]} in bytes 0–3), and {@code inout = in × inout}. Any two ranks
     * combined out of order give a different product (almost always).
     */
    static final Op MATRIX = Op.create(Reductions::multiplyMatrices, false);

    /** Integer addition as a user-defined commutative operation on INT (exercises the user-op path). */
    static final Op USER_SUM = Op.create((in, inout, count, type) -> {
        for (long i = 0; i < count; i++) {
            inout.set(INT, i * 4, in.get(INT, i * 4) + inout.get(INT, i * 4));
        }
    }, true);

    private Reductions() {
    }

    private static void multiplyMatrices(MemorySegment in, MemorySegment inout, long count, Datatype type) {
        for (long i = 0; i < count; i++) {
            int x = in.get(INT, i * 4);
            int y = inout.get(INT, i * 4);
            int a = x & 0xFF;
            int b = (x >>> 8) & 0xFF;
            int c = (x >>> 16) & 0xFF;
            int d = x >>> 24;
            int e = y & 0xFF;
            int f = (y >>> 8) & 0xFF;
            int g = (y >>> 16) & 0xFF;
            int h = y >>> 24;
            inout.set(INT, i * 4, matrix((a * e + b * g) % MODULUS, (a * f + b * h) % MODULUS,
                    (c * e + d * g) % MODULUS, (c * f + d * h) % MODULUS));
        }
    }

    private static int matrix(int a, int b, int c, int d) {
        return a | b << 8 | c << 16 | d << 24;
    }

    /** A pseudo-random value of case {@code salt}, rank, element. */
    private static long random(int rank, long element, long salt) {
        return CollectiveTesting.mix(CollectiveTesting.mix(salt * 31 + rank) ^ element);
    }

    /**
     * Writes rank {@code rank}'s input of {@code count} elements: values for which the operation
     * is exact and associative in every bracketing (small integers for floating-point sums,
     * powers of two for products, ties for MINLOC/MAXLOC with the rank as index), so that any
     * correct algorithm matches the reference bit for bit.
     */
    static void input(MemorySegment target, long count, Datatype type, Op op, int rank, long salt) {
        long size = type.size();
        for (long i = 0; i < count; i++) {
            long v = random(rank, i, salt);
            long at = i * size;
            if (op == MATRIX) {
                target.set(INT, at, matrix(mod(v), mod(v >>> 8), mod(v >>> 16), mod(v >>> 24)));
                continue;
            }
            switch (type.kind()) {
                case BYTE -> target.set(ValueLayout.JAVA_BYTE, at, (byte) v);
                case BOOLEAN -> target.set(ValueLayout.JAVA_BYTE, at, (byte) (v & 1));
                case SHORT -> target.set(ValueLayout.JAVA_SHORT_UNALIGNED, at, (short) v);
                case CHAR -> target.set(ValueLayout.JAVA_CHAR_UNALIGNED, at, (char) v);
                case INT -> target.set(INT, at, (int) v);
                case LONG -> target.set(ValueLayout.JAVA_LONG_UNALIGNED, at, v);
                case FLOAT -> target.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, (float) exact(v, op));
                case DOUBLE -> target.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, exact(v, op));
                case PAIR -> {
                    // few distinct values, so that ties (broken by the lowest index) are common
                    long value = Math.floorMod(v, 3);
                    switch (type.valueType().kind()) {
                        case INT -> target.set(INT, at, (int) value);
                        case LONG -> target.set(ValueLayout.JAVA_LONG_UNALIGNED, at, value);
                        case FLOAT -> target.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, (float) value);
                        case DOUBLE -> target.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, (double) value);
                        default -> throw new IllegalArgumentException(type.toString());
                    }
                    target.set(INT, at + type.valueType().size(), rank);
                }
            }
        }
    }

    private static int mod(long v) {
        return (int) Math.floorMod(v, (long) MODULUS);
    }

    /** Floating-point inputs whose sums and products are exact: small integers, or ±1 and ±2 for products. */
    private static double exact(long v, Op op) {
        if (op == Op.PROD) {
            double[] factors = {1, -1, 2, -2, 0.5};
            return factors[(int) Math.floorMod(v, (long) factors.length)];
        }
        return Math.floorMod(v, 200L) - 100;
    }

    static MemorySegment input(long count, Datatype type, Op op, int rank, long salt) {
        MemorySegment s = CollectiveTesting.bytes(count * type.size());
        input(s, count, type, op, rank, salt);
        return s;
    }

    /** x<sub>from</sub> ∘ … ∘ x<sub>to</sub> (inclusive), element-wise, as a sequential program computes it. */
    static MemorySegment reference(long count, Datatype type, Op op, long salt, int from, int to) {
        MemorySegment acc = input(count, type, op, to, salt);
        for (int r = to - 1; r >= from; r--) {
            op.apply(input(count, type, op, r, salt), acc, count, type);
        }
        return acc;
    }
}
