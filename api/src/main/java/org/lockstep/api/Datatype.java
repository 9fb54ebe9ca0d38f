package org.lockstep.api;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;

/**
 * An element type of a message buffer: the Java primitives, each mapped to a {@link ValueLayout}
 * in native byte order, and the value–index pairs that {@link Op#MINLOC} and {@link Op#MAXLOC}
 * reduce (MPI's {@code MPI_DOUBLE_INT} and friends).
 *
 * <p>Counts in the API are element counts of a datatype; the byte length of a message is
 * {@code count * size()}.
 */
public final class Datatype {
    /** Kinds of element, used by reductions to choose their arithmetic. */
    public enum Kind { BYTE, BOOLEAN, SHORT, CHAR, INT, LONG, FLOAT, DOUBLE, PAIR }

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

    private Datatype(String name, Kind kind, MemoryLayout layout, Datatype valueType) {
        this.name = name;
        this.kind = kind;
        this.layout = layout;
        this.valueType = valueType;
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

    /** The datatype with this wire id, as returned by {@link #id()}. */
    public static Datatype ofId(int id) {
        if (id < 0 || id >= PREDEFINED.size()) {
            throw new LockstepException(ErrorClass.TYPE, "no datatype with id " + id);
        }
        return PREDEFINED.get(id);
    }

    /** A small integer that identifies this datatype on the device. */
    public int id() {
        return PREDEFINED.indexOf(this);
    }

    public String name() {
        return name;
    }

    public Kind kind() {
        return kind;
    }

    /** The memory layout of one element. */
    public MemoryLayout layout() {
        return layout;
    }

    /** Size of one element in bytes. */
    public long size() {
        return layout.byteSize();
    }

    /** For a value–index pair, the type of the value; otherwise this type itself. */
    public Datatype valueType() {
        return valueType == null ? this : valueType;
    }

    /** Byte length of {@code count} elements, failing with {@link ErrorClass#COUNT} on overflow or a negative count. */
    public long byteLength(long count) {
        if (count < 0) {
            throw new LockstepException(ErrorClass.COUNT, "negative count " + count);
        }
        try {
            return Math.multiplyExact(count, size());
        } catch (ArithmeticException overflow) {
            throw new LockstepException(ErrorClass.COUNT, "count " + count + " of " + name + " overflows a byte length");
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
