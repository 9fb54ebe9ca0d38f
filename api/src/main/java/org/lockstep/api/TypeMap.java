package org.lockstep.api;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Where the bytes of one element of a datatype lie, in type-map order, relative to the element's
 * start: a list of strided runs. Run {@code i} covers {@code repeats[i]} pieces of
 * {@code lengths[i]} bytes, the k-th at {@code offsets[i] + k * strides[i]}.
 *
 * <pre>
 *   vector(3, 2, 4, DOUBLE), one run: offset 0, length 16, repeats 3, stride 32
 *   byte  0        16       32       48       64       80
 *         [##|##]  .  .  .  [##|##]  .  .  .  [##|##]
 * </pre>
 *
 * Packing walks the runs in order, so packed bytes follow the type map (MPI's pack order), which
 * need not be ascending in memory. Adjacent pieces are merged while the map is built, and equal
 * pieces at a constant distance fold into one run, so a vector or a subarray row stays a handful
 * of runs whatever its count.
 */
final class TypeMap {
    private final long[] offsets;
    private final long[] lengths;
    private final long[] repeats;
    private final long[] strides;
    private final int runs;
    /** Bytes of data in one element. */
    final long size;
    /** Lowest byte any piece touches, relative to the element start. */
    final long trueLb;
    /** One past the highest byte any piece touches. */
    final long trueUb;

    private TypeMap(Builder b) {
        this.runs = b.count;
        this.offsets = Arrays.copyOf(b.offsets, runs);
        this.lengths = Arrays.copyOf(b.lengths, runs);
        this.repeats = Arrays.copyOf(b.repeats, runs);
        this.strides = Arrays.copyOf(b.strides, runs);
        this.size = b.size;
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (int i = 0; i < runs; i++) {
            long last = offsets[i] + (repeats[i] - 1) * strides[i];
            lo = Math.min(lo, Math.min(offsets[i], last));
            hi = Math.max(hi, Math.max(offsets[i], last) + lengths[i]);
        }
        this.trueLb = runs == 0 ? 0 : lo;
        this.trueUb = runs == 0 ? 0 : hi;
    }

    /** The map of a basic type: one piece of {@code size} bytes at 0. */
    static TypeMap dense(long size) {
        Builder b = new Builder();
        b.append(0, size);
        return b.build();
    }

    /** Whether one element is one piece starting at the element start. */
    boolean isOnePieceAtZero() {
        return runs == 0 || (runs == 1 && repeats[0] == 1 && offsets[0] == 0);
    }

    int runCount() {
        return runs;
    }

    /** Appends this map, shifted by {@code displacement}, to {@code into}. */
    void appendTo(Builder into, long displacement) {
        for (int i = 0; i < runs; i++) {
            long at = Math.addExact(offsets[i], displacement);
            for (long k = 0; k < repeats[i]; k++) {
                into.append(at + k * strides[i], lengths[i]);
            }
        }
    }

    /** Hands {@code visitor} each piece of {@code count} elements {@code extent} bytes apart, in type-map order. */
    void forEachPiece(long extent, long count, Datatype.PieceVisitor visitor) {
        for (long e = 0; e < count; e++) {
            long elementStart = e * extent;
            for (int i = 0; i < runs; i++) {
                long piece = elementStart + offsets[i];
                for (long k = 0; k < repeats[i]; k++, piece += strides[i]) {
                    visitor.piece(piece, lengths[i]);
                }
            }
        }
    }

    /**
     * Copies the data of {@code count} elements, the first at {@code from} in {@code source} and
     * each {@code extent} bytes after the previous, into {@code packed} at {@code to}, stopping
     * after {@code limit} bytes. Returns the bytes copied.
     */
    long pack(MemorySegment source, long from, long extent, long count, MemorySegment packed, long to, long limit) {
        return move(source, from, extent, count, packed, to, limit, true);
    }

    /** The reverse of {@link #pack}: scatters {@code limit} packed bytes into {@code count} elements. */
    long unpack(MemorySegment packed, long from, MemorySegment target, long to, long extent, long count, long limit) {
        return move(target, to, extent, count, packed, from, limit, false);
    }

    private long move(MemorySegment typed, long base, long extent, long count, MemorySegment packed, long at,
                      long limit, boolean toPacked) {
        long done = 0;
        for (long e = 0; e < count && done < limit; e++) {
            long elementStart = base + e * extent;
            for (int i = 0; i < runs && done < limit; i++) {
                long length = lengths[i];
                long stride = strides[i];
                long piece = elementStart + offsets[i];
                long n = repeats[i];
                if (length == Long.BYTES && done + n * Long.BYTES <= limit) {
                    done += moveLongs(typed, piece, stride, n, packed, at + done, toPacked);
                    continue;
                }
                for (long k = 0; k < n && done < limit; k++) {
                    long bytes = Math.min(length, limit - done);
                    if (toPacked) {
                        MemorySegment.copy(typed, piece, packed, at + done, bytes);
                    } else {
                        MemorySegment.copy(packed, at + done, typed, piece, bytes);
                    }
                    done += bytes;
                    piece += stride;
                }
            }
        }
        return done;
    }

    /** Runs of 8-byte pieces (a column of doubles or longs) move as longs: one load and store each. */
    private static long moveLongs(MemorySegment typed, long first, long stride, long n, MemorySegment packed, long at,
                                  boolean toPacked) {
        long piece = first;
        if (toPacked) {
            for (long k = 0; k < n; k++, piece += stride) {
                packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + k * Long.BYTES, typed.get(ValueLayout.JAVA_LONG_UNALIGNED, piece));
            }
        } else {
            for (long k = 0; k < n; k++, piece += stride) {
                typed.set(ValueLayout.JAVA_LONG_UNALIGNED, piece, packed.get(ValueLayout.JAVA_LONG_UNALIGNED, at + k * Long.BYTES));
            }
        }
        return n * Long.BYTES;
    }

    /** Builds a map piece by piece, merging adjacent pieces and folding equal ones at a constant stride. */
    static final class Builder {
        private long[] offsets = new long[4];
        private long[] lengths = new long[4];
        private long[] repeats = new long[4];
        private long[] strides = new long[4];
        private int count;
        private long size;
        /** The piece being grown by adjacent appends, not yet folded into a run. */
        private long pendingOffset;
        private long pendingLength = -1;

        void append(long offset, long length) {
            if (length == 0) {
                return;
            }
            size = Math.addExact(size, length);
            if (pendingLength >= 0 && pendingOffset + pendingLength == offset) {
                pendingLength = Math.addExact(pendingLength, length);
                return;
            }
            flush();
            pendingOffset = offset;
            pendingLength = length;
        }

        private void flush() {
            if (pendingLength < 0) {
                return;
            }
            long offset = pendingOffset;
            long length = pendingLength;
            pendingLength = -1;
            if (count > 0 && lengths[count - 1] == length) {
                int last = count - 1;
                if (repeats[last] == 1 && offset != offsets[last]) {
                    strides[last] = offset - offsets[last];
                    repeats[last] = 2;
                    return;
                }
                if (repeats[last] > 1 && offset == offsets[last] + repeats[last] * strides[last]) {
                    repeats[last]++;
                    return;
                }
            }
            if (count == offsets.length) {
                int grown = count * 2;
                offsets = Arrays.copyOf(offsets, grown);
                lengths = Arrays.copyOf(lengths, grown);
                repeats = Arrays.copyOf(repeats, grown);
                strides = Arrays.copyOf(strides, grown);
            }
            offsets[count] = offset;
            lengths[count] = length;
            repeats[count] = 1;
            strides[count] = 0;
            count++;
        }

        TypeMap build() {
            flush();
            return new TypeMap(this);
        }
    }
}
