package mpi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * A reduction operation ({@code MPI_Op}): one of {@code MPI.SUM} ... or a user-defined one
 * ({@code new Op(function, commute)}), carried out by Lockstep's reductions in rank order.
 */
public final class Op implements Freeable {
    /** Lockstep's operation; for a user function, one that calls it. */
    final org.lockstep.api.Op op;
    private final UserFunction function;
    private final boolean commute;
    private final String name;
    /** The datatype of the reduction in progress, which a user function is told. */
    private volatile Datatype datatype;
    private boolean freed;

    /**
     * Lockstep's operation behind a predefined op and its MPI name. A constructor must not name a
     * Lockstep type: javac weighs every constructor of {@code new Op(function, commute)}, private
     * ones too, and would need Lockstep's API on a program's compile path, which holds the bindings only.
     */
    record Predefined(org.lockstep.api.Op op, String name) {
    }

    private Op(Predefined predefined) {
        this.op = predefined.op();
        this.function = null;
        this.commute = op.isCommutative();
        this.name = predefined.name();
    }

    /** A predefined operation ({@code MPI.SUM} ...) carried out by Lockstep's {@code op}. */
    static Op predefined(org.lockstep.api.Op op, String name) {
        return new Op(new Predefined(op, name));
    }

    /** A user-defined operation ({@code MPI_Op_create}); it must be associative. */
    public Op(UserFunction function, boolean commute) {
        this.function = function;
        this.commute = commute;
        this.name = "user-defined " + (commute ? "commutative" : "non-commutative") + " op";
        this.op = org.lockstep.api.Op.create(this::callUserFunction, commute);
    }

    /** Lockstep's operation for a reduction of {@code type}; remembers the type for a user function. */
    org.lockstep.api.Op forType(Datatype type) {
        datatype = type;
        return op;
    }

    private void callUserFunction(MemorySegment in, MemorySegment inOut, long wireCount, org.lockstep.api.Datatype wire) {
        Datatype type = datatype;
        int count = (int) (wireCount / type.wirePerElement);
        try {
            if (type.baseType == Datatype.BOOLEAN) {
                boolean[] a = booleans(in, count);
                boolean[] b = booleans(inOut, count);
                function.call(a, b, count, type);
                for (int i = 0; i < count; i++) {
                    inOut.set(ValueLayout.JAVA_BYTE, i, b[i] ? (byte) 1 : 0);
                }
            } else if (inOut.isNative()) {
                function.call(asBuffer(in), asBuffer(inOut), count, type);
            } else {
                // a heap segment over an int[] (or any array but byte[]) has no ByteBuffer view: work on a copy
                ByteBuffer result = asBuffer(inOut);
                function.call(asBuffer(in), result, count, type);
                MemorySegment.copy(MemorySegment.ofBuffer(result.clear()), 0, inOut, 0, inOut.byteSize());
            }
        } catch (MPIException e) {
            throw new LockstepException(ErrorClass.OP, "the user function of " + name + " failed: " + e.getMessage(), e);
        }
    }

    /** The segment as a byte buffer in native order: a view when it is native memory, else a copy. */
    private static ByteBuffer asBuffer(MemorySegment segment) {
        ByteBuffer buffer = segment.isNative() ? segment.asByteBuffer()
                : ByteBuffer.wrap(segment.toArray(ValueLayout.JAVA_BYTE));
        return buffer.order(ByteOrder.nativeOrder());
    }

    private static boolean[] booleans(MemorySegment segment, int count) {
        boolean[] values = new boolean[count];
        for (int i = 0; i < count; i++) {
            values[i] = segment.get(ValueLayout.JAVA_BYTE, i) != 0;
        }
        return values;
    }

    /** Whether the operation is commutative ({@code MPI_Op_commutative}). */
    public boolean isCommutative() {
        return commute;
    }

    /** Frees a user-defined operation ({@code MPI_Op_free}). */
    @Override
    public void free() throws MPIException {
        MPI.check();
        if (function == null) {
            throw ErrorClasses.argument(ErrorClasses.OP, "Op.free", "cannot free the predefined " + name);
        }
        freed = true;
    }

    /** Whether the operation was freed ({@code MPI_OP_NULL}). */
    public boolean isNull() {
        return freed;
    }

    void checkUsable(String call) throws MPIException {
        if (freed) {
            throw ErrorClasses.argument(ErrorClasses.OP, call, "the operation was freed");
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
