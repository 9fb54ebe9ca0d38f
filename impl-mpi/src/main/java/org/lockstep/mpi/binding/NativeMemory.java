package org.lockstep.mpi.binding;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * C's {@code malloc}/{@code free} and {@code setenv}: memory whose life is not a scope (a request's
 * staging buffer lives until the request completes, on whichever thread completes it), and the
 * environment the native library reads.
 */
public final class NativeMemory {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MALLOC = LINKER.downcallHandle(LINKER.defaultLookup().find("malloc").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle FREE = LINKER.downcallHandle(LINKER.defaultLookup().find("free").orElseThrow(),
            FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
    private static final MethodHandle SETENV = LINKER.downcallHandle(LINKER.defaultLookup().find("setenv").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle GETENV = LINKER.downcallHandle(LINKER.defaultLookup().find("getenv").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));

    private NativeMemory() {
    }

    /** {@code bytes} of uninitialised native memory (at least one byte), to be given back with {@link #free}. */
    public static MemorySegment allocate(long bytes) {
        try {
            MemorySegment memory = (MemorySegment) MALLOC.invokeExact(Math.max(bytes, 1));
            if (memory.equals(MemorySegment.NULL)) {
                throw new LockstepException(ErrorClass.NO_MEM, "cannot allocate " + bytes + " bytes of native memory");
            }
            return memory.reinterpret(bytes);
        } catch (LockstepException e) {
            throw e;
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.INTERN, "malloc failed: " + t, t);
        }
    }

    public static void free(MemorySegment memory) {
        try {
            FREE.invokeExact(memory);
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.INTERN, "free failed: " + t, t);
        }
    }

    /** Sets a variable of the process's native environment unless it is set already; returns its value afterwards. */
    public static String setenvIfAbsent(String name, String value) {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment key = arena.allocateFrom(name);
            MemorySegment current = (MemorySegment) GETENV.invokeExact(key);
            if (!current.equals(MemorySegment.NULL)) {
                return current.reinterpret(Integer.MAX_VALUE).getString(0);
            }
            int rc = (int) SETENV.invokeExact(key, arena.allocateFrom(value), 0);
            if (rc != 0) {
                throw new LockstepException(ErrorClass.INTERN, "setenv " + name + " failed");
            }
            return value;
        } catch (LockstepException e) {
            throw e;
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.INTERN, "setenv " + name + " failed: " + t, t);
        }
    }
}
