package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Comparator;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;

/**
 * The argument checks of the collectives (MPI 4.1 chapter 6), made on each rank before anything is
 * sent, so that every provider rejects bad input the same way and the communicator stays usable.
 *
 * <ul>
 *   <li>{@link ErrorClass#ROOT}: a root outside {@code [0, size)};</li>
 *   <li>{@link ErrorClass#TYPE}: a null datatype;</li>
 *   <li>{@link ErrorClass#COUNT}: a negative count, a count whose byte length overflows, a counts
 *       or displacements array that is null or not {@code size} long where it is significant, or
 *       a count that cannot match the one the same call names for this rank's own block;</li>
 *   <li>{@link ErrorClass#OP}: a null operation or one not defined on the datatype;</li>
 *   <li>{@link ErrorClass#BUFFER}: a buffer that is null, freed, too small for what it must hold
 *       at this rank, read-only where it is written, {@link Communicator#IN_PLACE} where MPI does
 *       not allow it, overlapping the other buffer of the call (aliasing), or a displacement that
 *       is negative, reaches outside the buffer, or makes two blocks written overlap.</li>
 * </ul>
 *
 * A buffer is checked only where it is significant: the receive buffer of gather(v) and reduce and
 * the send buffer of scatter(v) only at the root.
 */
public final class CollectiveArguments {
    private CollectiveArguments() {
    }

    // ---------------------------------------------------------------- the collectives

    public static void checkBcast(Communicator comm, MemorySegment buffer, long count, Datatype type, int root) {
        checkRoot(root, comm.size());
        long bytes = byteLength(count, type, "count");
        notInPlace(buffer, "bcast buffer");
        buffer(buffer, bytes, comm.rank() != root, "bcast buffer");
    }

    public static void checkGather(Communicator comm, MemorySegment send, long count, Datatype type, MemorySegment recv,
                                   int root) {
        checkGather(comm, send, count, type, recv, count, type, root);
    }

    /** Gather with its own receive count and type at the root: this rank's block must have as many bytes on both sides. */
    public static void checkGather(Communicator comm, MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                   long recvCount, Datatype recvType, int root) {
        int size = comm.size();
        checkRoot(root, size);
        long sendSpan = send == Communicator.IN_PLACE && comm.rank() == root ? 0 : byteLength(sendCount, sendType, "sendCount");
        boolean isRoot = comm.rank() == root;
        sendBuffer(send, sendSpan, isRoot, "gather send buffer");
        if (isRoot) {
            long recvSpan = total(recvCount, recvType, size, "recvCount");
            notInPlace(recv, "gather receive buffer");
            buffer(recv, recvSpan, true, "gather receive buffer");
            if (send != Communicator.IN_PLACE) {
                sameBytes(sendType.byteLength(sendCount), recvType.byteLength(recvCount), "gather");
                notAliased(send, sendSpan, recv, recvSpan, "gather");
            }
        }
    }

    public static void checkGatherv(Communicator comm, MemorySegment send, long sendCount, Datatype type,
                                    MemorySegment recv, long[] recvCounts, long[] displacements, int root) {
        checkGatherv(comm, send, sendCount, type, recv, recvCounts, displacements, type, root);
    }

    public static void checkGatherv(Communicator comm, MemorySegment send, long sendCount, Datatype sendType,
                                    MemorySegment recv, long[] recvCounts, long[] displacements, Datatype recvType, int root) {
        int size = comm.size();
        checkRoot(root, size);
        boolean isRoot = comm.rank() == root;
        long sendSpan = send == Communicator.IN_PLACE && isRoot ? 0 : byteLength(sendCount, sendType, "sendCount");
        sendBuffer(send, sendSpan, isRoot, "gatherv send buffer");
        if (isRoot) {
            notInPlace(recv, "gatherv receive buffer");
            long extent = blocks(recv, recvCounts, displacements, recvType, size, true, "gatherv receive");
            if (send != Communicator.IN_PLACE) {
                sameBytes(sendType.byteLength(sendCount), recvType.byteLength(recvCounts[root]), "gatherv");
                notAliased(send, sendSpan, recv, extent, "gatherv");
            }
        }
    }

    public static void checkScatter(Communicator comm, MemorySegment send, long count, Datatype type, MemorySegment recv,
                                    int root) {
        checkScatter(comm, send, count, type, recv, count, type, root);
    }

