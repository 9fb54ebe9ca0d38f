package org.lockstep.api;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An element type of a message buffer ({@code MPI_Datatype}): the predefined types — the Java
 * primitives in native byte order, and the value–index pairs that {@link Op#MINLOC} and
 * {@link Op#MAXLOC} reduce — and derived types built from them (MPI 4.1 §5.1): contiguous, vector,
 * hvector, indexed, hindexed, indexed block, struct, resized, subarray and dup.
 *
 * <p>Counts in the API are element counts of a datatype. Element {@code i} of a buffer starts
 * {@code i * extent()} bytes after the buffer's start; its data are {@link #size()} bytes placed
 * as its type map says, and a message carries them packed: {@code count * size()} bytes. A
 * derived type must be {@link #commit() committed} before a communication uses it, and may be
 * {@link #free() freed} afterwards (types built from it, and operations already started, are not
 * affected). Predefined types are committed and cannot be freed.
 *
 * <p>Displacements are relative to the buffer's start and may not reach before it: a buffer is a
 * {@link MemorySegment}, not a pointer into a larger array. A struct's extent is not padded to
 * its members' alignment (Java buffers have none to keep); use {@link #resized} to pad.
 *
 * <p>Derived types that are one piece of data with no gap ({@link #isContiguous()}) travel
 * without packing; the others are packed into, or unpacked from, a private copy.
 */
public final class Datatype {
    /** Kinds of element, used by reductions to choose their arithmetic; every derived type is {@link #DERIVED}. */
    public enum Kind { BYTE, BOOLEAN, SHORT, CHAR, INT, LONG, FLOAT, DOUBLE, PAIR, DERIVED }

    /** Storage order of a {@link #subarray}'s array: row-major (C) or column-major (Fortran). */
    public enum Order { C, FORTRAN }

    public static final Datatype BYTE = primitive("BYTE", Kind.BYTE, ValueLayout.JAVA_BYTE);
    /** One byte per value, 0 for false and 1 for true (MPI's {@code MPI_C_BOOL}). */
    public static final Datatype BOOLEAN = primitive("BOOLEAN", Kind.BOOLEAN, ValueLayout.JAVA_BYTE);
    public static final Datatype SHORT = primitive("SHORT", Kind.SHORT, ValueLayout.JAVA_SHORT_UNALIGNED);
    public static final Datatype CHAR = primitive("CHAR", Kind.CHAR, ValueLayout.JAVA_CHAR_UNALIGNED);
    public static final Datatype INT = primitive("INT", Kind.INT, ValueLayout.JAVA_INT_UNALIGNED);
    public static final Datatype LONG = primitive("LONG", Kind.LONG, ValueLayout.JAVA_LONG_UNALIGNED);
    public static final Datatype FLOAT = primitive("FLOAT", Kind.FLOAT, ValueLayout.JAVA_FLOAT_UNALIGNED);
    public static final Datatype DOUBLE = primitive("DOUBLE", Kind.DOUBLE, ValueLayout.JAVA_DOUBLE_UNALIGNED);

    /** (int value, int index), MPI's {@code MPI_2INT}. */
    public static final Datatype INT_INT = pair("INT_INT", INT);
    /** (long value, int index), MPI's {@code MPI_LONG_INT}. */
    public static final Datatype LONG_INT = pair("LONG_INT", LONG);
    /** (float value, int index), MPI's {@code MPI_FLOAT_INT}. */
    public static final Datatype FLOAT_INT = pair("FLOAT_INT", FLOAT);
    /** (double value, int index), MPI's {@code MPI_DOUBLE_INT}. */
    public static final Datatype DOUBLE_INT = pair("DOUBLE_INT", DOUBLE);

    private static final List<Datatype> PREDEFINED = List.of(
            BYTE, BOOLEAN, SHORT, CHAR, INT, LONG, FLOAT, DOUBLE, INT_INT, LONG_INT, FLOAT_INT, DOUBLE_INT);

    private final String name;
    private final Kind kind;
    private final MemoryLayout layout;
    private final Datatype valueType;
    private final TypeMap map;
    private final long lb;
    private final long extent;
    /** Element i's data are bytes [i * size, (i + 1) * size) of the buffer: no packing needed. */
    private final boolean contiguous;
    private final boolean predefined;
    /** The one basic type every element of the map is (reductions run on it), or null if they differ. */
    private final Datatype basicType;
    /** The basic types of one element in type-map order, run-length coded: for {@link Status#elements}. */
    private final Datatype[] signatureTypes;
    private final long[] signatureCounts;
    private volatile boolean committed;
    private volatile boolean freed;

    private Datatype(String name, Kind kind, MemoryLayout layout, Datatype valueType) {
        this.name = name;
        this.kind = kind;
        this.layout = layout;
        this.valueType = valueType;
        this.map = TypeMap.dense(layout.byteSize());
        this.lb = 0;
        this.extent = layout.byteSize();
        this.contiguous = true;
        this.predefined = true;
        this.basicType = this;
        this.signatureTypes = new Datatype[] {this};
        this.signatureCounts = new long[] {1};
        this.committed = true;
    }

    private Datatype(String name, TypeMap map, long lb, long extent, Signature signature, boolean committed) {
        this.name = name;
        this.kind = Kind.DERIVED;
        this.map = map;
        this.lb = lb;
        this.extent = extent;
        this.layout = MemoryLayout.sequenceLayout(map.size, ValueLayout.JAVA_BYTE);
        this.valueType = null;
        this.contiguous = map.isOnePieceAtZero() && extent == map.size;
        this.predefined = false;
        this.signatureTypes = signature.types.toArray(Datatype[]::new);
        this.signatureCounts = signature.counts();
        this.basicType = signatureTypes.length == 1 ? signatureTypes[0] : null;
        this.committed = committed;
    }

    private static Datatype primitive(String name, Kind kind, ValueLayout layout) {
        return new Datatype(name, kind, layout.withOrder(ByteOrder.nativeOrder()), null);
    }

    /** A value followed by an int index, packed without padding so that the size is exact. */
    private static Datatype pair(String name, Datatype value) {
        MemoryLayout layout = MemoryLayout.structLayout(
                value.layout.withName("value"), ValueLayout.JAVA_INT_UNALIGNED.withName("index"));
        return new Datatype(name, Kind.PAIR, layout, value);
    }

    /** Every predefined datatype, in a fixed order (the order is the wire id). */
    public static List<Datatype> predefined() {
        return PREDEFINED;
    }

    /** The predefined datatype with this wire id, as returned by {@link #id()}. */
    public static Datatype ofId(int id) {
        if (id < 0 || id >= PREDEFINED.size()) {
            throw new LockstepException(ErrorClass.TYPE, "no datatype with id " + id);
        }
        return PREDEFINED.get(id);
    }

    // ================================================================ constructors (MPI 4.1 §5.1.2)

    /** {@code count} copies of {@code old}, each one extent after the last ({@code MPI_Type_contiguous}). */
    public static Datatype contiguous(int count, Datatype old) {
        return hvector(count, 1, usable(old).extent, old, "contiguous(" + count + ", " + old + ")");
    }

    /**
     * {@code count} blocks of {@code blockLength} copies of {@code old}; block starts are {@code stride}
     * extents of {@code old} apart ({@code MPI_Type_vector}). A column of a row-major matrix of
     * {@code n} columns is {@code vector(rows, 1, n, DOUBLE)}.
     */
    public static Datatype vector(int count, int blockLength, int stride, Datatype old) {
        return hvector(count, blockLength, Math.multiplyExact((long) stride, usable(old).extent), old,
                "vector(" + count + ", " + blockLength + ", " + stride + ", " + old + ")");
    }

    /** As {@link #vector}, with the stride in bytes ({@code MPI_Type_create_hvector}). */
    public static Datatype hvector(int count, int blockLength, long strideBytes, Datatype old) {
        return hvector(count, blockLength, strideBytes, old, "hvector(" + count + ", " + blockLength + ", " + strideBytes + ", " + old + ")");
    }

    private static Datatype hvector(int count, int blockLength, long strideBytes, Datatype old, String name) {
        usable(old);
        nonNegative("count", count);
        nonNegative("block length", blockLength);
        long[] displacements = new long[count];
        int[] lengths = new int[count];
        for (int i = 0; i < count; i++) {
            displacements[i] = checkedProduct(i, strideBytes);
            lengths[i] = blockLength;
        }
        return blocks(name, lengths, displacements, old);
    }

    /** Blocks of {@code blockLengths[i]} copies of {@code old} at {@code displacements[i]} extents of {@code old} ({@code MPI_Type_indexed}). */
    public static Datatype indexed(int[] blockLengths, int[] displacements, Datatype old) {
        usable(old);
        sameLength(blockLengths, displacements.length);
        return blocks("indexed(" + blockLengths.length + " blocks, " + old + ")", blockLengths, scaled(displacements, old.extent), old);
    }

    /** As {@link #indexed}, with displacements in bytes ({@code MPI_Type_create_hindexed}). */
    public static Datatype hindexed(int[] blockLengths, long[] byteDisplacements, Datatype old) {
        usable(old);
        sameLength(blockLengths, byteDisplacements.length);
        return blocks("hindexed(" + blockLengths.length + " blocks, " + old + ")", blockLengths, byteDisplacements.clone(), old);
    }

    /** As {@link #indexed} with every block {@code blockLength} long ({@code MPI_Type_create_indexed_block}). */
    public static Datatype indexedBlock(int blockLength, int[] displacements, Datatype old) {
        usable(old);
        nonNegative("block length", blockLength);
        int[] lengths = new int[displacements.length];
        java.util.Arrays.fill(lengths, blockLength);
        return blocks("indexedBlock(" + blockLength + ", " + displacements.length + " blocks, " + old + ")", lengths,
                scaled(displacements, old.extent), old);
    }

    /** As {@link #indexedBlock}, with displacements in bytes ({@code MPI_Type_create_hindexed_block}). */
    public static Datatype hindexedBlock(int blockLength, long[] byteDisplacements, Datatype old) {
        usable(old);
        nonNegative("block length", blockLength);
        int[] lengths = new int[byteDisplacements.length];
        java.util.Arrays.fill(lengths, blockLength);
        return blocks("hindexedBlock(" + blockLength + ", " + byteDisplacements.length + " blocks, " + old + ")", lengths,
                byteDisplacements.clone(), old);
    }

    /**
     * Block {@code i} holds {@code blockLengths[i]} copies of {@code types[i]} at
     * {@code byteDisplacements[i]} ({@code MPI_Type_create_struct}).
     *
     * @throws LockstepException {@link ErrorClass#TYPE} if a displacement, the size or the extent overflows
     */
    public static Datatype struct(int[] blockLengths, long[] byteDisplacements, Datatype[] types) {
        Objects.requireNonNull(types, "types");
        sameLength(blockLengths, byteDisplacements.length);
        sameLength(blockLengths, types.length);
        Parts parts = new Parts();
        try {
            for (int i = 0; i < types.length; i++) {
                Datatype t = usable(types[i]);
                nonNegative("block length", blockLengths[i]);
                if (t.contiguous && blockLengths[i] > 0) {
                    parts.addRun(t, byteDisplacements[i], blockLengths[i]);
                    continue;
                }
                for (int j = 0; j < blockLengths[i]; j++) {
                    parts.add(t, Math.addExact(byteDisplacements[i], Math.multiplyExact((long) j, t.extent)));
                }
            }
        } catch (ArithmeticException overflow) {
            throw overflow("struct of " + types.length + " blocks");
        }
        return parts.build("struct(" + types.length + " blocks)");
    }

    /** The same data as {@code old} with lower bound {@code lb} and extent {@code extent} ({@code MPI_Type_create_resized}). */
    public static Datatype resized(Datatype old, long lb, long extent) {
        usable(old);
        if (extent < 0) {
            throw new LockstepException(ErrorClass.ARG, "resized extent " + extent + " is negative");
        }
        return new Datatype("resized(" + old + ", " + lb + ", " + extent + ")", old.map, lb, extent,
                Signature.of(old), false);
    }

    /**
     * The {@code subsizes} block starting at {@code starts} of an array of {@code sizes} elements of
     * {@code old}, stored in {@code order}; its extent is the whole array's ({@code MPI_Type_create_subarray}).
     */
    public static Datatype subarray(int[] sizes, int[] subsizes, int[] starts, Order order, Datatype old) {
        usable(old);
        Objects.requireNonNull(order, "order");
        int dims = sizes.length;
        if (dims == 0 || subsizes.length != dims || starts.length != dims) {
            throw new LockstepException(ErrorClass.ARG, "subarray needs sizes, subsizes and starts of one positive length, got "
                    + sizes.length + ", " + subsizes.length + ", " + starts.length);
        }
        for (int d = 0; d < dims; d++) {
            if (sizes[d] <= 0 || subsizes[d] < 0 || starts[d] < 0 || (long) starts[d] + subsizes[d] > sizes[d]) {
                throw new LockstepException(ErrorClass.ARG, "subarray dimension " + d + ": size " + sizes[d] + ", subsize "
                        + subsizes[d] + ", start " + starts[d] + " (needs 0 <= start, start + subsize <= size, size > 0)");
            }
        }
        // dimension indices from slowest- to fastest-varying
        int[] dim = new int[dims];
        for (int k = 0; k < dims; k++) {
            dim[k] = order == Order.C ? k : dims - 1 - k;
        }
        try {
            long[] strideElements = new long[dims];
            long total = 1;
            for (int k = dims - 1; k >= 0; k--) {
                strideElements[k] = total;
                total = Math.multiplyExact(total, sizes[dim[k]]);
            }
            long arrayExtent = Math.multiplyExact(total, old.extent);
            Parts parts = new Parts();
            int fastest = dim[dims - 1];
            int[] index = new int[dims - 1];
            boolean empty = false;
            for (int k = 0; k < dims; k++) {
                empty |= subsizes[dim[k]] == 0;
            }
            while (!empty) {
                long element = starts[fastest];
                for (int k = 0; k < dims - 1; k++) {
                    element += (long) (starts[dim[k]] + index[k]) * strideElements[k];
                }
                long at = Math.multiplyExact(element, old.extent);
                for (int j = 0; j < subsizes[fastest]; j++) {
                    parts.add(old, at + j * old.extent);
                }
                int k = dims - 2;
                while (k >= 0 && ++index[k] == subsizes[dim[k]]) {
                    index[k] = 0;
                    k--;
                }
                if (k < 0) {
                    break;
                }
            }
            return parts.build("subarray(" + dims + "-d, " + old + ")", 0, arrayExtent);
        } catch (ArithmeticException overflow) {
            throw overflow("subarray of " + java.util.Arrays.toString(sizes));
        }
    }

    /** A new datatype with the same type map, bounds and committed state ({@code MPI_Type_dup}). */
    public Datatype dup() {
        usable(this);
        if (predefined) {
            return new Datatype("dup(" + name + ")", map, lb, extent, Signature.of(this), true);
        }
        return new Datatype("dup(" + name + ")", map, lb, extent, Signature.of(this), committed);
    }

    // ================================================================ life cycle

    /** Makes the type usable in communication ({@code MPI_Type_commit}); returns it. */
    public Datatype commit() {
        usable(this);
        committed = true;
        return this;
    }

    /**
     * Releases the type ({@code MPI_Type_free}): later uses fail with {@link ErrorClass#TYPE};
     * types built from it and operations already started are not affected.
     */
    public void free() {
        if (predefined) {
            throw new LockstepException(ErrorClass.TYPE, "predefined datatype " + name + " cannot be freed");
        }
        if (freed) {
            throw new LockstepException(ErrorClass.TYPE, "datatype " + name + " is freed already");
        }
        freed = true;
    }

    public boolean isCommitted() {
        return committed && !freed;
    }

    public boolean isFreed() {
        return freed;
    }

    public boolean isPredefined() {
        return predefined;
    }

    /**
     * Fails with {@link ErrorClass#TYPE} unless the type may be used in communication: not null,
     * committed and not freed. Cheap for predefined types (one field read).
     */
    public static Datatype checkUsable(Datatype type) {
        if (type == null) {
            throw new LockstepException(ErrorClass.TYPE, "datatype is null");
        }
        if (!type.predefined) {
            if (type.freed) {
                throw new LockstepException(ErrorClass.TYPE, "datatype " + type.name + " has been freed");
            }
            if (!type.committed) {
                throw new LockstepException(ErrorClass.TYPE, "datatype " + type.name + " is not committed (call commit() first)");
            }
        }
        return type;
    }

    /** Receives the contiguous pieces of a typed buffer ({@link #forEachPiece}). */
    @FunctionalInterface
    public interface PieceVisitor {
        /** A piece of {@code byteLength} bytes at {@code byteOffset} from the buffer's start. */
        void piece(long byteOffset, long byteLength);
    }

    /**
     * Hands {@code visitor} the contiguous pieces of bytes that {@code count} elements of this type
     * occupy from a buffer's start, in type-map order (one piece for a contiguous type, none for no
     * data): what a one-sided transfer moves piece by piece, the gaps between left alone.
     *
     * @throws LockstepException as {@link #span} does, or {@link ErrorClass#TYPE} if the type is not committed
     */
    public void forEachPiece(long count, PieceVisitor visitor) {
        checkUsable(this);
        long reach = span(count);
        if (contiguous) {
            if (reach > 0) {
                visitor.piece(0, reach);
            }
            return;
        }
        map.forEachPiece(extent, count, visitor);
    }

    // ================================================================ properties

    /** A small integer that identifies a predefined datatype on the device; -1 for a derived one. */
    public int id() {
        return predefined ? PREDEFINED.indexOf(this) : -1;
    }

    public String name() {
        return name;
    }

    public Kind kind() {
        return kind;
    }

    /** The memory layout of one element: the value layout of a predefined type, the packed bytes of a derived one. */
    public MemoryLayout layout() {
        return layout;
    }

    /** Bytes of data in one element ({@code MPI_Type_size}); a message of {@code count} elements carries {@code count * size()}. */
    public long size() {
        return map.size;
    }

    /** Distance from one element's start to the next ({@code MPI_Type_get_extent}). */
    public long extent() {
        return extent;
    }

    /** Lower bound ({@code MPI_Type_get_extent}). */
    public long lowerBound() {
        return lb;
    }

    /** Lowest byte of data relative to the element start ({@code MPI_Type_get_true_extent}). */
    public long trueLowerBound() {
        return map.trueLb;
    }

    /** Bytes from the lowest to one past the highest byte of data ({@code MPI_Type_get_true_extent}). */
    public long trueExtent() {
        return map.trueUb - map.trueLb;
    }

    /** Whether {@code count} elements are {@code count * size()} consecutive bytes from the buffer start (no packing). */
    public boolean isContiguous() {
        return contiguous;
    }

    /**
     * The one predefined type that every basic element of this type is (a vector of doubles:
     * {@link #DOUBLE}), or null if they differ; reductions on derived types need one.
     */
    public Datatype basicType() {
        return basicType;
    }

    /** For a value–index pair, the type of the value; otherwise this type itself. */
    public Datatype valueType() {
        return valueType == null ? this : valueType;
    }

    /** Byte length of a message of {@code count} elements, failing with {@link ErrorClass#COUNT} on overflow or a negative count. */
    public long byteLength(long count) {
        if (count < 0) {
            throw new LockstepException(ErrorClass.COUNT, "negative count " + count);
        }
        try {
            return Math.multiplyExact(count, map.size);
        } catch (ArithmeticException overflow) {
            throw new LockstepException(ErrorClass.COUNT, "count " + count + " of " + name + " overflows a byte length");
        }
    }

    /**
     * Bytes of buffer that {@code count} elements reach from the buffer's start: the byte length
     * for contiguous types; for others the end of the last byte of data.
     *
     * @throws LockstepException {@link ErrorClass#COUNT} on a negative or overflowing count,
     *         {@link ErrorClass#BUFFER} if some data lies before the buffer's start
     */
    public long span(long count) {
        if (contiguous) {
            return byteLength(count);
        }
        if (count < 0) {
            throw new LockstepException(ErrorClass.COUNT, "negative count " + count);
        }
        if (count == 0 || map.size == 0) {
            return 0;
        }
        try {
            long last = Math.multiplyExact(count - 1, extent);
            long lowest = map.trueLb + Math.min(0, last);
            if (lowest < 0) {
                throw new LockstepException(ErrorClass.BUFFER, "datatype " + name + " places data " + (-lowest)
                        + " bytes before the buffer's start");
            }
            return Math.addExact(map.trueUb, Math.max(0, last));
        } catch (ArithmeticException overflow) {
            throw new LockstepException(ErrorClass.COUNT, "count " + count + " of " + name + " overflows a byte offset");
        }
    }

    /**
     * Whether {@code count} elements of this type and {@code otherCount} of {@code other} have one
     * type signature: the same basic types in the same order (MPI 4.1 §3.3.1), as a one-sided
     * access's origin and target must.
     */
    public boolean sameSignature(long count, Datatype other, long otherCount) {
        Objects.requireNonNull(other, "other");
        if (count < 0 || otherCount < 0) {
            throw new LockstepException(ErrorClass.COUNT, "negative count " + Math.min(count, otherCount));
        }
        if (basicType != null && other.basicType != null) {
            return basicType == other.basicType && byteLength(count) == other.byteLength(otherCount);
        }
        // walk both run-length signatures, repeated count times, in step
        int i = 0;
        int j = 0;
        long leftHere = count == 0 || signatureTypes.length == 0 ? 0 : signatureCounts[0];
        long leftThere = otherCount == 0 || other.signatureTypes.length == 0 ? 0 : other.signatureCounts[0];
        long copies = signatureTypes.length == 0 ? 0 : count;
        long otherCopies = other.signatureTypes.length == 0 ? 0 : otherCount;
        while (true) {
            while (leftHere == 0 && copies > 0) {
                if (++i == signatureTypes.length) {
                    i = 0;
                    if (--copies == 0) {
                        break;
                    }
                }
                leftHere = signatureCounts[i];
            }
            while (leftThere == 0 && otherCopies > 0) {
                if (++j == other.signatureTypes.length) {
                    j = 0;
                    if (--otherCopies == 0) {
                        break;
                    }
                }
                leftThere = other.signatureCounts[j];
            }
            boolean doneHere = leftHere == 0;
            boolean doneThere = leftThere == 0;
            if (doneHere || doneThere) {
                return doneHere && doneThere;
            }
            if (signatureTypes[i] != other.signatureTypes[j]) {
                return false;
            }
            long step = Math.min(leftHere, leftThere);
            leftHere -= step;
            leftThere -= step;
        }
    }

    /**
     * Basic elements (of the predefined types) in the first {@code bytes} packed bytes of this type,
     * or {@link Status#UNDEFINED} when those bytes end inside a basic element (MPI 4.1 §5.1.11).
     */
    long basicElements(long bytes) {
        if (map.size == 0) {
            return 0;
        }
        long whole = bytes / map.size;
        long rest = bytes % map.size;
        long perElement = 0;
        long partial = 0;
        for (int i = 0; i < signatureTypes.length; i++) {
            long basicSize = signatureTypes[i].size();
            perElement += signatureCounts[i];
            if (rest > 0) {
                long n = Math.min(signatureCounts[i], rest / basicSize);
                partial += n;
                rest -= n * basicSize;
                if (n < signatureCounts[i] && rest != 0) {
                    return Status.UNDEFINED;
                }
            }
        }
        return whole * perElement + partial;
    }

    // ================================================================ packing (MPI 4.1 §5.2)

    /** Bytes that {@link #pack} writes for {@code count} elements ({@code MPI_Pack_size}). */
    public long packSize(long count) {
        return byteLength(count);
    }

    /**
     * Packs {@code count} elements from {@code in} into {@code out} at {@code position}
     * ({@code MPI_Pack}); returns the position after them.
     */
    public long pack(MemorySegment in, long count, MemorySegment out, long position) {
        checkUsable(this);
        long bytes = byteLength(count);
        checkRange(in, span(count), "input");
        checkRange(out, position, bytes, "output");
        if (contiguous) {
            MemorySegment.copy(in, 0, out, position, bytes);
        } else {
            map.pack(in, 0, extent, count, out, position, bytes);
        }
        return position + bytes;
    }

    /**
     * Unpacks {@code count} elements from {@code in} at {@code position} into {@code out}
     * ({@code MPI_Unpack}); returns the position after them.
     */
    public long unpack(MemorySegment in, long position, MemorySegment out, long count) {
        checkUsable(this);
        long bytes = byteLength(count);
        checkRange(in, position, bytes, "input");
        checkRange(out, span(count), "output");
        if (out.isReadOnly()) {
            throw new LockstepException(ErrorClass.BUFFER, "unpack target is read-only");
        }
        unpackPartial(in, position, out, count, bytes);
        return position + bytes;
    }

    /**
     * Copies the first {@code bytes} packed bytes of {@code count} elements from {@code packed}
     * into their places in {@code out} (a prefix of the elements, the last possibly partial, as a
     * short or truncated receive leaves them). No argument checks: for providers that have done them.
     */
    public void unpackPartial(MemorySegment packed, long position, MemorySegment out, long count, long bytes) {
        if (contiguous) {
            MemorySegment.copy(packed, position, out, 0, bytes);
        } else {
            map.unpack(packed, position, out, 0, extent, count, bytes);
        }
    }

    /** Packs {@code count} elements of {@code in} into {@code packed} at 0. No argument checks: for providers. */
    public void packAll(MemorySegment in, long count, MemorySegment packed) {
        long bytes = count * map.size;
        if (contiguous) {
            MemorySegment.copy(in, 0, packed, 0, bytes);
        } else {
            map.pack(in, 0, extent, count, packed, 0, bytes);
        }
    }

    private static void checkRange(MemorySegment segment, long bytes, String what) {
        checkRange(segment, 0, bytes, what);
    }

    private static void checkRange(MemorySegment segment, long position, long bytes, String what) {
        if (segment == null) {
            if (bytes == 0) {
                return;
            }
            throw new LockstepException(ErrorClass.BUFFER, what + " buffer is null");
        }
        if (position < 0 || position > segment.byteSize() || bytes > segment.byteSize() - position) {
            throw new LockstepException(ErrorClass.BUFFER, what + " buffer of " + segment.byteSize() + " bytes is too short for "
                    + bytes + " bytes at position " + position);
        }
    }

    @Override
    public String toString() {
        return name;
    }

    // ================================================================ building

    private static Datatype usable(Datatype t) {
        if (t == null) {
            throw new LockstepException(ErrorClass.TYPE, "datatype is null");
        }
        if (t.freed) {
            throw new LockstepException(ErrorClass.TYPE, "datatype " + t.name + " has been freed");
        }
        return t;
    }

    private static void nonNegative(String what, long value) {
        if (value < 0) {
            throw new LockstepException(ErrorClass.ARG, what + " " + value + " is negative");
        }
    }

    private static void sameLength(int[] lengths, int n) {
        if (lengths.length != n) {
            throw new LockstepException(ErrorClass.ARG, lengths.length + " block lengths for " + n + " displacements or types");
        }
    }

    private static long checkedProduct(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException overflow) {
            throw overflow("displacement " + a + " x " + b);
        }
    }

    private static long[] scaled(int[] displacements, long extent) {
        long[] bytes = new long[displacements.length];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = checkedProduct(displacements[i], extent);
        }
        return bytes;
    }

    private static LockstepException overflow(String what) {
        return new LockstepException(ErrorClass.TYPE, what + ": a displacement, the size or the extent overflows 64 bits");
    }

    /** Blocks of {@code lengths[i]} copies of {@code old} at byte displacements {@code displacements[i]}. */
    private static Datatype blocks(String name, int[] lengths, long[] displacements, Datatype old) {
        Parts parts = new Parts();
        try {
            for (int i = 0; i < lengths.length; i++) {
                nonNegative("block length", lengths[i]);
                if (old.contiguous && lengths[i] > 0) {
                    // a run of copies of a gap-free type is one piece
                    parts.addRun(old, displacements[i], lengths[i]);
                } else {
                    for (int j = 0; j < lengths[i]; j++) {
                        parts.add(old, Math.addExact(displacements[i], Math.multiplyExact((long) j, old.extent)));
                    }
                }
            }
        } catch (ArithmeticException overflow) {
            throw overflow(name);
        }
        return parts.build(name);
    }

    /** Copies of types at displacements: their type maps, signatures and the bounds MPI derives from them. */
    private static final class Parts {
        private final TypeMap.Builder map = new TypeMap.Builder();
        private final Signature signature = new Signature();
        private long lb = Long.MAX_VALUE;
        private long ub = Long.MIN_VALUE;

        void add(Datatype t, long displacement) {
            t.map.appendTo(map, displacement);
            signature.append(t, 1);
            bound(t, displacement, 1);
        }

        /** {@code n} consecutive copies of a contiguous type. */
        void addRun(Datatype t, long displacement, int n) {
            map.append(displacement, Math.multiplyExact(n, t.map.size));
            signature.append(t, n);
            bound(t, displacement, n);
        }

        private void bound(Datatype t, long displacement, int n) {
            long first = Math.addExact(displacement, t.lb);
            long last = Math.addExact(Math.addExact(displacement, Math.multiplyExact((long) (n - 1), t.extent)), t.lb);
            lb = Math.min(lb, Math.min(first, last));
            ub = Math.max(ub, Math.addExact(Math.max(first, last), t.extent));
        }

        Datatype build(String name) {
            if (lb > ub) {
                return new Datatype(name, map.build(), 0, 0, signature, false);
            }
            return new Datatype(name, map.build(), lb, Math.subtractExact(ub, lb), signature, false);
        }

        Datatype build(String name, long lowerBound, long extent) {
            return new Datatype(name, map.build(), lowerBound, extent, signature, false);
        }
    }

    /** The basic types of one element, in order, run-length coded. */
    private static final class Signature {
        final List<Datatype> types = new ArrayList<>();
        private long[] counts = new long[4];

        static Signature of(Datatype t) {
            Signature s = new Signature();
            s.append(t, 1);
            return s;
        }

        void append(Datatype t, long copies) {
            for (long c = 0; c < copies; c++) {
                for (int i = 0; i < t.signatureTypes.length; i++) {
                    add(t.signatureTypes[i], t.signatureCounts[i]);
                }
                if (t.signatureTypes.length == 1) {
                    // one basic type: the remaining copies extend the same entry
                    add(t.signatureTypes[0], Math.multiplyExact(copies - 1 - c, t.signatureCounts[0]));
                    return;
                }
            }
        }

        private void add(Datatype basic, long n) {
            if (n == 0) {
                return;
            }
            int last = types.size() - 1;
            if (last >= 0 && types.get(last) == basic) {
                counts[last] = Math.addExact(counts[last], n);
                return;
            }
            if (types.size() == counts.length) {
                counts = java.util.Arrays.copyOf(counts, counts.length * 2);
            }
            counts[types.size()] = n;
            types.add(basic);
        }

        long[] counts() {
            return java.util.Arrays.copyOf(counts, types.size());
        }
    }
}
