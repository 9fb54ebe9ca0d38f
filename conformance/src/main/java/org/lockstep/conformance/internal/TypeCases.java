package org.lockstep.conformance.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.lockstep.api.Datatype;

/**
 * Generated derived datatypes, each with a reference type map built straight from MPI 4.1
 * §5.1's definitions (a list of byte offsets in type-map order), simplest first: one of each
 * constructor over a basic type, then random nestings of them. Offsets are never negative, so
 * every type fits a buffer from its start.
 */
final class TypeCases {
    private TypeCases() {
    }

    /** A datatype and its reference: the byte offsets of one element's data, in order, and its extent. */
    record Case(Datatype type, long[] offsets, long extent, String description) {
        /** Bytes of buffer {@code count} elements reach. */
        long span(int count) {
            long end = 0;
            for (long o : offsets) {
                end = Math.max(end, o + 1);
            }
            return count == 0 ? 0 : end + (count - 1) * extent;
        }

        /** The packed form of {@code count} elements of {@code buffer}, by the reference map. */
        byte[] packed(MemorySegment buffer, int count) {
            byte[] out = new byte[count * offsets.length];
            int k = 0;
            for (int e = 0; e < count; e++) {
                for (long o : offsets) {
                    out[k++] = buffer.get(ValueLayout.JAVA_BYTE, e * extent + o);
                }
            }
            return out;
        }

        /** Which bytes of a buffer of {@code bytes} bytes hold data of {@code count} elements. */
        boolean[] dataBytes(int count, int bytes) {
            boolean[] data = new boolean[bytes];
            for (int e = 0; e < count; e++) {
                for (long o : offsets) {
                    data[(int) (e * extent + o)] = true;
                }
            }
            return data;
        }

        @Override
        public String toString() {
            return description;
        }
    }

    private static Case basic(Datatype t) {
        long[] o = new long[(int) t.size()];
        for (int i = 0; i < o.length; i++) {
            o[i] = i;
        }
        return new Case(t, o, t.size(), t.name());
    }

    /** Copies of {@code old} at byte displacements; bounds as MPI derives them. */
    private static Case copies(Datatype made, Case old, long[] displacements, String description) {
        long[] o = new long[old.offsets.length * displacements.length];
        int k = 0;
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (long d : displacements) {
            for (long x : old.offsets) {
                o[k++] = d + x;
            }
            lo = Math.min(lo, d + old.type.lowerBound());
            hi = Math.max(hi, d + old.type.lowerBound() + old.extent);
        }
        return new Case(made.commit(), o, displacements.length == 0 ? 0 : hi - lo, description);
    }

    static Case contiguous(Case old, int n) {
        long[] d = new long[n];
        for (int i = 0; i < n; i++) {
            d[i] = i * old.extent;
        }
        return copies(Datatype.contiguous(n, old.type), old, d, "contiguous(" + n + ", " + old + ")");
    }

