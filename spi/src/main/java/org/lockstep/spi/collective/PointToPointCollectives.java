package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * The default collective algorithms, built on point-to-point. PLACEHOLDER while the algorithms are
 * written (issue 5): every collective fails with {@link ErrorClass#UNSUPPORTED_OPERATION}.
 */
public class PointToPointCollectives implements CollectiveEngine {
    public static final PointToPointCollectives INSTANCE = new PointToPointCollectives();

    private static LockstepException notYet(String what) {
        return new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, what + " is not implemented yet");
    }

    @Override
    public void barrier(Communicator channel) {
        throw notYet("barrier");
    }

    @Override
    public void bcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        throw notYet("bcast");
    }

    @Override
    public void gather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        throw notYet("gather");
    }

    @Override
    public void gatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements, int root) {
        throw notYet("gatherv");
    }

    @Override
    public void scatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        throw notYet("scatter");
    }

    @Override
    public void scatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv, long recvCount, int root) {
        throw notYet("scatterv");
    }

    @Override
    public void allgather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        throw notYet("allgather");
    }

    @Override
    public void allgatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements) {
        throw notYet("allgatherv");
    }

    @Override
    public void alltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        throw notYet("alltoall");
    }

    @Override
    public void alltoallv(Communicator channel, MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        throw notYet("alltoallv");
    }

    @Override
    public void reduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        throw notYet("reduce");
    }

    @Override
    public void allreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        throw notYet("allreduce");
    }

    @Override
    public void reduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        throw notYet("reduceScatter");
    }

    @Override
    public void reduceScatterBlock(Communicator channel, MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        throw notYet("reduceScatterBlock");
    }

    @Override
    public void scan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        throw notYet("scan");
    }

    @Override
    public void exscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        throw notYet("exscan");
    }

    @Override
    public Request ibarrier(Communicator channel) {
        throw notYet("ibarrier");
    }

    @Override
    public Request ibcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        throw notYet("ibcast");
    }

    @Override
    public Request iallreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        throw notYet("iallreduce");
    }
}
