package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.mpi.binding.Mpi;
import org.lockstep.mpi.binding.NativeMemory;

/**
 * The buffers of one non-blocking collective as the library sees them, for the life of its
 * request (MPI may read and write them until it completes): native memory as it is,
 * {@link Communicator#IN_PLACE} as {@code MPI_IN_PLACE}, heap buffers through native copies made
 * here (filled where the call reads them, copied back on completion where it writes them), and
 * the {@code int} arrays of counts and displacements, which MPI may also read until completion.
 * What is made here is freed with the request ({@link MpiRequest}), or by {@link #release} if the
 * call never starts.
 */
final class RequestStaging {
    private final List<MpiRequest.Staged> staged = new ArrayList<>(4);

    /** A buffer the call reads. */
    MemorySegment in(MemorySegment buffer, long bytes) {
        if (buffer == Communicator.IN_PLACE) {
            return Mpi.ABI.inPlace();
        }
        if (buffer == null || buffer.isNative() || bytes == 0) {
            return asGiven(buffer);
        }
        return copy(buffer, bytes);
    }

    /** A buffer the call writes (and, with {@code read}, reads first: in place). */
    MemorySegment out(MemorySegment buffer, long bytes, boolean read) {
        if (buffer == null || buffer.isNative() || bytes == 0) {
            return asGiven(buffer);
        }
        MemorySegment copy = NativeMemory.allocate(bytes);
        if (read) {
            MemorySegment.copy(buffer, 0, copy, 0, bytes);
        }
        staged.add(new MpiRequest.Staged(copy, buffer, bytes));
        return copy;
    }

    /** A native copy of {@code bytes} of {@code buffer}, heap or native, that nothing copies back. */
    MemorySegment copy(MemorySegment buffer, long bytes) {
        MemorySegment copy = NativeMemory.allocate(bytes);
        MemorySegment.copy(buffer, 0, copy, 0, bytes);
        staged.add(new MpiRequest.Staged(copy, null, 0));
        return copy;
    }

    /** Memory the call may write and nobody reads. */
    MemorySegment scratch(long bytes) {
        if (bytes == 0) {
            return MemorySegment.NULL;
        }
        MemorySegment memory = NativeMemory.allocate(bytes);
        staged.add(new MpiRequest.Staged(memory, null, 0));
        return memory;
    }

    /** {@code values} as MPI's {@code int}s (each checked by {@link NativeCollectives#count}). */
    MemorySegment ints(long[] values) {
        int[] checked = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            checked[i] = NativeCollectives.count(values[i]);
        }
        MemorySegment memory = NativeMemory.allocate(Math.max(1, (long) values.length * Integer.BYTES));
        MemorySegment.copy(checked, 0, memory, ValueLayout.JAVA_INT, 0, checked.length);
        staged.add(new MpiRequest.Staged(memory, null, 0));
        return memory;
    }

    MpiRequest.Staged[] all() {
        return staged.toArray(MpiRequest.Staged[]::new);
    }

    /** Frees what was made, for a call that did not start. */
    void release() {
        for (MpiRequest.Staged s : staged) {
            NativeMemory.free(s.copy());
        }
        staged.clear();
    }

    private static MemorySegment asGiven(MemorySegment buffer) {
        return buffer == null || !buffer.isNative() ? MemorySegment.NULL : buffer;
    }
}