    public static void checkScatter(Communicator comm, MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                    long recvCount, Datatype recvType, int root) {
        int size = comm.size();
        checkRoot(root, size);
        boolean isRoot = comm.rank() == root;
        long recvSpan = recv == Communicator.IN_PLACE && isRoot ? 0 : byteLength(recvCount, recvType, "recvCount");
        receiveBuffer(recv, recvSpan, isRoot, "scatter receive buffer");
        if (isRoot) {
            long sendSpan = total(sendCount, sendType, size, "sendCount");
            notInPlace(send, "scatter send buffer");
            buffer(send, sendSpan, false, "scatter send buffer");
            if (recv != Communicator.IN_PLACE) {
                sameBytes(sendType.byteLength(sendCount), recvType.byteLength(recvCount), "scatter");
                notAliased(send, sendSpan, recv, recvSpan, "scatter");
            }
        }
    }

    public static void checkScatterv(Communicator comm, MemorySegment send, long[] sendCounts, long[] displacements,
                                     Datatype type, MemorySegment recv, long recvCount, int root) {
        checkScatterv(comm, send, sendCounts, displacements, type, recv, recvCount, type, root);
    }

    public static void checkScatterv(Communicator comm, MemorySegment send, long[] sendCounts, long[] displacements,
                                     Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType, int root) {
        int size = comm.size();
        checkRoot(root, size);
        boolean isRoot = comm.rank() == root;
        long recvSpan = recv == Communicator.IN_PLACE && isRoot ? 0 : byteLength(recvCount, recvType, "recvCount");
        long extent = 0;
        if (isRoot) {
            notInPlace(send, "scatterv send buffer");
            extent = blocks(send, sendCounts, displacements, sendType, size, false, "scatterv send");
            if (recv != Communicator.IN_PLACE) {
                sameBytes(sendType.byteLength(sendCounts[root]), recvType.byteLength(recvCount), "scatterv");
            }
        }
        receiveBuffer(recv, recvSpan, isRoot, "scatterv receive buffer");
        if (isRoot && recv != Communicator.IN_PLACE) {
            notAliased(send, extent, recv, recvSpan, "scatterv");
        }
    }

    public static void checkAllgather(Communicator comm, MemorySegment send, long count, Datatype type,
                                      MemorySegment recv) {
        checkAllgather(comm, send, count, type, recv, count, type);
    }

    public static void checkAllgather(Communicator comm, MemorySegment send, long sendCount, Datatype sendType,
                                      MemorySegment recv, long recvCount, Datatype recvType) {
        int size = comm.size();
        long recvSpan = total(recvCount, recvType, size, "recvCount");
        notInPlace(recv, "allgather receive buffer");
        buffer(recv, recvSpan, true, "allgather receive buffer");
        if (send != Communicator.IN_PLACE) {
            long sendSpan = byteLength(sendCount, sendType, "sendCount");
            sameBytes(sendType.byteLength(sendCount), recvType.byteLength(recvCount), "allgather");
            sendBuffer(send, sendSpan, true, "allgather send buffer");
            notAliased(send, sendSpan, recv, recvSpan, "allgather");
        }
    }

    public static void checkAllgatherv(Communicator comm, MemorySegment send, long sendCount, Datatype type,
                                       MemorySegment recv, long[] recvCounts, long[] displacements) {
        checkAllgatherv(comm, send, sendCount, type, recv, recvCounts, displacements, type);
    }

    public static void checkAllgatherv(Communicator comm, MemorySegment send, long sendCount, Datatype sendType,
                                       MemorySegment recv, long[] recvCounts, long[] displacements, Datatype recvType) {
        int size = comm.size();
        notInPlace(recv, "allgatherv receive buffer");
        long extent = blocks(recv, recvCounts, displacements, recvType, size, true, "allgatherv receive");
        if (send != Communicator.IN_PLACE) {
            long sendSpan = byteLength(sendCount, sendType, "sendCount");
            sendBuffer(send, sendSpan, true, "allgatherv send buffer");
            sameBytes(sendType.byteLength(sendCount), recvType.byteLength(recvCounts[comm.rank()]), "allgatherv");
            notAliased(send, sendSpan, recv, extent, "allgatherv");
        }
    }

