package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.mpi.binding.Mpi;
import org.lockstep.mpi.binding.NativeMemory;

/** Native communicators made from groups: {@code MPI_Comm_group}, {@code MPI_Group_incl}, {@code MPI_Comm_create_group}. */
final class NativeGroups {
    private NativeGroups() {
    }

    /**
     * The handle of the communicator of {@code parent}'s ranks {@code ranks} (in that order), made
     * with {@code MPI_Comm_create_group}: collective over those ranks only; the groups made on the way are freed.
     */
    static long createGroup(MpiCommunicator parent, long parentHandle, int[] ranks, int tag) {
        long handleBytes = Mpi.ABI.handleLayout().byteSize();
        MemorySegment cells = NativeMemory.allocate(2 * handleBytes + 8 + 4L * ranks.length);
        try {
            MemorySegment parentGroup = cells.asSlice(0, handleBytes);
            MemorySegment members = cells.asSlice(handleBytes, handleBytes);
            MemorySegment created = cells.asSlice(2 * handleBytes, 8);
            MemorySegment rankList = cells.asSlice(2 * handleBytes + 8, 4L * ranks.length);
            MemorySegment.copy(ranks, 0, rankList, ValueLayout.JAVA_INT, 0, ranks.length);
            parent.call(() -> (int) Mpi.COMM_GROUP.invokeExact(parentHandle, parentGroup), "MPI_Comm_group");
            try {
                parent.call(() -> (int) Mpi.GROUP_INCL.invokeExact(Mpi.ABI.readHandle(parentGroup, 0), ranks.length, rankList,
                        members), "MPI_Group_incl");
                try {
                    parent.call(() -> (int) Mpi.COMM_CREATE_GROUP.invokeExact(parentHandle, Mpi.ABI.readHandle(members, 0), tag,
                            created), "MPI_Comm_create_group");
                } finally {
                    parent.call(() -> (int) Mpi.GROUP_FREE.invokeExact(members), "MPI_Group_free");
                }
            } finally {
                parent.call(() -> (int) Mpi.GROUP_FREE.invokeExact(parentGroup), "MPI_Group_free");
            }
            return Mpi.ABI.readHandle(created, 0);
        } finally {
            NativeMemory.free(cells);
        }
    }
}
