package org.lockstep.api;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A reduction operation: MPI's predefined set, {@link #MINLOC}/{@link #MAXLOC} on value–index pairs
 * (ties go to the lower index), and user-defined operations with a commutativity flag
 * ({@link #create(UserFunction, boolean)}).
 *
 * <p>{@link #apply} computes {@code inout[i] = in[i] op inout[i]} element-wise, as
 * {@code MPI_Reduce_local} does: {@code in} is the left operand. Collectives that combine values
 * from several ranks call it so that a non-commutative operation sees its operands in rank order.
 */
public final class Op {
    /** The function of a user-defined operation, with the semantics of {@link Op#apply}. */
    @FunctionalInterface
    public interface UserFunction {
        void apply(MemorySegment in, MemorySegment inout, long count, Datatype type);
    }

    private enum Predefined { MAX, MIN, SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR, MINLOC, MAXLOC, REPLACE, NO_OP }

    public static final Op MAX = new Op(Predefined.MAX);
    public static final Op MIN = new Op(Predefined.MIN);
    public static final Op SUM = new Op(Predefined.SUM);
    public static final Op PROD = new Op(Predefined.PROD);
    /** Logical and: non-zero is true; the result is 1 or 0. */
    public static final Op LAND = new Op(Predefined.LAND);
    public static final Op LOR = new Op(Predefined.LOR);
    public static final Op LXOR = new Op(Predefined.LXOR);
    /** Bitwise and, for integer types and bytes. */
    public static final Op BAND = new Op(Predefined.BAND);
    public static final Op BOR = new Op(Predefined.BOR);
    public static final Op BXOR = new Op(Predefined.BXOR);
    /** Minimum value and the lowest index that has it; defined on the pair datatypes. */
    public static final Op MINLOC = new Op(Predefined.MINLOC);
    /** Maximum value and the lowest index that has it; defined on the pair datatypes. */
    public static final Op MAXLOC = new Op(Predefined.MAXLOC);
    /** The result is the left operand ({@code MPI_REPLACE}). */
    public static final Op REPLACE = new Op(Predefined.REPLACE);
    /** The result is the right operand ({@code MPI_NO_OP}). */
    public static final Op NO_OP = new Op(Predefined.NO_OP);

    private final Predefined predefined;
    private final UserFunction function;
    private final boolean commutative;

    private Op(Predefined predefined) {
        this.predefined = predefined;
        this.function = null;
        this.commutative = predefined != Predefined.REPLACE && predefined != Predefined.NO_OP;
    }

    private Op(UserFunction function, boolean commutative) {
        this.predefined = null;
        this.function = Objects.requireNonNull(function, "function");
        this.commutative = commutative;
    }

    /** A user-defined operation ({@code MPI_Op_create}); it must be associative. */
    public static Op create(UserFunction function, boolean commutative) {
        return new Op(function, commutative);
    }

    public boolean isCommutative() {
        return commutative;
    }

    public boolean isPredefined() {
        return predefined != null;
    }

    /** Whether this operation is defined on the datatype. */
    public boolean supports(Datatype type) {
        if (predefined == null) {
            return true;
        }
        if (type.kind() == Datatype.Kind.DERIVED) {
            return type.basicType() != null && supports(type.basicType());
        }
        Datatype.Kind k = type.kind();
        return switch (predefined) {
            case MINLOC, MAXLOC -> k == Datatype.Kind.PAIR;
            case MAX, MIN -> k != Datatype.Kind.PAIR && k != Datatype.Kind.BOOLEAN;
            case SUM, PROD -> k != Datatype.Kind.PAIR && k != Datatype.Kind.BOOLEAN && k != Datatype.Kind.CHAR;
            case LAND, LOR, LXOR -> k != Datatype.Kind.PAIR && k != Datatype.Kind.FLOAT && k != Datatype.Kind.DOUBLE;
            case BAND, BOR, BXOR -> k == Datatype.Kind.BYTE || k == Datatype.Kind.SHORT || k == Datatype.Kind.INT
                    || k == Datatype.Kind.LONG || k == Datatype.Kind.CHAR || k == Datatype.Kind.BOOLEAN;
            case REPLACE, NO_OP -> true;
        };
    }

    /**
     * {@code inout[i] = in[i] op inout[i]} for {@code i < count}.
     *
     * @throws LockstepException {@link ErrorClass#OP} if the operation is not defined on the type,
     *         {@link ErrorClass#BUFFER} if a segment is shorter than {@code count} elements
     */
    public void apply(MemorySegment in, MemorySegment inout, long count, Datatype type) {
        if (type.kind() == Datatype.Kind.DERIVED) {
            applyDerived(in, inout, count, type);
            return;
        }
        long bytes = type.byteLength(count);
        if (in.byteSize() < bytes || inout.byteSize() < bytes) {
            throw new LockstepException(ErrorClass.BUFFER, "reduction of " + count + " " + type
                    + " needs " + bytes + " bytes; got in=" + in.byteSize() + ", inout=" + inout.byteSize());
        }
        if (function != null) {
            function.apply(in, inout, count, type);
            return;
        }
        if (!supports(type)) {
            throw new LockstepException(ErrorClass.OP, this + " is not defined on " + type);
        }
        switch (predefined) {
            case NO_OP -> { }
            case REPLACE -> MemorySegment.copy(in, 0, inout, 0, bytes);
            case MINLOC, MAXLOC -> applyLoc(in, inout, count, type);
            default -> {
                if (count >= BULK_MIN_COUNT && applyInBulk(in, inout, count, type)) {
                    return;
                }
                applyElementwise(in, inout, count, type);
            }
        }
    }

    /**
     * A derived type reduces as its basic elements: in place if it is contiguous, else packed, then
     * unpacked into {@code inout}. A user function sees the packed basic elements and the basic type.
     */
    private void applyDerived(MemorySegment in, MemorySegment inout, long count, Datatype type) {
        Datatype basic = type.basicType();
        if (basic == null) {
            throw new LockstepException(ErrorClass.OP, this + " is not defined on " + type + ": its elements mix basic types");
        }
        long basicCount = type.size() == 0 ? 0 : Math.multiplyExact(count, type.size() / basic.size());
        if (type.isContiguous()) {
            apply(in, inout, basicCount, basic);
            return;
        }
        long span = type.span(count);
        if (in.byteSize() < span || inout.byteSize() < span) {
            throw new LockstepException(ErrorClass.BUFFER, "reduction of " + count + " " + type + " reaches " + span
                    + " bytes; got in=" + in.byteSize() + ", inout=" + inout.byteSize());
        }
        long bytes = type.byteLength(count);
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new LockstepException(ErrorClass.NO_MEM, "reduction of " + bytes + " packed bytes of " + type + " is too large to pack");
        }
        MemorySegment packedIn = MemorySegment.ofArray(new long[(int) ((bytes + 7) / 8)]);
        MemorySegment packedInout = MemorySegment.ofArray(new long[(int) ((bytes + 7) / 8)]);
        type.packAll(in, count, packedIn);
        type.packAll(inout, count, packedInout);
        apply(packedIn, packedInout, basicCount, basic);
        type.unpackPartial(packedInout, 0, inout, count, bytes);
    }

    /** {@code MPI_Reduce_local}: {@code inout[i] = in[i] op inout[i]}, for any committed datatype the operation supports. */
    public void reduceLocal(MemorySegment in, MemorySegment inout, long count, Datatype type) {
        Datatype.checkUsable(type);
        apply(in, inout, count, type);
    }

    /** Counts from which {@link #applyInBulk} pays for its copies. */
    private static final long BULK_MIN_COUNT = 64;
    /** Elements per bulk chunk: two chunks of the widest type stay within the L1 cache. */
    private static final int BULK_CHUNK = 2048;

    /**
     * The element-wise operations on long, int, double and float, a chunk at a time through
     * arrays: segments of several kinds (heap, native, mapped) reach the same call site, and the
     * JIT then compiles an element access through a segment as a slow, megamorphic call (about
     * 100 ns an element measured here); bulk copies plus a plain array loop run at memory speed.
     * The result is the same, element for element.
     *
     * @return false if the type is not one handled here
     */
    private boolean applyInBulk(MemorySegment in, MemorySegment inout, long count, Datatype type) {
        switch (type.kind()) {
            case DOUBLE -> {
                double[] a = new double[(int) Math.min(BULK_CHUNK, count)];
                double[] b = new double[a.length];
                for (long done = 0; done < count; done += a.length) {
                    int n = (int) Math.min(a.length, count - done);
                    long at = done * Double.BYTES;
                    MemorySegment.copy(in, ValueLayout.JAVA_DOUBLE_UNALIGNED, at, a, 0, n);
                    MemorySegment.copy(inout, ValueLayout.JAVA_DOUBLE_UNALIGNED, at, b, 0, n);
                    combineDoubles(a, b, n);
                    MemorySegment.copy(b, 0, inout, ValueLayout.JAVA_DOUBLE_UNALIGNED, at, n);
                }
                return true;
            }
            case FLOAT -> {
                float[] a = new float[(int) Math.min(BULK_CHUNK, count)];
                float[] b = new float[a.length];
                for (long done = 0; done < count; done += a.length) {
                    int n = (int) Math.min(a.length, count - done);
                    long at = done * Float.BYTES;
                    MemorySegment.copy(in, ValueLayout.JAVA_FLOAT_UNALIGNED, at, a, 0, n);
                    MemorySegment.copy(inout, ValueLayout.JAVA_FLOAT_UNALIGNED, at, b, 0, n);
                    for (int i = 0; i < n; i++) {
                        b[i] = (float) combineDouble(a[i], b[i]);
                    }
                    MemorySegment.copy(b, 0, inout, ValueLayout.JAVA_FLOAT_UNALIGNED, at, n);
                }
                return true;
            }
            case LONG -> {
                long[] a = new long[(int) Math.min(BULK_CHUNK, count)];
                long[] b = new long[a.length];
                for (long done = 0; done < count; done += a.length) {
                    int n = (int) Math.min(a.length, count - done);
                    long at = done * Long.BYTES;
                    MemorySegment.copy(in, ValueLayout.JAVA_LONG_UNALIGNED, at, a, 0, n);
                    MemorySegment.copy(inout, ValueLayout.JAVA_LONG_UNALIGNED, at, b, 0, n);
                    combineLongs(a, b, n);
                    MemorySegment.copy(b, 0, inout, ValueLayout.JAVA_LONG_UNALIGNED, at, n);
                }
                return true;
            }
            case INT -> {
                int[] a = new int[(int) Math.min(BULK_CHUNK, count)];
                int[] b = new int[a.length];
                for (long done = 0; done < count; done += a.length) {
                    int n = (int) Math.min(a.length, count - done);
                    long at = done * Integer.BYTES;
                    MemorySegment.copy(in, ValueLayout.JAVA_INT_UNALIGNED, at, a, 0, n);
                    MemorySegment.copy(inout, ValueLayout.JAVA_INT_UNALIGNED, at, b, 0, n);
                    if (predefined == Predefined.SUM) {
                        for (int i = 0; i < n; i++) {
                            b[i] = a[i] + b[i];
                        }
                    } else {
                        for (int i = 0; i < n; i++) {
                            b[i] = (int) combineLong(a[i], b[i]);
                        }
                    }
                    MemorySegment.copy(b, 0, inout, ValueLayout.JAVA_INT_UNALIGNED, at, n);
                }
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** {@code b[i] = a[i] op b[i]}; the common operations get loops of their own (the JIT vectorises them). */
    private void combineDoubles(double[] a, double[] b, int n) {
        switch (predefined) {
            case SUM -> {
                for (int i = 0; i < n; i++) {
                    b[i] = a[i] + b[i];
                }
            }
            case PROD -> {
                for (int i = 0; i < n; i++) {
                    b[i] = a[i] * b[i];
                }
            }
            case MAX -> {
                for (int i = 0; i < n; i++) {
                    b[i] = Math.max(a[i], b[i]);
                }
            }
            case MIN -> {
                for (int i = 0; i < n; i++) {
                    b[i] = Math.min(a[i], b[i]);
                }
            }
            default -> {
                for (int i = 0; i < n; i++) {
                    b[i] = combineDouble(a[i], b[i]);
                }
            }
        }
    }

    private void combineLongs(long[] a, long[] b, int n) {
        switch (predefined) {
            case SUM -> {
                for (int i = 0; i < n; i++) {
                    b[i] = a[i] + b[i];
                }
            }
            case MAX -> {
                for (int i = 0; i < n; i++) {
                    b[i] = Math.max(a[i], b[i]);
                }
            }
            case MIN -> {
                for (int i = 0; i < n; i++) {
                    b[i] = Math.min(a[i], b[i]);
                }
            }
            default -> {
                for (int i = 0; i < n; i++) {
                    b[i] = combineLong(a[i], b[i]);
                }
            }
        }
    }

    private void applyElementwise(MemorySegment in, MemorySegment inout, long count, Datatype type) {
        switch (type.kind()) {
            case BYTE, BOOLEAN -> {
                for (long i = 0; i < count; i++) {
                    long r = combineLong(in.get(ValueLayout.JAVA_BYTE, i), inout.get(ValueLayout.JAVA_BYTE, i));
                    inout.set(ValueLayout.JAVA_BYTE, i, (byte) r);
                }
            }
            case SHORT -> {
                ValueLayout.OfShort l = ValueLayout.JAVA_SHORT_UNALIGNED;
                for (long i = 0; i < count; i++) {
                    inout.set(l, i * 2, (short) combineLong(in.get(l, i * 2), inout.get(l, i * 2)));
                }
            }
            case CHAR -> {
                ValueLayout.OfChar l = ValueLayout.JAVA_CHAR_UNALIGNED;
                for (long i = 0; i < count; i++) {
                    inout.set(l, i * 2, (char) combineLong(in.get(l, i * 2), inout.get(l, i * 2)));
                }
            }
            case INT -> {
                ValueLayout.OfInt l = ValueLayout.JAVA_INT_UNALIGNED;
                for (long i = 0; i < count; i++) {
                    inout.set(l, i * 4, (int) combineLong(in.get(l, i * 4), inout.get(l, i * 4)));
                }
            }
            case LONG -> {
                ValueLayout.OfLong l = ValueLayout.JAVA_LONG_UNALIGNED;
                for (long i = 0; i < count; i++) {
                    inout.set(l, i * 8, combineLong(in.get(l, i * 8), inout.get(l, i * 8)));
                }
            }
            case FLOAT -> {
                ValueLayout.OfFloat l = ValueLayout.JAVA_FLOAT_UNALIGNED;
                for (long i = 0; i < count; i++) {
                    inout.set(l, i * 4, (float) combineDouble(in.get(l, i * 4), inout.get(l, i * 4)));
                }
            }
            case DOUBLE -> {
                ValueLayout.OfDouble l = ValueLayout.JAVA_DOUBLE_UNALIGNED;
                for (long i = 0; i < count; i++) {
                    inout.set(l, i * 8, combineDouble(in.get(l, i * 8), inout.get(l, i * 8)));
                }
            }
            case PAIR, DERIVED -> throw new LockstepException(ErrorClass.OP, this + " is not defined on " + type);
        }
    }

    private long combineLong(long a, long b) {
        return switch (predefined) {
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case SUM -> a + b;
            case PROD -> a * b;
            case LAND -> (a != 0 && b != 0) ? 1 : 0;
            case LOR -> (a != 0 || b != 0) ? 1 : 0;
            case LXOR -> ((a != 0) ^ (b != 0)) ? 1 : 0;
            case BAND -> a & b;
            case BOR -> a | b;
            case BXOR -> a ^ b;
            default -> throw new IllegalStateException(predefined.name());
        };
    }

    private double combineDouble(double a, double b) {
        return switch (predefined) {
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case SUM -> a + b;
            case PROD -> a * b;
            default -> throw new IllegalStateException(predefined.name());
        };
    }

    private void applyLoc(MemorySegment in, MemorySegment inout, long count, Datatype type) {
        Datatype value = type.valueType();
        long stride = type.size();
        long indexOffset = value.size();
        ValueLayout.OfInt index = ValueLayout.JAVA_INT_UNALIGNED;
        for (long i = 0; i < count; i++) {
            long base = i * stride;
            int cmp = compareValues(in, inout, base, value);
            int inIndex = in.get(index, base + indexOffset);
            int outIndex = inout.get(index, base + indexOffset);
            boolean takeIn = predefined == Predefined.MINLOC ? cmp < 0 : cmp > 0;
            if (takeIn || (cmp == 0 && inIndex < outIndex)) {
                MemorySegment.copy(in, base, inout, base, stride);
            }
        }
    }

    private static int compareValues(MemorySegment a, MemorySegment b, long offset, Datatype value) {
        return switch (value.kind()) {
            case INT -> Integer.compare(a.get(ValueLayout.JAVA_INT_UNALIGNED, offset), b.get(ValueLayout.JAVA_INT_UNALIGNED, offset));
            case LONG -> Long.compare(a.get(ValueLayout.JAVA_LONG_UNALIGNED, offset), b.get(ValueLayout.JAVA_LONG_UNALIGNED, offset));
            case FLOAT -> Float.compare(a.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset), b.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset));
            case DOUBLE -> Double.compare(a.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset), b.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset));
            default -> throw new IllegalStateException(value.name());
        };
    }

    @Override
    public String toString() {
        return predefined != null ? "Op." + predefined.name() : (commutative ? "Op.user(commutative)" : "Op.user(non-commutative)");
    }
}
