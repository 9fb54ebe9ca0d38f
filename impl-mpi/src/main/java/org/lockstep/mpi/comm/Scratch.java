package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.mpi.binding.Mpi;
import org.lockstep.mpi.binding.NativeMemory;

/**
 * Native memory a thread reuses for its blocking calls: a status, a few out-parameters, and
 * staging areas into which buffers that live on the Java heap are copied (the native library
 * cannot see heap memory, which the garbage collector moves). Areas grow as needed; what a thread
 * holds stays allocated for the life of the process (a few bytes, and its largest staging area).
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
        // malloc'd, not from an arena: a segment of an automatic arena costs two atomic updates of its
        // scope on every native call that takes it; these few bytes live as long as the thread anyway.
        status = NativeMemory.allocate(Mpi.ABI.statusSize());
        words = NativeMemory.allocate(16);
    }

    static Scratch get() {
        return CURRENT.get();
    }

    /** Staging area {@code area} (0..2) of at least {@code bytes} bytes; its contents are undefined. */
    MemorySegment staging(int area, long bytes) {
        MemorySegment current = staging[area];
        if (current == null || current.byteSize() < bytes) {
            long size = Math.max(MIN_STAGING, Long.highestOneBit(Math.max(bytes, 1) - 1) << 1);
            if (current != null) {
                NativeMemory.free(current); // only this thread ever used it, and no call of its is in flight
            }
            current = NativeMemory.allocate(Math.max(size, bytes));
            staging[area] = current;
        }
        return current.asSlice(0, bytes);
    }
}
