package org.lockstep.mpi.comm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.mpi.abi.MpiAbi;
import org.lockstep.mpi.abi.NativeOp;
import org.lockstep.mpi.abi.NativeType;
import org.lockstep.mpi.binding.Mpi;

/**
 * The API's datatypes and reduction operations as native handles.
 *
 * <p>Datatypes: each primitive is the MPI type of the same width and signedness ({@code INT} is
 * {@code MPI_INT32_T}, {@code CHAR} is {@code MPI_UINT16_T}); {@code INT_INT} and
 * {@code FLOAT_INT} are MPI's own pair types, which have no padding. The API packs
 * {@code LONG_INT} and {@code DOUBLE_INT} into 12 bytes where C pads them to 16, so those two are
 * derived types built here (a value at 0, an int at 8, extent 12).
 *
 * <p>Operations: MPI's predefined operation where MPI defines it on that type with the API's
 * meaning; otherwise (user operations, {@code REPLACE} and {@code NO_OP}, which MPI allows only in
 * one-sided calls, and {@code MINLOC}/{@code MAXLOC} on the derived pairs) an operation created
 * with {@code MPI_Op_create} whose function is an FFM upcall into {@link Op#apply}, with the
 * operation's commutativity, so that MPI keeps rank order for non-commutative ones. An exception
 * thrown by a user function cannot cross the native frames: it is kept and rethrown when the MPI
 * call returns ({@link #rethrowUpcallFailure}).
 */
final class NativeTypes {
    private static final ThreadLocal<Throwable> UPCALL_FAILURE = new ThreadLocal<>();
    private static final MethodHandle APPLY;