    static Case vector(Case old, int count, int block, int stride) {
        long[] d = new long[count * block];
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < block; j++) {
                d[i * block + j] = ((long) i * stride + j) * old.extent;
            }
        }
        return copies(Datatype.vector(count, block, stride, old.type), old, d,
                "vector(" + count + ", " + block + ", " + stride + ", " + old + ")");
    }

    static Case hvector(Case old, int count, int block, long strideBytes) {
        long[] d = new long[count * block];
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < block; j++) {
                d[i * block + j] = i * strideBytes + j * old.extent;
            }
        }
        return copies(Datatype.hvector(count, block, strideBytes, old.type), old, d,
                "hvector(" + count + ", " + block + ", " + strideBytes + ", " + old + ")");
    }

    static Case indexed(Case old, int[] lengths, int[] displacements) {
        List<Long> d = new ArrayList<>();
        for (int i = 0; i < lengths.length; i++) {
            for (int j = 0; j < lengths[i]; j++) {
                d.add(((long) displacements[i] + j) * old.extent);
            }
        }
        return copies(Datatype.indexed(lengths, displacements, old.type), old, d.stream().mapToLong(Long::longValue).toArray(),
                "indexed(" + java.util.Arrays.toString(lengths) + ", " + java.util.Arrays.toString(displacements) + ", " + old + ")");
    }

    static Case indexedBlock(Case old, int block, int[] displacements) {
        long[] d = new long[block * displacements.length];
        for (int i = 0; i < displacements.length; i++) {
            for (int j = 0; j < block; j++) {
                d[i * block + j] = ((long) displacements[i] + j) * old.extent;
            }
        }
        return copies(Datatype.indexedBlock(block, displacements, old.type), old, d,
                "indexedBlock(" + block + ", " + java.util.Arrays.toString(displacements) + ", " + old + ")");
    }

    static Case struct(Case a, Case b, long gap) {
        long bAt = a.extent + gap;
        long[] o = new long[a.offsets.length + 2 * b.offsets.length];
        int k = 0;
        for (long x : a.offsets) {
            o[k++] = x;
        }
        for (int copy = 0; copy < 2; copy++) {
            for (long x : b.offsets) {
                o[k++] = bAt + copy * b.extent + x;
            }
        }
        Datatype t = Datatype.struct(new int[] {1, 2}, new long[] {0, bAt}, new Datatype[] {a.type, b.type});
        long lo = Math.min(a.type.lowerBound(), bAt + b.type.lowerBound());
        long hi = Math.max(a.type.lowerBound() + a.extent, bAt + b.type.lowerBound() + 2 * b.extent);
        return new Case(t.commit(), o, hi - lo, "struct(" + a + " at 0, 2 x " + b + " at " + bAt + ")");
    }

    static Case resized(Case old, long extraExtent) {
        return new Case(Datatype.resized(old.type, old.type.lowerBound(), old.extent + extraExtent).commit(), old.offsets,
                old.extent + extraExtent, "resized(" + old + ", +" + extraExtent + ")");
    }

    /** Rows {@code r0..r0+rows-1} and columns {@code c0..c0+cols-1} of an {@code n x m} row-major array of {@code old}. */
    static Case subarray(Case old, int n, int m, int r0, int c0, int rows, int cols) {
        long[] d = new long[rows * cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                d[i * cols + j] = ((long) (r0 + i) * m + c0 + j) * old.extent;
            }
        }
        Case c = copies(Datatype.subarray(new int[] {n, m}, new int[] {rows, cols}, new int[] {r0, c0}, Datatype.Order.C, old.type),
                old, d, "subarray(" + n + "x" + m + " [" + r0 + "+" + rows + ", " + c0 + "+" + cols + "], " + old + ")");
        return new Case(c.type, c.offsets, (long) n * m * old.extent, c.description);
    }

    /** One case of each constructor over basic types, then {@code nested} random nestings. */
    static List<Case> generated(long seed, int nested) {
        SplittableRandom random = new SplittableRandom(seed);
        Case dbl = basic(Datatype.DOUBLE);
        Case integer = basic(Datatype.INT);
        Case shrt = basic(Datatype.SHORT);
        List<Case> cases = new ArrayList<>(List.of(
                contiguous(integer, 3),
                vector(dbl, 4, 1, 3),
                vector(shrt, 3, 2, 5),
                hvector(integer, 3, 1, 10),
                indexed(integer, new int[] {2, 0, 1}, new int[] {4, 1, 0}),
                indexedBlock(dbl, 2, new int[] {3, 0}),
                struct(integer, dbl, 4),
                resized(integer, 4),
                subarray(integer, 4, 5, 1, 2, 2, 3)));
        Case[] basics = {dbl, integer, shrt, basic(Datatype.BYTE)};
        for (int i = 0; i < nested; i++) {
            Case inner = basics[random.nextInt(basics.length)];
            int depth = 1 + random.nextInt(3);
            for (int d = 0; d < depth; d++) {
                inner = switch (random.nextInt(7)) {
                    case 0 -> contiguous(inner, 1 + random.nextInt(3));
                    case 1 -> {
                        int block = 1 + random.nextInt(2);
                        yield vector(inner, 1 + random.nextInt(3), block, block + random.nextInt(3));
                    }
                    case 2 -> hvector(inner, 1 + random.nextInt(3), 1, inner.extent + random.nextInt(9));
                    case 3 -> indexed(inner, new int[] {1 + random.nextInt(2), random.nextInt(2)}, new int[] {3 + random.nextInt(2), 0});
                    case 4 -> struct(inner, basics[random.nextInt(basics.length)], random.nextInt(5));
                    case 5 -> resized(inner, random.nextInt(9));
                    default -> subarray(inner, 3, 3, random.nextInt(2), random.nextInt(2), 1 + random.nextInt(2), 1 + random.nextInt(2));
                };
            }
            cases.add(inner);
        }
        return cases;
    }
}