    public static void checkAlltoall(Communicator comm, MemorySegment send, long count, Datatype type,
                                     MemorySegment recv) {
        checkAlltoall(comm, send, count, type, recv, count, type);
    }

    public static void checkAlltoall(Communicator comm, MemorySegment send, long sendCount, Datatype sendType,
                                     MemorySegment recv, long recvCount, Datatype recvType) {
        int size = comm.size();
        long recvAll = total(recvCount, recvType, size, "recvCount");
        notInPlace(recv, "alltoall receive buffer");
        buffer(recv, recvAll, true, "alltoall receive buffer");
        if (send != Communicator.IN_PLACE) {
            long sendAll = total(sendCount, sendType, size, "sendCount");
            sameBytes(sendType.byteLength(sendCount), recvType.byteLength(recvCount), "alltoall");
            sendBuffer(send, sendAll, true, "alltoall send buffer");
            notAliased(send, sendAll, recv, recvAll, "alltoall");
        }
    }

    public static void checkAlltoallv(Communicator comm, MemorySegment send, long[] sendCounts,
                                      long[] sendDisplacements, Datatype type, MemorySegment recv, long[] recvCounts,
                                      long[] recvDisplacements) {
        checkAlltoallv(comm, send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements, type);
    }

    public static void checkAlltoallv(Communicator comm, MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                                      Datatype sendType, MemorySegment recv, long[] recvCounts, long[] recvDisplacements,
                                      Datatype recvType) {
        int size = comm.size();
        checkType(recvType);
        notInPlace(recv, "alltoallv receive buffer");
        long recvExtent = blocks(recv, recvCounts, recvDisplacements, recvType, size, true, "alltoallv receive");
        if (send != Communicator.IN_PLACE) {
            checkType(sendType);
            long sendExtent = blocks(send, sendCounts, sendDisplacements, sendType, size, false, "alltoallv send");
            sameBytes(sendType.byteLength(sendCounts[comm.rank()]), recvType.byteLength(recvCounts[comm.rank()]), "alltoallv");
            notAliased(send, sendExtent, recv, recvExtent, "alltoallv");
        }
    }

    public static void checkReduce(Communicator comm, MemorySegment send, MemorySegment recv, long count, Datatype type,
                                   Op op, int root) {
        checkRoot(root, comm.size());
        long bytes = byteLength(count, type, "count");
        checkOp(op, type);
        boolean isRoot = comm.rank() == root;
        if (isRoot) {
            notInPlace(recv, "reduce receive buffer");
            buffer(recv, bytes, true, "reduce receive buffer");
        }
        sendBuffer(send, bytes, isRoot, "reduce send buffer");
        if (isRoot) {
            notAliased(send, bytes, recv, bytes, "reduce");
        }
    }

    public static void checkAllreduce(Communicator comm, MemorySegment send, MemorySegment recv, long count,
                                      Datatype type, Op op) {
        long bytes = byteLength(count, type, "count");
        checkOp(op, type);
        notInPlace(recv, "allreduce receive buffer");
        buffer(recv, bytes, true, "allreduce receive buffer");
        sendBuffer(send, bytes, true, "allreduce send buffer");
        notAliased(send, bytes, recv, bytes, "allreduce");
    }

    public static void checkReduceScatter(Communicator comm, MemorySegment send, MemorySegment recv, long[] recvCounts,
                                          Datatype type, Op op) {
        int size = comm.size();
        checkType(type);
        checkCounts(recvCounts, size, "recvCounts");
        checkOp(op, type);
        long totalCount = 0;
        for (long c : recvCounts) {
            totalCount = addCounts(totalCount, c, "recvCounts");
        }
        long totalBytes = byteLength(totalCount, type, "sum of recvCounts");
        reduceScatterBuffers(send, recv, type.span(recvCounts[comm.rank()]), totalBytes, "reduceScatter");
    }

    public static void checkReduceScatterBlock(Communicator comm, MemorySegment send, MemorySegment recv, long recvCount,
                                               Datatype type, Op op) {
        long bytes = byteLength(recvCount, type, "recvCount");
        checkOp(op, type);
        reduceScatterBuffers(send, recv, bytes, total(recvCount, type, comm.size(), "recvCount"), "reduceScatterBlock");
    }