    static {
        try {
            APPLY = MethodHandles.lookup().findStatic(NativeTypes.class, "applyUpcall", MethodType.methodType(void.class,
                    NativeTypes.class, Op.class, MemorySegment.class, MemorySegment.class, MemorySegment.class, MemorySegment.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MpiAbi abi = Mpi.ABI;
    private final Map<Datatype, Long> handles = new ConcurrentHashMap<>();
    private final Map<Long, Datatype> byHandle = new ConcurrentHashMap<>();
    private final Map<Op, Long> userOps = new ConcurrentHashMap<>();
    private final Map<Op, NativeOp> predefined = new java.util.IdentityHashMap<>();
    private final Map<NativeType, Long> nativeTypes = new EnumMap<>(NativeType.class);
    private final Arena upcalls = Arena.global();
    /** {@code MPI_BYTE}, read on every point-to-point call. */
    private final long bytes;

    NativeTypes() {
        for (NativeType t : NativeType.values()) {
            nativeTypes.put(t, abi.datatype(t));
        }
        bytes = abi.datatype(NativeType.BYTE);
        register(Datatype.BYTE, nativeTypes.get(NativeType.INT8));
        register(Datatype.BOOLEAN, nativeTypes.get(NativeType.C_BOOL));
        register(Datatype.SHORT, nativeTypes.get(NativeType.INT16));
        register(Datatype.CHAR, nativeTypes.get(NativeType.UINT16));
        register(Datatype.INT, nativeTypes.get(NativeType.INT32));
        register(Datatype.LONG, nativeTypes.get(NativeType.INT64));
        register(Datatype.FLOAT, nativeTypes.get(NativeType.FLOAT));
        register(Datatype.DOUBLE, nativeTypes.get(NativeType.DOUBLE));
        register(Datatype.INT_INT, nativeTypes.get(NativeType.INT_INT));
        register(Datatype.FLOAT_INT, nativeTypes.get(NativeType.FLOAT_INT));
        register(Datatype.LONG_INT, packedPair(NativeType.INT64));
        register(Datatype.DOUBLE_INT, packedPair(NativeType.DOUBLE));
        predefined.put(Op.MAX, NativeOp.MAX);
        predefined.put(Op.MIN, NativeOp.MIN);
        predefined.put(Op.SUM, NativeOp.SUM);
        predefined.put(Op.PROD, NativeOp.PROD);
        predefined.put(Op.LAND, NativeOp.LAND);
        predefined.put(Op.LOR, NativeOp.LOR);
        predefined.put(Op.LXOR, NativeOp.LXOR);
        predefined.put(Op.BAND, NativeOp.BAND);
        predefined.put(Op.BOR, NativeOp.BOR);
        predefined.put(Op.BXOR, NativeOp.BXOR);
        predefined.put(Op.MINLOC, NativeOp.MINLOC);
        predefined.put(Op.MAXLOC, NativeOp.MAXLOC);
    }

    /** {@code MPI_BYTE}. */
    long bytes() {
        return bytes;
    }

    /** The handle that carries elements of {@code type}. */
    long of(Datatype type) {
        Long handle = handles.get(type);
        if (handle == null) {
            throw new LockstepException(ErrorClass.TYPE, "datatype " + type + " has no MPI counterpart");
        }
        return handle;
    }

    /** The datatype to reduce {@code type} with under {@code op}: C's bool has no bitwise operations, uint8 has. */
    long forReduction(Datatype type, Op op) {
        if (type == Datatype.BOOLEAN && (op == Op.BAND || op == Op.BOR || op == Op.BXOR)) {
            return nativeTypes.get(NativeType.UINT8);
        }
        return of(type);
    }

    /** The operation handle for {@code op} on {@code type}. */
    long op(Op op, Datatype type) {
        NativeOp nativeOp = predefined.get(op);
        boolean derivedPair = type == Datatype.LONG_INT || type == Datatype.DOUBLE_INT;
        if (nativeOp != null && !(derivedPair && (nativeOp == NativeOp.MINLOC || nativeOp == NativeOp.MAXLOC))) {
            return abi.op(nativeOp);
        }
        return userOps.computeIfAbsent(op, this::createUpcallOp);
    }

    /**
     * The operation of a one-sided accumulate of {@code element}s with {@code op}: MPI takes only its
     * predefined operations there ({@code MPI_REPLACE} and {@code MPI_NO_OP} among them) on
     * predefined types, so the API's packed pairs of 12 bytes, which are derived types here, have none.
     */
    long oneSidedOp(Op op, Datatype element) {
        NativeOp nativeOp = op == Op.REPLACE ? NativeOp.REPLACE : op == Op.NO_OP ? NativeOp.NO_OP : predefined.get(op);
        if (nativeOp == null || element == Datatype.LONG_INT || element == Datatype.DOUBLE_INT) {
            throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, "a one-sided accumulate of " + element + " with " + op
                    + " on provider mpi: MPI has no predefined " + (nativeOp == null ? "operation" : "type") + " for it");
        }
        return abi.op(nativeOp);
    }

    /** Rethrows what a user function threw during the MPI call that just returned on this thread. */
    static void rethrowUpcallFailure() {
        Throwable failure = UPCALL_FAILURE.get();
        if (failure == null) {
            return;
        }
        UPCALL_FAILURE.remove();
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        throw new LockstepException(ErrorClass.OP, "the reduction operation failed: " + failure, failure);
    }

    /** Frees the derived types and the operations created here (before {@code MPI_Finalize}). */
    void free() {
        MpiAbi a = abi;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cell = arena.allocate(8, 8);
            for (Datatype derived : new Datatype[] {Datatype.LONG_INT, Datatype.DOUBLE_INT}) {
                a.writeHandle(cell, 0, handles.get(derived));
                Mpi.check((int) Mpi.TYPE_FREE.invokeExact(cell), "MPI_Type_free");
            }
            for (long op : userOps.values()) {
                a.writeHandle(cell, 0, op);
                Mpi.check((int) Mpi.OP_FREE.invokeExact(cell), "MPI_Op_free");
            }
            userOps.clear();
        } catch (LockstepException e) {
            throw e;
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.INTERN, "freeing MPI types and operations failed: " + t, t);
        }
    }

    private void register(Datatype type, long handle) {
        handles.put(type, handle);
        byHandle.put(handle, type);
    }

    /** A value of {@code value} at 0 and an int at 8, extent 12: the API's packed pair. */
    private long packedPair(NativeType value) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment lengths = arena.allocateFrom(ValueLayout.JAVA_INT, 1, 1);
            MemorySegment displacements = arena.allocateFrom(ValueLayout.JAVA_LONG, 0, 8);
            MemorySegment types = arena.allocate(abi.handleLayout(), 2);
            abi.writeHandle(types, 0, nativeTypes.get(value));
            abi.writeHandle(types, abi.handleLayout().byteSize(), nativeTypes.get(NativeType.INT32));
            MemorySegment out = arena.allocate(8, 8);
            Mpi.check((int) Mpi.TYPE_CREATE_STRUCT.invokeExact(2, lengths, displacements, types, out), "MPI_Type_create_struct");
            long struct = abi.readHandle(out, 0);
            Mpi.check((int) Mpi.TYPE_CREATE_RESIZED.invokeExact(struct, 0L, 12L, out), "MPI_Type_create_resized");
            Mpi.check((int) Mpi.TYPE_COMMIT.invokeExact(out), "MPI_Type_commit");
            long packed = abi.readHandle(out, 0);
            abi.writeHandle(out, 0, struct); // the resized type holds its own reference to the struct
            Mpi.check((int) Mpi.TYPE_FREE.invokeExact(out), "MPI_Type_free");
            return packed;
        } catch (LockstepException e) {
            throw e;
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.INTERN, "building a packed pair type failed: " + t, t);
        }
    }

    private long createUpcallOp(Op op) {
        MethodHandle target = MethodHandles.insertArguments(APPLY, 0, this, op);
        MemorySegment stub = Linker.nativeLinker().upcallStub(target,
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS), upcalls);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(8, 8);
            Mpi.check((int) Mpi.OP_CREATE.invokeExact(stub, op.isCommutative() ? 1 : 0, out), "MPI_Op_create");
            return abi.readHandle(out, 0);
        } catch (LockstepException e) {
            throw e;
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.INTERN, "MPI_Op_create failed: " + t, t);
        }
    }

    /** {@code MPI_User_function}: {@code inout[i] = in[i] op inout[i]}. Never throws into native code. */
    private static void applyUpcall(NativeTypes types, Op op, MemorySegment in, MemorySegment inout, MemorySegment length,
                                    MemorySegment datatype) {
        try {
            int count = length.reinterpret(4).get(ValueLayout.JAVA_INT, 0);
            long handle = types.abi.readHandle(datatype.reinterpret(types.abi.handleLayout().byteSize()), 0);
            Datatype type = types.byHandle.get(handle);
            if (type == null) {
                throw new LockstepException(ErrorClass.TYPE, "the MPI library called a reduction on an unknown datatype handle 0x"
                        + Long.toHexString(handle));
            }
            long bytes = count * type.size();
            op.apply(in.reinterpret(bytes), inout.reinterpret(bytes), count, type);
        } catch (Throwable t) {
            if (UPCALL_FAILURE.get() == null) {
                UPCALL_FAILURE.set(t);
            }
        }
    }
}
