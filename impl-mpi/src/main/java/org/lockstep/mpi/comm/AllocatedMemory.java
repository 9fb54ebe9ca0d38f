package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.mpi.binding.Mpi;

/**
 * The {@code MPI_Alloc_mem} memory one communicator handed out: freed one by one with
 * {@code MPI_Free_mem}, and whatever is left when the communicator closes.
 */
final class AllocatedMemory {
    private final List<MemorySegment> allocations = new ArrayList<>();

    MemorySegment allocate(long byteSize) {
        Scratch scratch = Scratch.get();
        try {
            Mpi.check((int) Mpi.ALLOC_MEM.invokeExact(Math.max(byteSize, 1L), Mpi.ABI.infoNull(), scratch.words), "MPI_Alloc_mem");
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        }
        MemorySegment memory = scratch.words.get(ValueLayout.ADDRESS, 0).reinterpret(byteSize);
        synchronized (allocations) {
            allocations.add(memory);
        }
        return memory;
    }

    void free(MemorySegment segment) {
        boolean known;
        synchronized (allocations) {
            known = allocations.removeIf(m -> m.address() == segment.address() && m.byteSize() == segment.byteSize());
        }
        if (!known) {
            throw new LockstepException(ErrorClass.ARG, "free of memory this communicator did not allocate (or freed already)");
        }
        freeNative(segment);
    }

    /** Frees what is still allocated: the communicator closes. */
    void freeAll() {
        List<MemorySegment> left;
        synchronized (allocations) {
            left = new ArrayList<>(allocations);
            allocations.clear();
        }
        left.forEach(AllocatedMemory::freeNative);
    }

    private static void freeNative(MemorySegment memory) {
        try {
            Mpi.check((int) Mpi.FREE_MEM.invokeExact(memory), "MPI_Free_mem");
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        }
    }
}
