package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * The non-blocking collective templates of {@link AbstractCommunicator} ({@code MPI_Ibarrier} …
 * {@code MPI_Iexscan}, with the general typed forms): each goes through {@link CollectiveCalls}
 * to the provider's {@link CollectiveEngine}, and its request reaches the error handler.
 */
public abstract class NonBlockingCollectiveTemplates extends CollectiveTemplates {
    /** Only the layers of this package extend it. */
    NonBlockingCollectiveTemplates() {
    }

    @Override
    public final Request ibarrier() {
        return started(() -> collectives().barrier(true));
    }

    @Override
    public final Request ibcast(MemorySegment buffer, long count, Datatype type, int root) {
        return started(() -> collectives().bcast(buffer, count, type, root, true));
    }

    @Override
    public final Request igather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return started(() -> collectives().gather(send, count, type, recv, count, type, root, true));
    }

    @Override
    public final Request igatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                  long[] displacements, int root) {
        return started(() -> collectives().gatherv(send, sendCount, type, recv, recvCounts, displacements, type, root, true));
    }

    @Override
    public final Request iscatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return started(() -> collectives().scatter(send, count, type, recv, count, type, root, true));
    }

    @Override
    public final Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                                   MemorySegment recv, long recvCount, int root) {
        return started(() -> collectives().scatterv(send, sendCounts, displacements, type, recv, recvCount, type, root, true));
    }

    @Override
    public final Request iallgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return started(() -> collectives().allgather(send, count, type, recv, count, type, true));
    }

    @Override
    public final Request iallgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                     long[] displacements) {
        return started(() -> collectives().allgatherv(send, sendCount, type, recv, recvCounts, displacements, type, true));
    }

    @Override
    public final Request ialltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return started(() -> collectives().alltoall(send, count, type, recv, count, type, true));
    }

    @Override
    public final Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return started(() -> collectives().alltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements, type, true));
    }

    @Override
    public final Request ialltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        return started(() -> collectives().alltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements,
                recvTypes, true));
    }

    @Override
    public final Request ireduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        return started(() -> collectives().reduce(send, recv, count, type, op, root, true));
    }

    @Override
    public final Request iallreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return started(() -> collectives().allreduce(send, recv, count, type, op, true));
    }

    @Override
    public final Request ireduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        return started(() -> collectives().reduceScatter(send, recv, recvCounts, type, op, true));
    }

    @Override
    public final Request ireduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        return started(() -> collectives().reduceScatterBlock(send, recv, recvCount, type, op, true));
    }

    @Override
    public final Request iscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return started(() -> collectives().scan(send, recv, count, type, op, false, true));
    }

    @Override
    public final Request iexscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return started(() -> collectives().scan(send, recv, count, type, op, true, true));
    }

    @Override
    public final Request igather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                 Datatype recvType, int root) {
        return started(() -> collectives().gather(send, sendCount, sendType, recv, recvCount, recvType, root, true));
    }

    @Override
    public final Request igatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                  long[] displacements, Datatype recvType, int root) {
        return started(() -> collectives().gatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, root, true));
    }

    @Override
    public final Request iscatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                  Datatype recvType, int root) {
        return started(() -> collectives().scatter(send, sendCount, sendType, recv, recvCount, recvType, root, true));
    }

    @Override
    public final Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType,
                                   MemorySegment recv, long recvCount, Datatype recvType, int root) {
        return started(() -> collectives().scatterv(send, sendCounts, displacements, sendType, recv, recvCount, recvType, root, true));
    }

    @Override
    public final Request iallgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                    Datatype recvType) {
        return started(() -> collectives().allgather(send, sendCount, sendType, recv, recvCount, recvType, true));
    }

    @Override
    public final Request iallgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                     long[] recvCounts, long[] displacements, Datatype recvType) {
        return started(() -> collectives().allgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, true));
    }

    @Override
    public final Request ialltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                   Datatype recvType) {
        return started(() -> collectives().alltoall(send, sendCount, sendType, recv, recvCount, recvType, true));
    }

    @Override
    public final Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        return started(() -> collectives().alltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements,
                recvType, true));
    }
}
