package org.lockstep.api;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * The point-to-point calls that a {@link Communicator} and an {@link Intercommunicator} share
 * (MPI 4.1 chapter 3): destinations and sources are ranks of the communicator's group, or of the
 * remote group on an intercommunicator, or {@link Communicator#PROC_NULL}; a receive or probe may
 * name {@link Communicator#ANY_SOURCE} and {@link Communicator#ANY_TAG}. Counts are element
 * counts of the datatype; statuses name ranks as the destinations do.
 */
public interface PointToPoint {
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
}
