package org.lockstep.mpi.abi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.ErrorClass;

/**
 * What one MPI application binary interface looks like from outside the library: how handles are
 * passed, the values of the predefined handles and constants, the layout of {@code MPI_Status}, and
 * what the error classes mean. Libraries of different ABIs differ in every one of these (Open MPI's
 * handles are addresses of predefined objects, MPICH's are integer constants), so each ABI is
 * described once, in its own subclass, and no other class knows a single value.
 *
 * <p>Handles are carried as {@code long} everywhere in the provider; {@link #handleLayout()} says
 * how a call passes one (a pointer, or a C {@code int}).
 */
public abstract sealed class MpiAbi permits OpenMpiAbi, MpichAbi {
    /** A short name for reports, e.g. {@code Open MPI}. */
    public abstract String name();

    /** How a handle ({@code MPI_Comm}, {@code MPI_Datatype}, {@code MPI_Request}, ...) is passed and stored. */
    public abstract ValueLayout handleLayout();

    public abstract long commWorld();

    public abstract long commSelf();

    public abstract long commNull();

    public abstract long requestNull();

    public abstract long errorsReturn();

    public abstract long infoNull();

    public abstract long winNull();

    /** {@code MPI_LOCK_EXCLUSIVE}. */
    public abstract int lockExclusive();

    /** The assertion {@code MPI_MODE_NOCHECK}. */
    public abstract int modeNoCheck();

    /** {@code MPI_LOCK_SHARED}. */
    public abstract int lockShared();

    /**
     * Whether this library, as the provider starts it ({@link #settingsBeforeInit}), makes windows
     * over memory it did not allocate ({@code MPI_Win_create}); where it does not, such windows
     * are the SPI's point-to-point windows.
     */
    public boolean windowsOverCallerMemory() {
        return true;
    }

    /** The handle of a predefined datatype. */
    public abstract long datatype(NativeType type);

    /** The handle of a predefined reduction operation. */
    public abstract long op(NativeOp op);

    public abstract int anySource();

    public abstract int anyTag();

    public abstract int procNull();

    public abstract int undefined();

    /** {@code MPI_COMM_TYPE_SHARED} for {@code MPI_Comm_split_type}. */
    public abstract int commTypeShared();

    /** The attribute key of {@code MPI_TAG_UB}. */
    public abstract int tagUpperBoundKey();

    /** {@code MPI_THREAD_MULTIPLE}; the lower levels count down from it to {@code MPI_THREAD_SINGLE}. */
    public abstract int threadMultiple();

    public abstract int threadSerialized();

    /** {@code MPI_IN_PLACE}. */
    public abstract MemorySegment inPlace();

    /** {@code MPI_STATUS_IGNORE}. */
    public abstract MemorySegment statusIgnore();

    /** Bytes of one {@code MPI_Status}. */
    public abstract long statusSize();

    public abstract int statusSource(MemorySegment status);

    public abstract int statusTag(MemorySegment status);

    public abstract int statusError(MemorySegment status);

    /** The bytes a status says were received (the library's own count field; the unit is bytes in both ABIs). */
    public abstract long statusBytes(MemorySegment status);

    public abstract boolean statusCancelled(MemorySegment status);

    /**
     * Whether a truncated receive leaves the part that fits in the buffer and reports the whole
     * message's length in its status (MPI leaves both undefined). Where it does not, the provider
     * probes before a blocking receive so that truncation loses nothing.
     */
    public abstract boolean truncationKeepsPrefix();

    /**
     * Settings this library reads from the environment at {@code MPI_Init} that the provider needs
     * for safety (name to value); the session sets each one the user has not set.
     */
    public java.util.Map<String, String> settingsBeforeInit() {
        return java.util.Map.of();
    }

    /** {@code MPI_MAX_ERROR_STRING}. */
    public abstract int maxErrorString();

    /** The error class {@code MPI_ERR_TRUNCATE}. */
    public abstract int truncateClass();

    /** The API's class for an MPI error class of this ABI ({@link ErrorClass#OTHER} for one it does not know). */
    public abstract ErrorClass errorClass(int mpiErrorClass);

    /** A handle read from native memory laid out as {@link #handleLayout()}. */
    public final long readHandle(MemorySegment at, long offset) {
        return handleLayout() instanceof ValueLayout.OfInt i ? at.get(i, offset) : at.get(ValueLayout.JAVA_LONG, offset);
    }

    /** Stores a handle into native memory laid out as {@link #handleLayout()}. */
    public final void writeHandle(MemorySegment at, long offset, long handle) {
        if (handleLayout() instanceof ValueLayout.OfInt i) {
            at.set(i, offset, (int) handle);
        } else {
            at.set(ValueLayout.JAVA_LONG, offset, handle);
        }
    }

    @Override
    public String toString() {
        return name() + " ABI";
    }
}
