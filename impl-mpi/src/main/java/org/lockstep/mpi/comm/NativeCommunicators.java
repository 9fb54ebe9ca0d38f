package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.function.LongConsumer;

import org.lockstep.mpi.binding.Mpi;
import org.lockstep.mpi.binding.NativeMemory;

/**
 * The native calls that make and free communicators ({@code MPI_Comm_dup}, {@code MPI_Comm_split},
 * {@code MPI_Comm_split_type}, {@code MPI_Comm_create_group}, {@code MPI_Comm_free}). Each is
 * made through {@code parent}'s {@link MpiCommunicator#call} (thread guard, error check) on the
 * native handle {@code parentHandle}, and returns the new {@code MPI_Comm}'s handle.
 */
final class NativeCommunicators {
    private NativeCommunicators() {
    }

    static long dup(MpiCommunicator parent, long parentHandle) {
        Scratch scratch = Scratch.get();
        parent.call(() -> (int) Mpi.COMM_DUP.invokeExact(parentHandle, scratch.words), "MPI_Comm_dup");
        return Mpi.ABI.readHandle(scratch.words, 0);
    }

    /** {@code MPI_Comm_split}; {@code MPI_COMM_NULL}'s handle for a rank whose color is {@code MPI_UNDEFINED}. */
    static long split(MpiCommunicator parent, long parentHandle, int nativeColor, int key) {
        Scratch scratch = Scratch.get();
        parent.call(() -> (int) Mpi.COMM_SPLIT.invokeExact(parentHandle, nativeColor, key, scratch.words), "MPI_Comm_split");
        return Mpi.ABI.readHandle(scratch.words, 0);
    }

    /** {@code MPI_Comm_split_type} with {@code MPI_COMM_TYPE_SHARED}: the ranks that share memory with this one. */
    static long splitShared(MpiCommunicator parent, long parentHandle, int key) {
        Scratch scratch = Scratch.get();
        parent.call(() -> (int) Mpi.COMM_SPLIT_TYPE.invokeExact(parentHandle, Mpi.ABI.commTypeShared(), key, Mpi.ABI.infoNull(),
                scratch.words), "MPI_Comm_split_type");
        return Mpi.ABI.readHandle(scratch.words, 0);
    }

    /** {@code MPI_Comm_free} of {@code handle}, a communicator {@code owner} made. */
    static void free(MpiCommunicator owner, long handle) {
        freeHandle(owner, handle, Mpi.COMM_FREE, "MPI_Comm_free");
    }

    /** A freeing call ({@code MPI_Comm_free}, {@code MPI_Win_free}: {@code free}, taking the handle's address) of {@code handle}. */
    static void freeHandle(MpiCommunicator owner, long handle, MethodHandle free, String name) {
        MemorySegment cell = NativeMemory.allocate(8);
        try {
            Mpi.ABI.writeHandle(cell, 0, handle);
            owner.call(() -> (int) free.invokeExact(cell), name);
        } finally {
            NativeMemory.free(cell);
        }
    }

    /**
     * The handle of the communicator of {@code parent}'s ranks {@code ranks} (in that order), made
     * with {@code MPI_Comm_create_group}: collective over those ranks only.
     */
    static long createGroup(MpiCommunicator parent, long parentHandle, int[] ranks, int tag) {
        MemorySegment created = NativeMemory.allocate(8);
        try {
            withGroup(parent, parentHandle, ranks, group -> parent.call(() -> (int) Mpi.COMM_CREATE_GROUP.invokeExact(parentHandle,
                    group, tag, created), "MPI_Comm_create_group"));
            return Mpi.ABI.readHandle(created, 0);
        } finally {
            NativeMemory.free(created);
        }
    }

    /**
     * Runs {@code use} with the {@code MPI_Group} of {@code parent}'s ranks {@code ranks} (in that
     * order); the groups made on the way are freed after it.
     */
    static void withGroup(MpiCommunicator parent, long parentHandle, int[] ranks, LongConsumer use) {
        long handleBytes = Mpi.ABI.handleLayout().byteSize();
        MemorySegment cells = NativeMemory.allocate(2 * handleBytes + 4L * Math.max(ranks.length, 1));
        try {
            MemorySegment parentGroup = cells.asSlice(0, handleBytes);
            MemorySegment members = cells.asSlice(handleBytes, handleBytes);
            MemorySegment rankList = cells.asSlice(2 * handleBytes, 4L * ranks.length);
            MemorySegment.copy(ranks, 0, rankList, ValueLayout.JAVA_INT, 0, ranks.length);
            parent.call(() -> (int) Mpi.COMM_GROUP.invokeExact(parentHandle, parentGroup), "MPI_Comm_group");
            try {
                parent.call(() -> (int) Mpi.GROUP_INCL.invokeExact(Mpi.ABI.readHandle(parentGroup, 0), ranks.length, rankList,
                        members), "MPI_Group_incl");
                try {
                    use.accept(Mpi.ABI.readHandle(members, 0));
                } finally {
                    parent.call(() -> (int) Mpi.GROUP_FREE.invokeExact(members), "MPI_Group_free");
                }
            } finally {
                parent.call(() -> (int) Mpi.GROUP_FREE.invokeExact(parentGroup), "MPI_Group_free");
            }
        } finally {
            NativeMemory.free(cells);
        }
    }
}
