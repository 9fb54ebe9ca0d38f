package mpi;

import java.lang.foreign.MemorySegment;
import java.nio.Buffer;

/**
 * The memory of a buffer argument, as the bindings accept it: a Java array of a primitive type,
 * a direct {@link Buffer} (from {@code MPI.newIntBuffer} ...), or a heap buffer. Like the
 * bindings, a buffer's memory starts at its element 0 (its position and limit are ignored;
 * {@code MPI.slice} makes a buffer that starts further in).
 *
 * <p>A {@code boolean[]} has no memory segment of its own: its values travel as one byte each
 * through a copy, written back by {@link #copyBack} after a receive.
 */
final class Buffers {
    /** Recently seen NIO buffers and their segments: programs pass the same few buffers again and again. */
    private static final int CACHED = 8;
    private static final Cached[] CACHE = new Cached[CACHED];
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    private record Cached(Buffer buffer, MemorySegment segment) {
    }

    private Buffers() {
    }

    /**
     * The memory of {@code buf} for a message of {@code count} elements: a null buffer is an empty
     * one when the count is 0 (the bindings' idiom for an empty message), else an error.
     */
    static MemorySegment segment(Object buf, long count, String call) throws MPIException {
        return buf == null && count == 0 ? EMPTY : segment(buf, call);
    }

    /** The memory of {@code buf}. */
    static MemorySegment segment(Object buf, String call) throws MPIException {
        return switch (buf) {
            case byte[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case char[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case boolean[] a -> booleansAsBytes(a);
            case Buffer b -> ofBuffer(b);
            case null -> throw ErrorClasses.argument(ErrorClasses.BUFFER, call, "the buffer is null");
            default -> throw ErrorClasses.argument(ErrorClasses.BUFFER, call, "a buffer must be a primitive array or a java.nio buffer, not a "
                    + buf.getClass().getName());
        };
    }

    /** After a receive into {@code buf} through {@code segment}: writes a boolean array's values back. */
    static void copyBack(Object buf, MemorySegment segment) {
        if (buf instanceof boolean[] values) {
            for (int i = 0; i < values.length; i++) {
                values[i] = segment.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != 0;
            }
        }
    }

    private static MemorySegment booleansAsBytes(boolean[] values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = values[i] ? (byte) 1 : 0;
        }
        return MemorySegment.ofArray(bytes);
    }

    private static MemorySegment ofBuffer(Buffer buffer) {
        int slot = System.identityHashCode(buffer) & (CACHED - 1);
        Cached cached = CACHE[slot];
        if (cached != null && cached.buffer == buffer) {
            return cached.segment;
        }
        MemorySegment segment = MemorySegment.ofBuffer(buffer.duplicate().clear());
        CACHE[slot] = new Cached(buffer, segment);
        return segment;
    }

    /** The memory of {@code buf} from element {@code offset} (in elements of its base type) on. */
    static MemorySegment segment(Object buf, Datatype type, int offset, String call) throws MPIException {
        MemorySegment whole = segment(buf, call);
        return offset == 0 ? whole : whole.asSlice((long) offset * type.baseSize);
    }
}
