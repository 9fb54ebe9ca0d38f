package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.mpi.binding.Mpi;

/**
 * The buffers of one blocking collective as the library sees them: native memory as it is,
 * {@link Communicator#IN_PLACE} as {@code MPI_IN_PLACE}, and heap buffers through the thread's
 * staging areas, copied in before the call where they are read and back after it where they are
 * written ({@link #finish()}).
 */
final class Staging {
    private final Scratch scratch = Scratch.get();
    private MemorySegment backTo;
    private MemorySegment backFrom;
    private long backBytes;

    /** A buffer the call reads. */
    MemorySegment in(int area, MemorySegment buffer, long bytes) {
        if (buffer == Communicator.IN_PLACE) {
            return Mpi.ABI.inPlace();
        }
        if (buffer == null || bytes == 0) {
            return buffer == null || !buffer.isNative() ? MemorySegment.NULL : buffer;
        }
        if (buffer.isNative()) {
            return buffer;
        }
        MemorySegment copy = scratch.staging(area, bytes);
        MemorySegment.copy(buffer, 0, copy, 0, bytes);
        return copy;
    }

    /** A buffer the call writes (and, with {@code read}, also reads first). */
    MemorySegment out(int area, MemorySegment buffer, long bytes, boolean read) {
        if (buffer == null || bytes == 0) {
            return buffer == null || !buffer.isNative() ? MemorySegment.NULL : buffer;
        }
        if (buffer.isNative()) {
            return buffer;
        }
        MemorySegment copy = read ? in(area, buffer, bytes) : scratch.staging(area, bytes);
        backTo = buffer;
        backFrom = copy;
        backBytes = bytes;
        return copy;
    }

    /** Scratch the call may write and nobody reads. */
    MemorySegment discard(int area, long bytes) {
        return bytes == 0 ? MemorySegment.NULL : scratch.staging(area, bytes);
    }

    /** A native buffer as the library sees it: {@code NULL} for none. */
    static MemorySegment nativeOrNull(MemorySegment buffer) {
        return buffer == null ? MemorySegment.NULL : buffer;
    }

    /** Copies the written buffer back to the heap. */
    void finish() {
        if (backTo != null) {
            MemorySegment.copy(backFrom, 0, backTo, 0, backBytes);
        }
    }
}