    /** Of scan and exscan. */
    public static void checkScan(Communicator comm, MemorySegment send, MemorySegment recv, long count, Datatype type,
                                 Op op) {
        long bytes = byteLength(count, type, "count");
        checkOp(op, type);
        notInPlace(recv, "scan receive buffer");
        buffer(recv, bytes, true, "scan receive buffer");
        sendBuffer(send, bytes, true, "scan send buffer");
        notAliased(send, bytes, recv, bytes, "scan");
    }

    // ---------------------------------------------------------------- the pieces

    /** A root must be a rank of the communicator. */
    public static void checkRoot(int root, int size) {
        if (root < 0 || root >= size) {
            throw new LockstepException(ErrorClass.ROOT, "root " + root + " is outside [0, " + size + ")");
        }
    }

    /** A datatype usable in communication: not null, committed, not freed. */
    public static void checkType(Datatype type) {
        Datatype.checkUsable(type);
    }

    /** The operation is non-null and defined on {@code type} (which must be non-null). */
    public static void checkOp(Op op, Datatype type) {
        checkType(type);
        if (op == null) {
            throw new LockstepException(ErrorClass.OP, "reduction operation is null");
        }
        if (!op.supports(type)) {
            throw new LockstepException(ErrorClass.OP, op + " is not defined on " + type);
        }
    }

    /** A counts array: {@code size} long, no negative entry. */
    public static void checkCounts(long[] counts, int size, String name) {
        checkLength(counts, size, name);
        for (int i = 0; i < size; i++) {
            if (counts[i] < 0) {
                throw new LockstepException(ErrorClass.COUNT, name + "[" + i + "] = " + counts[i] + " is negative");
            }
        }
    }

    static void checkLength(long[] array, int size, String name) {
        if (array == null) {
            throw new LockstepException(ErrorClass.COUNT, name + " is null");
        }
        if (array.length != size) {
            throw new LockstepException(ErrorClass.COUNT, name + " has " + array.length + " entries, the communicator "
                    + size + " ranks");
        }
    }

    /** The bytes of buffer {@code count} elements reach ({@link Datatype#span}): the byte length for contiguous types. */
    private static long byteLength(long count, Datatype type, String name) {
        checkType(type);
        if (count < 0) {
            throw new LockstepException(ErrorClass.COUNT, name + " " + count + " is negative");
        }
        type.byteLength(count);
        return type.span(count);
    }

    /** The bytes of buffer {@code blocks} consecutive blocks of {@code count} elements reach. */
    private static long total(long count, Datatype type, int blocks, String name) {
        try {
            return type.span(Math.multiplyExact(count, (long) blocks));
        } catch (ArithmeticException e) {
            throw new LockstepException(ErrorClass.COUNT, name + " " + count + " times " + blocks
                    + " ranks overflows a count");
        }
    }

