package org.lockstep.mpi.binding;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** A native MPI error code as a {@link LockstepException}: its class mapped by the ABI, its message the library's own. */
public final class MpiErrors {
    private MpiErrors() {
    }

    /** The exception for {@code code}, returned by {@code call}. */
    public static LockstepException exception(int code, String call) {
        int mpiClass = errorClass(code);
        ErrorClass errorClass = mpiClass < 0 ? ErrorClass.OTHER : Mpi.ABI.errorClass(mpiClass);
        return new LockstepException(errorClass, call + " failed in " + Mpi.ABI.name() + ": " + errorString(code)
                + " (MPI error code " + code + ", class " + mpiClass + ")");
    }

    /** The MPI error class of {@code code}, or -1 if the library cannot say. */
    public static int errorClass(int code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_INT);
            int rc = (int) Mpi.ERROR_CLASS.invokeExact(code, out);
            return rc == 0 ? out.get(ValueLayout.JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    /** The library's text for {@code code}. */
    public static String errorString(int code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(Mpi.ABI.maxErrorString() + 1L);
            MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
            int rc = (int) Mpi.ERROR_STRING.invokeExact(code, text, length);
            if (rc != 0) {
                return "unknown error";
            }
            int n = Math.min(Math.max(length.get(ValueLayout.JAVA_INT, 0), 0), Mpi.ABI.maxErrorString());
            return new String(text.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8).trim();
        } catch (Throwable t) {
            return "unknown error (" + t + ")";
        }
    }
}
