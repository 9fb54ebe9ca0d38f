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

    /**
     * The direct buffers {@code MPI.slice} made lately and the buffers they were cut from: a datatype
     * may reach before a slice's start (a negative stride or lower bound), into its parent's memory,
     * as an address in C may. Heap slices need no record: their array offset says where they start.
     */
    private static final int SLICES = 64;
    private static final Slice[] RECENT_SLICES = new Slice[SLICES];
    private static int nextSlice;

    private record Slice(Buffer slice, Buffer parent, long startByte) {
    }

    /** A buffer and datatype as they go to Lockstep: memory from the type's lowest byte, and the type and count over it. */
    record Typed(MemorySegment segment, org.lockstep.api.Datatype type, long count) {
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
            case boolean[] a -> booleansAsBytes(a);
            case Buffer b -> ofBuffer(b);
            case null -> throw ErrorClasses.argument(ErrorClasses.BUFFER, call, "the buffer is null");
            default -> {
                MemorySegment array = arraySegment(buf);
                if (array == null) {
                    throw ErrorClasses.argument(ErrorClasses.BUFFER, call, "a buffer must be a primitive array or a java.nio buffer, not a "
                            + buf.getClass().getName());
                }
                yield array;
            }
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

    /** Records that {@code slice} starts {@code startByte} bytes into the direct buffer {@code parent}. */
    static synchronized void sliced(Buffer slice, Buffer parent, long startByte) {
        RECENT_SLICES[nextSlice] = new Slice(slice, parent, startByte);
        nextSlice = (nextSlice + 1) % SLICES;
    }

    /**
     * {@code n} elements of {@code type} in {@code buf}: the buffer's memory and the type itself,
     * unless the type places data before the buffer's start; then, when that memory is the
     * buffer's (a slice of an array or of a recorded direct buffer), the memory from the lowest
     * byte on and the same elements as one element of a type shifted up by as many bytes.
     */
    static Typed typed(Object buf, Datatype type, long n, String call) throws MPIException {
        MemorySegment whole = segment(buf, n, call);
        org.lockstep.api.Datatype wire = type.wire;
        long before = n == 0 || wire.size() == 0 ? 0 : -(wire.trueLowerBound() + Math.min(0, (n - 1) * wire.extent()));
        if (before <= 0 || !(buf instanceof Buffer b)) {
            return new Typed(whole, wire, n);
        }
        MemorySegment reaching = reachingBack(b, before);
        if (reaching == null) {
            throw ErrorClasses.argument(ErrorClasses.BUFFER, call, "datatype " + type + " places data " + before
                    + " bytes before the buffer's start, outside the buffer it was sliced from");
        }
        org.lockstep.api.Datatype shifted = org.lockstep.api.Datatype.hindexed(new int[] {Math.toIntExact(n)}, new long[] {before}, wire)
                .commit();
        return new Typed(reaching, shifted, 1);
    }

    /** The memory from {@code before} bytes ahead of {@code b}'s start to its parent's end, or null. */
    private static MemorySegment reachingBack(Buffer b, long before) {
        if (b.hasArray()) {
            long start = (long) b.arrayOffset() * elementBytes(b);
            if (start < before) {
                return null;
            }
            MemorySegment array = arraySegment(b.array());
            return array == null ? null : array.asSlice(start - before);
        }
        Slice found = null;
        synchronized (Buffers.class) {
            for (Slice s : RECENT_SLICES) {
                if (s != null && s.slice == b) {
                    found = s;
                }
            }
        }
        if (found == null || found.startByte < before) {
            return null;
        }
        return MemorySegment.ofBuffer(found.parent.duplicate().clear()).asSlice(found.startByte - before);
    }

    /** The memory of a primitive array other than {@code boolean[]}, or null for anything else. */
    private static MemorySegment arraySegment(Object array) {
        return switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case char[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            default -> null;
        };
    }

    /** Bytes in an element of {@code b}. */
    static int elementBytes(Buffer b) {
        return switch (b) {
            case java.nio.ByteBuffer x -> 1;
            case java.nio.CharBuffer x -> 2;
            case java.nio.ShortBuffer x -> 2;
            case java.nio.IntBuffer x -> 4;
            case java.nio.FloatBuffer x -> 4;
            case java.nio.LongBuffer x -> 8;
            case java.nio.DoubleBuffer x -> 8;
            default -> 1;
        };
    }

    /** The memory of {@code buf} from element {@code offset} (in elements of its base type) on. */
    static MemorySegment segment(Object buf, Datatype type, int offset, String call) throws MPIException {
        MemorySegment whole = segment(buf, call);
        return offset == 0 ? whole : whole.asSlice((long) offset * type.baseSize);
    }
}