    private static long addCounts(long a, long b, String name) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException e) {
            throw new LockstepException(ErrorClass.COUNT, "the sum of " + name + " overflows");
        }
    }

    /** A buffer must exist and hold {@code bytes} where it is used; returns nothing, throws BUFFER. */
    private static void buffer(MemorySegment buffer, long bytes, boolean written, String what) {
        if (buffer == null) {
            if (bytes == 0) {
                return;
            }
            throw new LockstepException(ErrorClass.BUFFER, what + " is null but must hold " + bytes + " bytes");
        }
        if (!buffer.scope().isAlive()) {
            throw new LockstepException(ErrorClass.BUFFER, what + "'s memory has been freed");
        }
        if (buffer.byteSize() < bytes) {
            throw new LockstepException(ErrorClass.BUFFER, what + " has " + buffer.byteSize() + " bytes but must hold "
                    + bytes);
        }
        if (written && bytes > 0 && buffer.isReadOnly()) {
            throw new LockstepException(ErrorClass.BUFFER, what + " is read-only but is written");
        }
    }

    /** A send buffer that may be {@link Communicator#IN_PLACE} where {@code inPlaceAllowed}. */
    private static void sendBuffer(MemorySegment send, long bytes, boolean inPlaceAllowed, String what) {
        if (send == Communicator.IN_PLACE) {
            if (!inPlaceAllowed) {
                throw new LockstepException(ErrorClass.BUFFER, what + " is IN_PLACE, which only the root may pass");
            }
            return;
        }
        buffer(send, bytes, false, what);
    }

    /** A receive buffer that may be {@link Communicator#IN_PLACE} where {@code inPlaceAllowed}. */
    private static void receiveBuffer(MemorySegment recv, long bytes, boolean inPlaceAllowed, String what) {
        if (recv == Communicator.IN_PLACE) {
            if (!inPlaceAllowed) {
                throw new LockstepException(ErrorClass.BUFFER, what + " is IN_PLACE, which only the root may pass");
            }
            return;
        }
        buffer(recv, bytes, true, what);
    }

    private static void notInPlace(MemorySegment buffer, String what) {
        if (buffer == Communicator.IN_PLACE) {
            throw new LockstepException(ErrorClass.BUFFER, what + " cannot be IN_PLACE");
        }
    }

    /** MPI forbids the send and receive buffers of one call to overlap, unless by IN_PLACE. */
    private static void notAliased(MemorySegment send, long sendBytes, MemorySegment recv, long recvBytes, String what) {
        if (send == null || recv == null || send == Communicator.IN_PLACE || sendBytes == 0 || recvBytes == 0) {
            return;
        }
        MemorySegment a = send.asSlice(0, sendBytes);
        MemorySegment b = recv.asSlice(0, recvBytes);
        if (a.asOverlappingSlice(b).isPresent()) {
            throw new LockstepException(ErrorClass.BUFFER, what + ": send and receive buffers overlap"
                    + " (pass IN_PLACE to reduce in place)");
        }
    }

    /** A rank's own block: as many bytes sent as received (the type signatures must match). */
    private static void sameBytes(long sent, long received, String what) {
        if (sent != received) {
            throw new LockstepException(ErrorClass.COUNT, what + ": this rank's own block is " + sent + " bytes sent but "
                    + received + " bytes received (the counts and datatypes must describe the same data)");
        }
    }

    /**
     * Blocks given by counts and displacements (in elements) in {@code buffer}: arrays {@code size}
     * long, counts non-negative, displacements non-negative, every block inside the buffer and, for
     * a buffer that is written, no two non-empty blocks overlapping. Returns the bytes the blocks span.
     */
    static long blocks(MemorySegment buffer, long[] counts, long[] displacements, Datatype type, int size,
                               boolean written, String what) {
        checkType(type);
        checkCounts(counts, size, what + " counts");
        checkLength(displacements, size, what + " displacements");
        long elementExtent = type.extent();
        long extent = 0;
        for (int i = 0; i < size; i++) {
            if (displacements[i] < 0) {
                throw new LockstepException(ErrorClass.BUFFER, what + " displacement [" + i + "] = " + displacements[i]
                        + " is negative");
            }
            long end;
            try {
                end = counts[i] == 0 ? 0 : Math.addExact(Math.multiplyExact(displacements[i], elementExtent), type.span(counts[i]));
            } catch (ArithmeticException e) {
                throw new LockstepException(ErrorClass.BUFFER, what + " block " + i + " at displacement "
                        + displacements[i] + " overflows a byte offset");
            }
            if (counts[i] > 0) {
                extent = Math.max(extent, end);
            }
        }
        buffer(buffer, extent, written, what + " buffer");
        if (written) {
            Integer[] order = new Integer[size];
            for (int i = 0; i < size; i++) {
                order[i] = i;
            }
            Arrays.sort(order, Comparator.comparingLong(i -> displacements[i]));
            long reached = 0;
            int previous = -1;
            for (int i : order) {
                if (counts[i] == 0) {
                    continue;
                }
                if (previous >= 0 && displacements[i] < reached) {
                    throw new LockstepException(ErrorClass.BUFFER, what + " blocks " + previous + " and " + i
                            + " overlap (displacements " + displacements[previous] + " and " + displacements[i] + ")");
                }
                reached = displacements[i] + counts[i];
                previous = i;
            }
        }
        return extent;
    }

    private static void reduceScatterBuffers(MemorySegment send, MemorySegment recv, long ownBytes, long totalBytes,
                                             String what) {
        notInPlace(recv, what + " receive buffer");
        if (send == Communicator.IN_PLACE) {
            buffer(recv, totalBytes, true, what + " receive buffer (IN_PLACE: it holds the input)");
            return;
        }
        buffer(recv, ownBytes, true, what + " receive buffer");
        buffer(send, totalBytes, false, what + " send buffer");
        notAliased(send, totalBytes, recv, ownBytes, what);
    }
}
