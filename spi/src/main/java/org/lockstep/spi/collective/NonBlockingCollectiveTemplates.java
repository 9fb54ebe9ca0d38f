package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * The non-blocking collective templates of {@link AbstractCommunicator} ({@code MPI_Ibarrier} …
 * {@code MPI_Iexscan}, with the general typed forms): each is the collective of
 * {@link CollectiveTemplates} started, whose request reaches the error handler and, while a
 * Flight Recorder recording asks for it, records the call up to its completion.
 */
public abstract class NonBlockingCollectiveTemplates extends CollectiveTemplates {
    /** Only the layers of this package extend it. */
    NonBlockingCollectiveTemplates() {
    }

    @Override
    public final Request ibarrier() {
        return barrier(true);
    }

    @Override
    public final Request ibcast(MemorySegment buffer, long count, Datatype type, int root) {
        return bcast(buffer, count, type, root, true);
    }

    @Override
    public final Request igather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return gather(send, count, type, recv, count, type, root, true);
    }

    @Override
    public final Request igatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                  long[] displacements, int root) {
        return gatherv(send, sendCount, type, recv, recvCounts, displacements, type, root, true);
    }

    @Override
    public final Request iscatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return scatter(send, count, type, recv, count, type, root, true);
    }

    @Override
    public final Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                                   MemorySegment recv, long recvCount, int root) {
        return scatterv(send, sendCounts, displacements, type, recv, recvCount, type, root, true);
    }

    @Override
    public final Request iallgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return allgather(send, count, type, recv, count, type, true);
    }

    @Override
    public final Request iallgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                     long[] displacements) {
        return allgatherv(send, sendCount, type, recv, recvCounts, displacements, type, true);
    }

    @Override
    public final Request ialltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return alltoall(send, count, type, recv, count, type, true);
    }

    @Override
    public final Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return alltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements, type, true);
    }

    @Override
    public final Request ialltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        return alltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements,
                recvTypes, true);
    }

    @Override
    public final Request ireduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        return reduce(send, recv, count, type, op, root, true);
    }

    @Override
    public final Request iallreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return allreduce(send, recv, count, type, op, true);
    }

    @Override
    public final Request ireduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        return reduceScatter(send, recv, recvCounts, type, op, true);
    }

    @Override
    public final Request ireduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        return reduceScatterBlock(send, recv, recvCount, type, op, true);
    }

    @Override
    public final Request iscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return scan(send, recv, count, type, op, false, true);
    }

    @Override
    public final Request iexscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return scan(send, recv, count, type, op, true, true);
    }

    @Override
    public final Request igather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                 Datatype recvType, int root) {
        return gather(send, sendCount, sendType, recv, recvCount, recvType, root, true);
    }

    @Override
    public final Request igatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                  long[] displacements, Datatype recvType, int root) {
        return gatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, root, true);
    }

    @Override
    public final Request iscatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                  Datatype recvType, int root) {
        return scatter(send, sendCount, sendType, recv, recvCount, recvType, root, true);
    }

    @Override
    public final Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType,
                                   MemorySegment recv, long recvCount, Datatype recvType, int root) {
        return scatterv(send, sendCounts, displacements, sendType, recv, recvCount, recvType, root, true);
    }

    @Override
    public final Request iallgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                    Datatype recvType) {
        return allgather(send, sendCount, sendType, recv, recvCount, recvType, true);
    }

    @Override
    public final Request iallgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                     long[] recvCounts, long[] displacements, Datatype recvType) {
        return allgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, true);
    }

    @Override
    public final Request ialltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                   Datatype recvType) {
        return alltoall(send, sendCount, sendType, recv, recvCount, recvType, true);
    }

    @Override
    public final Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        return alltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements,
                recvType, true);
    }
}
