package org.lockstep.api;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A group of ranks that exchange messages in a private context ({@code MPI_Comm}).
 *
 * <p>Buffers are {@link MemorySegment}s, heap or off-heap; counts are element counts of a
 * {@link Datatype}. Array overloads wrap the array as a heap segment. Point-to-point semantics
 * are MPI's (MPI 4.1 chapter 3): messages between one pair of ranks on one communicator do not
 * overtake each other; a receive matches on source and tag, either of which may be a wildcard; a
 * message longer than the receive buffer fills the buffer and completes the receive with
 * {@link ErrorClass#TRUNCATE}.
 *
 * <p>Errors are {@link LockstepException}s with an {@link ErrorClass}; a bad argument is
 * rejected before anything is sent, so the communicator stays usable.
 *
 * <p>A communicator belongs to one rank. Its methods may be called from one thread at a time
 * (MPI's {@code MPI_THREAD_SERIALIZED}).
 */
public interface Communicator extends AutoCloseable {
    /** Wildcard source of a receive or probe ({@code MPI_ANY_SOURCE}). */
    int ANY_SOURCE = -1;
    /** Wildcard tag of a receive or probe ({@code MPI_ANY_TAG}). */
    int ANY_TAG = -1;
    /** The null process: sends to it and receives from it complete at once ({@code MPI_PROC_NULL}). */
    int PROC_NULL = -2;
    /** The largest valid tag ({@code MPI_TAG_UB}). */
    int TAG_UB = Integer.MAX_VALUE;

    /** This rank's number in {@code [0, size())}. */
    int rank();

    /** Number of ranks in the communicator. */
    int size();

    /** Standard-mode send: returns once the buffer may be reused ({@code MPI_Send}). */
    void send(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /** Synchronous send: returns only once the matching receive has started ({@code MPI_Ssend}). */
    void ssend(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /**
     * Blocking receive ({@code MPI_Recv}).
     *
     * @throws TruncationException if the message was longer than {@code count} elements; the
     *         buffer then holds its first {@code count} elements
     */
    Status recv(MemorySegment buffer, long count, Datatype type, int source, int tag);

    /** Non-blocking standard-mode send ({@code MPI_Isend}); the buffer must not change until it completes. */
    Request isend(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /** Non-blocking synchronous send ({@code MPI_Issend}). */
    Request issend(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /** Non-blocking receive ({@code MPI_Irecv}); completing a truncated one throws {@link TruncationException}. */
    Request irecv(MemorySegment buffer, long count, Datatype type, int source, int tag);

    /** Send one message and receive another, without deadlock between the two ({@code MPI_Sendrecv}). */
    default Status sendrecv(MemorySegment sendBuffer, long sendCount, Datatype sendType, int dest, int sendTag,
                            MemorySegment recvBuffer, long recvCount, Datatype recvType, int source, int recvTag) {
        Request receive = irecv(recvBuffer, recvCount, recvType, source, recvTag);
        Request send = isend(sendBuffer, sendCount, sendType, dest, sendTag);
        send.await();
        return receive.await();
    }

    /** Blocks until a message that matches is available, without receiving it ({@code MPI_Probe}). */
    Status probe(int source, int tag);

    /** The status of a matching message if one is available now ({@code MPI_Iprobe}). */
    Optional<Status> iprobe(int source, int tag);

    /**
     * Memory for message buffers ({@code MPI_Alloc_mem}). Providers may place it where it survives
     * a superstep (EM-BSP) or where the device can deliver into it directly; elsewhere it is
     * off-heap memory. Released by {@link #free(MemorySegment)} or when the communicator closes.
     */
    MemorySegment allocate(long byteSize);

    /** Releases memory from {@link #allocate(long)} ({@code MPI_Free_mem}). */
    void free(MemorySegment segment);

    /** Ends this rank's use of the communicator; later calls fail with {@link ErrorClass#COMM}. */
    @Override
    void close();

    // ---- array conveniences ----

    default void send(byte[] data, int dest, int tag) {
        send(MemorySegment.ofArray(data), data.length, Datatype.BYTE, dest, tag);
    }

    default void send(int[] data, int dest, int tag) {
        send(MemorySegment.ofArray(data), data.length, Datatype.INT, dest, tag);
    }

    default void send(long[] data, int dest, int tag) {
        send(MemorySegment.ofArray(data), data.length, Datatype.LONG, dest, tag);
    }

    default void send(double[] data, int dest, int tag) {
        send(MemorySegment.ofArray(data), data.length, Datatype.DOUBLE, dest, tag);
    }

    default Status recv(byte[] data, int source, int tag) {
        return recv(MemorySegment.ofArray(data), data.length, Datatype.BYTE, source, tag);
    }

    default Status recv(int[] data, int source, int tag) {
        return recv(MemorySegment.ofArray(data), data.length, Datatype.INT, source, tag);
    }

    default Status recv(long[] data, int source, int tag) {
        return recv(MemorySegment.ofArray(data), data.length, Datatype.LONG, source, tag);
    }

    default Status recv(double[] data, int source, int tag) {
        return recv(MemorySegment.ofArray(data), data.length, Datatype.DOUBLE, source, tag);
    }

    default Request isend(byte[] data, int dest, int tag) {
        return isend(MemorySegment.ofArray(data), data.length, Datatype.BYTE, dest, tag);
    }

    default Request irecv(byte[] data, int source, int tag) {
        return irecv(MemorySegment.ofArray(data), data.length, Datatype.BYTE, source, tag);
    }

    default Request isend(int[] data, int dest, int tag) {
        return isend(MemorySegment.ofArray(data), data.length, Datatype.INT, dest, tag);
    }

    default Request isend(long[] data, int dest, int tag) {
        return isend(MemorySegment.ofArray(data), data.length, Datatype.LONG, dest, tag);
    }

    default Request isend(double[] data, int dest, int tag) {
        return isend(MemorySegment.ofArray(data), data.length, Datatype.DOUBLE, dest, tag);
    }

    default Request irecv(int[] data, int source, int tag) {
        return irecv(MemorySegment.ofArray(data), data.length, Datatype.INT, source, tag);
    }

    default Request irecv(long[] data, int source, int tag) {
        return irecv(MemorySegment.ofArray(data), data.length, Datatype.LONG, source, tag);
    }

    default Request irecv(double[] data, int source, int tag) {
        return irecv(MemorySegment.ofArray(data), data.length, Datatype.DOUBLE, source, tag);
    }
}
