package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * Base class of a provider's communicators: the collectives of {@link Communicator}, checked here
 * once for every provider and then handed to the provider's {@link CollectiveEngine} (by default
 * {@link PointToPointCollectives}) over the communicator's private collective channel.
 */
public abstract class AbstractCommunicator implements Communicator {

    /**
     * A communicator with this one's group whose point-to-point operations use a context private
     * to collectives. It must be the same object for the life of this communicator: the default
     * algorithms count the collectives started on it, and that count is part of their tags.
     */
    protected abstract Communicator collectiveChannel();

    /** The algorithms this communicator's collectives run; providers override to replace some or all. */
    protected CollectiveEngine collectiveEngine() {
        return PointToPointCollectives.INSTANCE;
    }

    @Override
    public void barrier() {
        collectiveEngine().barrier(collectiveChannel());
    }

    @Override
    public void bcast(MemorySegment buffer, long count, Datatype type, int root) {
        CollectiveArguments.checkBcast(this, buffer, count, type, root);
        collectiveEngine().bcast(collectiveChannel(), buffer, count, type, root);
    }

    @Override
    public void gather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        CollectiveArguments.checkGather(this, send, count, type, recv, root);
        collectiveEngine().gather(collectiveChannel(), send, count, type, recv, root);
    }

    @Override
    public void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                        long[] displacements, int root) {
        CollectiveArguments.checkGatherv(this, send, sendCount, type, recv, recvCounts, displacements, root);
        collectiveEngine().gatherv(collectiveChannel(), send, sendCount, type, recv, recvCounts, displacements, root);
    }

    @Override
    public void scatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        CollectiveArguments.checkScatter(this, send, count, type, recv, root);
        collectiveEngine().scatter(collectiveChannel(), send, count, type, recv, root);
    }

    @Override
    public void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv,
                         long recvCount, int root) {
        CollectiveArguments.checkScatterv(this, send, sendCounts, displacements, type, recv, recvCount, root);
        collectiveEngine().scatterv(collectiveChannel(), send, sendCounts, displacements, type, recv, recvCount, root);
    }

    @Override
    public void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        CollectiveArguments.checkAllgather(this, send, count, type, recv);
        collectiveEngine().allgather(collectiveChannel(), send, count, type, recv);
    }

    @Override
    public void allgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                           long[] displacements) {
        CollectiveArguments.checkAllgatherv(this, send, sendCount, type, recv, recvCounts, displacements);
        collectiveEngine().allgatherv(collectiveChannel(), send, sendCount, type, recv, recvCounts, displacements);
    }

    @Override
    public void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        CollectiveArguments.checkAlltoall(this, send, count, type, recv);
        collectiveEngine().alltoall(collectiveChannel(), send, count, type, recv);
    }

    @Override
    public void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv,
                          long[] recvCounts, long[] recvDisplacements) {
        CollectiveArguments.checkAlltoallv(this, send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements);
        collectiveEngine().alltoallv(collectiveChannel(), send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements);
    }

    @Override
    public void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        CollectiveArguments.checkReduce(this, send, recv, count, type, op, root);
        collectiveEngine().reduce(collectiveChannel(), send, recv, count, type, op, root);
    }

    @Override
    public void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        CollectiveArguments.checkAllreduce(this, send, recv, count, type, op);
        collectiveEngine().allreduce(collectiveChannel(), send, recv, count, type, op);
    }

    @Override
    public void reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        CollectiveArguments.checkReduceScatter(this, send, recv, recvCounts, type, op);
        collectiveEngine().reduceScatter(collectiveChannel(), send, recv, recvCounts, type, op);
    }

    @Override
    public void reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        CollectiveArguments.checkReduceScatterBlock(this, send, recv, recvCount, type, op);
        collectiveEngine().reduceScatterBlock(collectiveChannel(), send, recv, recvCount, type, op);
    }

    @Override
    public void scan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        CollectiveArguments.checkScan(this, send, recv, count, type, op);
        collectiveEngine().scan(collectiveChannel(), send, recv, count, type, op);
    }

    @Override
    public void exscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        CollectiveArguments.checkScan(this, send, recv, count, type, op);
        collectiveEngine().exscan(collectiveChannel(), send, recv, count, type, op);
    }

    @Override
    public Request ibarrier() {
        return collectiveEngine().ibarrier(collectiveChannel());
    }

    @Override
    public Request ibcast(MemorySegment buffer, long count, Datatype type, int root) {
        CollectiveArguments.checkBcast(this, buffer, count, type, root);
        return collectiveEngine().ibcast(collectiveChannel(), buffer, count, type, root);
    }

    @Override
    public Request iallreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        CollectiveArguments.checkAllreduce(this, send, recv, count, type, op);
        return collectiveEngine().iallreduce(collectiveChannel(), send, recv, count, type, op);
    }
}
