package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;

class OpTest {

    @Test
    void predefinedOperationsCombineElementwiseWithTheLeftOperandFirst() {
        int[] inout = {5, -3, 7};
        Op.SUM.apply(MemorySegment.ofArray(new int[] {1, 2, 3}), MemorySegment.ofArray(inout), 3, Datatype.INT);
        assertArrayEquals(new int[] {6, -1, 10}, inout);
        double[] d = {1.5, 2.5};
        Op.MAX.apply(MemorySegment.ofArray(new double[] {2.0, -1.0}), MemorySegment.ofArray(d), 2, Datatype.DOUBLE);
        assertArrayEquals(new double[] {2.0, 2.5}, d);
        long[] bits = {0b1100};
        Op.BXOR.apply(MemorySegment.ofArray(new long[] {0b1010}), MemorySegment.ofArray(bits), 1, Datatype.LONG);
        assertArrayEquals(new long[] {0b0110}, bits);
        byte[] logical = {0, 3};
        Op.LAND.apply(MemorySegment.ofArray(new byte[] {5, 4}), MemorySegment.ofArray(logical), 2, Datatype.BYTE);
        assertArrayEquals(new byte[] {0, 1}, logical);
    }

    @Test
    void minlocAndMaxlocBreakTiesTowardTheLowerIndex() {
        MemorySegment in = pairs(4.0, 7, 1.0, 9);
        MemorySegment inout = pairs(4.0, 3, 2.0, 2);
        Op.MINLOC.apply(in, inout, 2, Datatype.DOUBLE_INT);
        assertEquals(4.0, inout.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0));
        assertEquals(3, inout.get(ValueLayout.JAVA_INT_UNALIGNED, 8), "tie keeps the lower index");
        assertEquals(1.0, inout.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 12));
        assertEquals(9, inout.get(ValueLayout.JAVA_INT_UNALIGNED, 20));
        MemorySegment max = pairs(4.0, 1, 0.0, 0);
        Op.MAXLOC.apply(pairs(4.0, 0, 5.0, 4), max, 2, Datatype.DOUBLE_INT);
        assertEquals(0, max.get(ValueLayout.JAVA_INT_UNALIGNED, 8));
        assertEquals(4, max.get(ValueLayout.JAVA_INT_UNALIGNED, 20));
    }

    private static MemorySegment pairs(double v0, int i0, double v1, int i1) {
        MemorySegment s = MemorySegment.ofArray(new byte[24]);
        s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, v0);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 8, i0);
        s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 12, v1);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 20, i1);
        return s;
    }

    @Test
    void operationsRefuseTypesTheyAreNotDefinedOn() {
        LockstepException e = assertThrows(LockstepException.class, () ->
                Op.BAND.apply(MemorySegment.ofArray(new double[1]), MemorySegment.ofArray(new double[1]), 1, Datatype.DOUBLE));
        assertEquals(ErrorClass.OP, e.errorClass());
        assertFalse(Op.MINLOC.supports(Datatype.INT));
        assertTrue(Op.MINLOC.supports(Datatype.INT_INT));
    }

    @Test
    void shortBuffersAreABufferError() {
        LockstepException e = assertThrows(LockstepException.class, () ->
                Op.SUM.apply(MemorySegment.ofArray(new int[2]), MemorySegment.ofArray(new int[3]), 3, Datatype.INT));
        assertEquals(ErrorClass.BUFFER, e.errorClass());
    }

    @Test
    void userOperationsKeepTheirCommutativityAndAreCalled() {
        Op concatenateDigits = Op.create((in, inout, count, type) -> {
            for (long i = 0; i < count; i++) {
                int a = in.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
                int b = inout.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
                inout.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, a * 10 + b);
            }
        }, false);
        assertFalse(concatenateDigits.isCommutative());
        int[] inout = {2};
        concatenateDigits.apply(MemorySegment.ofArray(new int[] {1}), MemorySegment.ofArray(inout), 1, Datatype.INT);
        assertEquals(12, inout[0], "in is the left operand");
    }

    /** Long counts go through the chunked bulk path: every element, across chunk ends and in a native segment, as one at a time. */
    @Test
    void longReductionsGiveTheSameElementsAsShortOnes() {
        int count = 5003;
        java.util.Random random = new java.util.Random(42);
        for (Op op : new Op[] {Op.SUM, Op.PROD, Op.MAX, Op.MIN, Op.BXOR, Op.LOR}) {
            for (Datatype type : new Datatype[] {Datatype.DOUBLE, Datatype.FLOAT, Datatype.LONG, Datatype.INT}) {
                if (!op.supports(type)) {
                    continue;
                }
                long bytes = type.byteLength(count);
                MemorySegment in = java.lang.foreign.Arena.ofAuto().allocate(bytes, 8);
                MemorySegment inout = MemorySegment.ofArray(new long[(int) (bytes / 8 + 1)]).asSlice(0, bytes);
                for (long b = 0; b < bytes; b++) {
                    in.set(ValueLayout.JAVA_BYTE, b, (byte) random.nextInt(4));
                    inout.set(ValueLayout.JAVA_BYTE, b, (byte) random.nextInt(4));
                }
                MemorySegment expected = MemorySegment.ofArray(new byte[(int) bytes]);
                MemorySegment.copy(inout, 0, expected, 0, bytes);
                long size = type.size();
                for (long e = 0; e < count; e++) {
                    // one element at a time: below the bulk threshold
                    op.apply(in.asSlice(e * size, size), expected.asSlice(e * size, size), 1, type);
                }
                op.apply(in, inout, count, type);
                assertEquals(-1, inout.mismatch(expected), op + " on " + type + ": first differing byte");
            }
        }
    }
}
