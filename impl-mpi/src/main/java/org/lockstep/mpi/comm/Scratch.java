package org.lockstep.mpi.comm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.lockstep.mpi.binding.Mpi;

/**
 * Native memory a thread reuses for its blocking calls: a status, a few out-parameters, and
 * staging areas into which buffers that live on the Java heap are copied (the native library
 * cannot see heap memory, which the garbage collector moves). Areas grow as needed and are
 * released with the thread.
 */
final class Scratch {
    private static final ThreadLocal<Scratch> CURRENT = ThreadLocal.withInitial(Scratch::new);
    private static final int STAGING_AREAS = 3;
    private static final long MIN_STAGING = 4096;

    /** One {@code MPI_Status}. */
    final MemorySegment status;
    /** Out-parameters: a handle or an int at offset 0, another int at 8. */
    final MemorySegment words;
    private final MemorySegment[] staging = new MemorySegment[STAGING_AREAS];

    private Scratch() {
        Arena arena = Arena.ofAuto();
        status = arena.allocate(Mpi.ABI.statusSize(), 8);
        words = arena.allocate(16, 8);
    }

    static Scratch get() {
        return CURRENT.get();
    }

    /** Staging area {@code area} (0..2) of at least {@code bytes} bytes; its contents are undefined. */
    MemorySegment staging(int area, long bytes) {
        MemorySegment current = staging[area];
        if (current == null || current.byteSize() < bytes) {
            long size = Math.max(MIN_STAGING, Long.highestOneBit(Math.max(bytes, 1) - 1) << 1);
            current = Arena.ofAuto().allocate(Math.max(size, bytes), 64);
            staging[area] = current;
        }
        return current.asSlice(0, bytes);
    }
}
