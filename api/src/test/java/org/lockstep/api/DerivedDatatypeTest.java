package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.SourceDSL;

/**
 * Derived datatypes against MPI 4.1 §5.1's definitions: bounds, sizes and extents of each
 * constructor, and packing checked against a reference type map (a plain list of byte offsets
 * in type-map order, built straight from the definitions) on generated nested types.
 */
class DerivedDatatypeTest {

    // ---------------------------------------------------------------- a reference model: byte offsets in order

    /** The reference type map of one element: the byte offsets of its data, in type-map order. */
    record Ref(List<Long> offsets, long lb, long extent) {
        static Ref of(Datatype basic) {
            List<Long> o = new ArrayList<>();
            for (long i = 0; i < basic.size(); i++) {
                o.add(i);
            }
            return new Ref(o, 0, basic.size());
        }

        /** Copies at the given byte displacements, bounds as MPI derives them (lb = min, ub = max over copies). */
        Ref copies(List<Long> displacements) {
            List<Long> o = new ArrayList<>();
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            for (long d : displacements) {
                for (long x : offsets) {
                    o.add(d + x);
                }
                lo = Math.min(lo, d + lb);
                hi = Math.max(hi, d + lb + extent);
            }
            return displacements.isEmpty() ? new Ref(o, 0, 0) : new Ref(o, lo, hi - lo);
        }
    }

    /** A generated datatype and its reference model, built side by side. */
    record Pair(Datatype type, Ref ref, String how) {
        @Override
        public String toString() {
            return how;
        }
    }

    private static Pair basic(Datatype t) {
        return new Pair(t, Ref.of(t), t.name());
    }

