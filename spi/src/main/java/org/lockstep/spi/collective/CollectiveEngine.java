package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * The algorithms behind a communicator's collectives: the hook through which a provider replaces
 * any collective with its own (PEMS2's direct-delivery Alltoallv, the mailbox transport's
 * device-native barrier, …) and keeps the defaults for the rest.
 *
 * <p>Every method receives {@code channel}: a communicator with the same group whose
 * point-to-point operations run on a context private to collectives, so collective traffic never
 * matches application messages, even with wildcards. Arguments have been checked by
 * {@link AbstractCommunicator} (ranks, roots, counts, buffer sizes) before an engine sees them.
 * Semantics are those of the same-named {@link Communicator} methods.
 */
public interface CollectiveEngine {
    void barrier(Communicator channel);

    void bcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root);

    void gather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    void gatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                 long[] recvCounts, long[] displacements, int root);

    void scatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    void scatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                  MemorySegment recv, long recvCount, int root);

    void allgather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv);

    void allgatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                    long[] recvCounts, long[] displacements);

    void alltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv);

    void alltoallv(Communicator channel, MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                   MemorySegment recv, long[] recvCounts, long[] recvDisplacements);

    void reduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root);

    void allreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    void reduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op);

    void reduceScatterBlock(Communicator channel, MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op);

    void scan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    void exscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    Request ibarrier(Communicator channel);

    Request ibcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root);

    Request iallreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);
}