    private static Pair vector(Pair old, int count, int blockLength, int stride) {
        List<Long> d = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < blockLength; j++) {
                d.add(((long) i * stride + j) * old.ref.extent());
            }
        }
        return new Pair(Datatype.vector(count, blockLength, stride, old.type), old.ref.copies(d),
                "vector(" + count + "," + blockLength + "," + stride + "," + old.how + ")");
    }

    private static Pair indexed(Pair old, int[] lengths, int[] displacements) {
        List<Long> d = new ArrayList<>();
        for (int i = 0; i < lengths.length; i++) {
            for (int j = 0; j < lengths[i]; j++) {
                d.add(((long) displacements[i] + j) * old.ref.extent());
            }
        }
        return new Pair(Datatype.indexed(lengths, displacements, old.type), old.ref.copies(d),
                "indexed(" + java.util.Arrays.toString(lengths) + "," + java.util.Arrays.toString(displacements) + "," + old.how + ")");
    }

    private static Pair resized(Pair old, long lb, long extent) {
        return new Pair(Datatype.resized(old.type, lb, extent), new Ref(old.ref.offsets(), lb, extent),
                "resized(" + old.how + "," + lb + "," + extent + ")");
    }

    private static Gen<Pair> types(int depth) {
        Gen<Pair> leaf = SourceDSL.integers().between(0, 3).map(i -> basic(new Datatype[] {Datatype.BYTE, Datatype.SHORT,
                Datatype.INT, Datatype.DOUBLE}[i]));
        if (depth == 0) {
            return leaf;
        }
        Gen<Pair> inner = types(depth - 1);
        Gen<Pair> vectors = inner.zip(SourceDSL.integers().between(0, 4), SourceDSL.integers().between(1, 3),
                SourceDSL.integers().between(1, 5), (t, c, b, s) -> vector(t, c, b, Math.max(s, b)));
        Gen<Pair> indexeds = inner.zip(SourceDSL.integers().between(1, 4), SourceDSL.integers().between(0, 1_000),
                (t, n, seed) -> {
                    int[] lengths = new int[n];
                    int[] displs = new int[n];
                    int at = 0;
                    for (int i = 0; i < n; i++) {
                        lengths[i] = (seed >> i) % 3;
                        displs[i] = at + (seed >> (2 * i)) % 4;
                        at = displs[i] + lengths[i];
                    }
                    // reversed block order: the type map's order is not the memory order
                    if ((seed & 1) == 1) {
                        reverse(lengths);
                        reverse(displs);
                    }
                    return indexed(t, lengths, displs);
                });
        Gen<Pair> resizeds = inner.zip(SourceDSL.integers().between(0, 16), (t, pad) -> resized(t, 0, t.ref.extent() + pad));
        return leaf.mix(vectors, 40).mix(indexeds, 40).mix(resizeds, 20);
    }

    private static void reverse(int[] a) {
        for (int i = 0, j = a.length - 1; i < j; i++, j--) {
            int x = a[i];
            a[i] = a[j];
            a[j] = x;
        }
    }

    @Test
    void generatedTypesPackInTypeMapOrderAndUnpackBack() {
        qt().withExamples(400).forAll(types(2), SourceDSL.integers().between(0, 3)).checkAssert((p, count) -> {
            Datatype t = p.type.commit();
            Ref r = p.ref;
            assertEquals(r.offsets().size(), t.size(), "size of " + p);
            assertEquals(r.extent(), t.extent(), "extent of " + p);
            assertEquals(r.lb(), t.lowerBound(), "lb of " + p);
            long lo = r.offsets().stream().mapToLong(Long::longValue).min().orElse(0);
            long hi = r.offsets().stream().mapToLong(x -> x + 1).max().orElse(0);
            assertEquals(hi - lo, t.trueExtent(), "true extent of " + p);
            long span = count == 0 || r.offsets().isEmpty() ? 0 : hi + (count - 1) * Math.max(0, r.extent());
            MemorySegment in = MemorySegment.ofArray(new byte[(int) span + 3]);
            for (int i = 0; i < in.byteSize(); i++) {
                in.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
            }
            byte[] expected = new byte[(int) (count * t.size())];
            int k = 0;
            for (int e = 0; e < count; e++) {
                for (long off : r.offsets()) {
                    expected[k++] = in.get(ValueLayout.JAVA_BYTE, e * r.extent() + off);
                }
            }
            MemorySegment packed = MemorySegment.ofArray(new byte[expected.length + 5]);
            assertEquals(5 + expected.length, t.pack(in, count, packed, 5), "position after pack");
            assertArrayEquals(expected, packed.asSlice(5, expected.length).toArray(ValueLayout.JAVA_BYTE), "packed bytes of " + p);
            MemorySegment out = MemorySegment.ofArray(new byte[(int) in.byteSize()]);
            t.unpack(packed, 5, out, count);
            for (int e = 0; e < count; e++) {
                for (long off : r.offsets()) {
                    long at = e * r.extent() + off;
                    assertEquals(in.get(ValueLayout.JAVA_BYTE, at), out.get(ValueLayout.JAVA_BYTE, at), "unpacked byte " + at + " of " + p);
                }
            }
        });
    }

    @Test
    void boundsOfEachConstructorFollowTheStandard() {
        Datatype column = Datatype.vector(4, 1, 10, Datatype.DOUBLE);
        assertEquals(32, column.size());
        assertEquals((3 * 10 + 1) * 8, column.extent());
        assertFalse(column.isContiguous());
        Datatype c = Datatype.contiguous(3, Datatype.INT);
        assertEquals(12, c.size());
        assertEquals(12, c.extent());
        assertTrue(c.isContiguous());
        assertEquals(Datatype.INT, c.basicType());
        Datatype h = Datatype.hvector(2, 2, 20, Datatype.INT);
        assertEquals(16, h.size());
        assertEquals(28, h.extent());
        Datatype ib = Datatype.indexedBlock(2, new int[] {5, 1}, Datatype.SHORT);
        assertEquals(8, ib.size());
        assertEquals(2, ib.lowerBound());
        assertEquals(12, ib.extent());
        Datatype s = Datatype.struct(new int[] {1, 2}, new long[] {0, 8}, new Datatype[] {Datatype.INT, Datatype.DOUBLE});
        assertEquals(20, s.size());
        assertEquals(24, s.extent(), "no alignment padding");
        assertEquals(null, s.basicType());
        Datatype r = Datatype.resized(Datatype.INT, -4, 16);
        assertEquals(-4, r.lowerBound());
        assertEquals(16, r.extent());
        assertEquals(4, r.trueExtent());
        Datatype d = column.dup();
        assertEquals(column.extent(), d.extent());
        assertFalse(d.isCommitted(), "dup keeps the committed state");
        assertTrue(column.commit().dup().isCommitted());
    }

    @Test
    void subarrayPicksTheBlockInEitherOrder() {
        // 4x5 ints, rows 1..2, columns 2..4
        Datatype c = Datatype.subarray(new int[] {4, 5}, new int[] {2, 3}, new int[] {1, 2}, Datatype.Order.C, Datatype.INT).commit();
        int[] a = new int[20];
        for (int i = 0; i < 20; i++) {
            a[i] = i;
        }
        int[] packed = new int[6];
        c.pack(MemorySegment.ofArray(a), 1, MemorySegment.ofArray(packed), 0);
        assertArrayEquals(new int[] {7, 8, 9, 12, 13, 14}, packed);
        assertEquals(80, c.extent());
        assertEquals(0, c.lowerBound());
        // the same block in Fortran order: sizes and starts given fastest-first
        Datatype f = Datatype.subarray(new int[] {5, 4}, new int[] {3, 2}, new int[] {2, 1}, Datatype.Order.FORTRAN, Datatype.INT)
                .commit();
        int[] packedF = new int[6];
        f.pack(MemorySegment.ofArray(a), 1, MemorySegment.ofArray(packedF), 0);
        assertArrayEquals(packed, packedF);
    }

    @Test
    void partialElementsCountAsElementsNotAsWholeTypes() {
        Datatype three = Datatype.contiguous(3, Datatype.INT).commit();
        Status s = Status.of(0, 0, 20);
        assertEquals(Status.UNDEFINED, s.count(three));
        assertEquals(5, s.elements(three));
        Datatype mixed = Datatype.struct(new int[] {1, 1}, new long[] {0, 4}, new Datatype[] {Datatype.INT, Datatype.DOUBLE}).commit();
        assertEquals(3, Status.of(0, 0, 12 + 4).elements(mixed), "one whole (int, double) and the int of the next");
        assertEquals(1, Status.of(0, 0, 12).count(mixed));
    }

    @Test
    void bytesEndingInsideABasicElementHaveNoElementCount() {
        Datatype mixed = Datatype.struct(new int[] {1, 1}, new long[] {0, 8}, new Datatype[] {Datatype.DOUBLE, Datatype.INT}).commit();
        assertEquals(Status.UNDEFINED, Status.of(0, 0, 2 * 12 + 9).elements(mixed), "two pairs and 9 bytes of a double");
        assertEquals(Status.UNDEFINED, Status.of(0, 0, 12 + 8 + 2).elements(mixed), "a pair, a double and half an int");
        assertEquals(4, Status.of(0, 0, 12 + 8 + 4).elements(mixed));
        assertEquals(Status.UNDEFINED, Status.of(0, 0, 6).elements(Datatype.contiguous(3, Datatype.INT).commit()));
    }

    @Test
    void signaturesCompareTheBasicTypesInOrderWhateverTheLayout() {
        Datatype column = Datatype.vector(4, 1, 4, Datatype.LONG).commit();
        assertTrue(column.sameSignature(1, Datatype.LONG, 4));
        assertTrue(Datatype.LONG.sameSignature(8, column, 2));
        assertFalse(column.sameSignature(1, Datatype.LONG, 3));
        assertFalse(column.sameSignature(1, Datatype.DOUBLE, 4));
        Datatype intDouble = Datatype.struct(new int[] {1, 1}, new long[] {0, 8}, new Datatype[] {Datatype.INT, Datatype.DOUBLE}).commit();
        Datatype twoInts = Datatype.contiguous(2, Datatype.INT).commit();
        Datatype intThenTwoDoublesThenInt = Datatype.struct(new int[] {1, 2, 1}, new long[] {0, 8, 24},
                new Datatype[] {Datatype.INT, Datatype.DOUBLE, Datatype.INT}).commit();
        assertFalse(intDouble.sameSignature(2, intThenTwoDoublesThenInt, 1), "int, double, int, double against int, double, double, int");
        assertFalse(intDouble.sameSignature(1, twoInts, 1));
        Datatype doubleInt = Datatype.struct(new int[] {1, 1}, new long[] {0, 8}, new Datatype[] {Datatype.DOUBLE, Datatype.INT}).commit();
        Datatype intDoubleDoubleInt = Datatype.struct(new int[] {1, 1, 1}, new long[] {0, 8, 16},
                new Datatype[] {Datatype.INT, doubleInt, Datatype.DOUBLE}).commit();
        assertTrue(intDoubleDoubleInt.sameSignature(1, intDouble, 2), "int, double, int, double both ways");
        assertTrue(Datatype.struct(new int[] {2}, new long[] {0}, new Datatype[] {intDouble}).commit().sameSignature(3, intDoubleDoubleInt, 3));
        assertTrue(intDouble.sameSignature(0, twoInts, 0));
    }

    @Test
    void badTypesAreTypedErrors() {
        Datatype v = Datatype.vector(2, 1, 3, Datatype.INT);
        MemorySegment buf = MemorySegment.ofArray(new int[8]);
        MemorySegment out = MemorySegment.ofArray(new int[8]);
        assertEquals(ErrorClass.TYPE, assertThrows(LockstepException.class, () -> v.pack(buf, 1, out, 0)).errorClass(),
                "uncommitted");
        v.commit();
        v.pack(buf, 1, out, 0);
        v.free();
        assertEquals(ErrorClass.TYPE, assertThrows(LockstepException.class, () -> v.pack(buf, 1, out, 0)).errorClass(), "freed");
        assertEquals(ErrorClass.TYPE, assertThrows(LockstepException.class, v::free).errorClass(), "freed twice");
        assertEquals(ErrorClass.TYPE, assertThrows(LockstepException.class, () -> Datatype.contiguous(2, v)).errorClass(),
                "built from a freed type");
        assertEquals(ErrorClass.TYPE, assertThrows(LockstepException.class, Datatype.INT::free).errorClass(), "predefined");
        assertEquals(ErrorClass.TYPE, assertThrows(LockstepException.class, () -> Datatype.struct(new int[] {1, 1},
                new long[] {0, Long.MAX_VALUE - 2}, new Datatype[] {Datatype.INT, Datatype.INT})).errorClass(), "struct extent overflow");
        assertEquals(ErrorClass.TYPE, assertThrows(LockstepException.class, () -> Datatype.hvector(3, 1, Long.MAX_VALUE / 2,
                Datatype.INT)).errorClass(), "hvector extent overflow");
        Datatype before = Datatype.hindexed(new int[] {1}, new long[] {-8}, Datatype.INT).commit();
        assertEquals(ErrorClass.BUFFER, assertThrows(LockstepException.class, () -> before.pack(buf, 1, out, 0)).errorClass(),
                "data before the buffer's start");
    }

    @Test
    void reduceLocalRunsOnTheBasicElementsOfAColumn() {
        Datatype column = Datatype.vector(3, 1, 2, Datatype.LONG).commit();
        long[] in = {1, 100, 2, 100, 3};
        long[] inout = {10, -1, 20, -1, 30};
        Op.SUM.reduceLocal(MemorySegment.ofArray(in), MemorySegment.ofArray(inout), 1, column);
        assertArrayEquals(new long[] {11, -1, 22, -1, 33}, inout, "the gaps stay untouched");
        Datatype mixed = Datatype.struct(new int[] {1, 1}, new long[] {0, 8}, new Datatype[] {Datatype.LONG, Datatype.INT}).commit();
        assertEquals(ErrorClass.OP, assertThrows(LockstepException.class, () -> Op.SUM.reduceLocal(MemorySegment.ofArray(in),
                MemorySegment.ofArray(inout), 1, mixed)).errorClass());
    }
}
