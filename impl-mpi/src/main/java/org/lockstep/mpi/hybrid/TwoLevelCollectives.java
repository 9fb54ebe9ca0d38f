package org.lockstep.mpi.hybrid;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.mpi.comm.MpiCommunicator;
import org.lockstep.spi.collective.CollectiveEngine;

/**
 * The collectives of a hybrid communicator. Barrier, bcast and allreduce are two-level: within
 * each host over the local transport (the device-native collectives of the mailbox transport),
 * among the hosts' leaders over MPI, then within each host again. An allreduce whose operation is
 * not commutative stays two-level only when every host holds consecutive ranks, so that folding
 * within hosts and then across them keeps rank order; otherwise, and for every other collective,
 * the whole group runs MPI's own algorithm (MPI keeps its shared-memory paths within a host).
 */
final class TwoLevelCollectives implements CollectiveEngine {
    private final MpiCommunicator mpi;
    private final Communicator local;
    /** The hosts' leaders (local rank 0 of each host), in host order; null on the other members. */
    private final MpiCommunicator leaders;
    private final HostLayout layout;

    TwoLevelCollectives(MpiCommunicator mpi, Communicator local, MpiCommunicator leaders, HostLayout layout) {
        this.mpi = mpi;
        this.local = local;
        this.leaders = leaders;
        this.layout = layout;
    }

    void close() {
        if (leaders != null) {
            leaders.close();
        }
    }

    private boolean singleLevel() {
        return layout.hostCount() == 1 || local.size() == mpi.size() || layout.hostCount() == mpi.size();
    }

    @Override
    public void barrier(Communicator channel) {
        if (singleLevel()) {
            if (layout.hostCount() == 1) {
                local.barrier();
            } else {
                mpi.barrier();
            }
            return;
        }
        local.barrier();
        if (leaders != null) {
            leaders.barrier();
        }
        local.barrier();
    }

    @Override
    public void bcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        if (layout.hostCount() == 1) {
            local.bcast(buffer, count, type, layout.localRankOf()[root]);
            return;
        }
        if (singleLevel()) {
            mpi.bcast(buffer, count, type, root);
            return;
        }
        int rootHost = layout.hostOf()[root];
        if (layout.myHost() == rootHost) {
            local.bcast(buffer, count, type, layout.localRankOf()[root]);
            if (leaders != null) {
                leaders.bcast(buffer, count, type, rootHost);
            }
        } else {
            if (leaders != null) {
                leaders.bcast(buffer, count, type, rootHost);
            }
            local.bcast(buffer, count, type, 0);
        }
    }

    @Override
    public void allreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        if (layout.hostCount() == 1) {
            local.allreduce(send, recv, count, type, op);
            return;
        }
        if (singleLevel() || !op.isCommutative() && !layout.contiguous()) {
            mpi.allreduce(send, recv, count, type, op);
            return;
        }
        local.allreduce(send, recv, count, type, op);
        if (leaders != null) {
            leaders.allreduce(Communicator.IN_PLACE, recv, count, type, op);
        }
        local.bcast(recv, count, type, 0);
    }

    // ---------------------------------------------------------------- MPI's own, over the whole group

    @Override
    public void gather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        mpi.gather(send, count, type, recv, root);
    }

    @Override
    public void gatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                        long[] recvCounts, long[] displacements, int root) {
        mpi.gatherv(send, sendCount, type, recv, recvCounts, displacements, root);
    }

    @Override
    public void scatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        mpi.scatter(send, count, type, recv, root);
    }

    @Override
    public void scatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                         MemorySegment recv, long recvCount, int root) {
        mpi.scatterv(send, sendCounts, displacements, type, recv, recvCount, root);
    }

    @Override
    public void allgather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        mpi.allgather(send, count, type, recv);
    }

    @Override
    public void allgatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                           long[] recvCounts, long[] displacements) {
        mpi.allgatherv(send, sendCount, type, recv, recvCounts, displacements);
    }

    @Override
    public void alltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        mpi.alltoall(send, count, type, recv);
    }

    @Override
    public void alltoallv(Communicator channel, MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                          MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        mpi.alltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements);
    }

    @Override
    public void reduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        mpi.reduce(send, recv, count, type, op, root);
    }

    @Override
    public void reduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        mpi.reduceScatter(send, recv, recvCounts, type, op);
    }

    @Override
    public void reduceScatterBlock(Communicator channel, MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        mpi.reduceScatterBlock(send, recv, recvCount, type, op);
    }

    @Override
    public void scan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        mpi.scan(send, recv, count, type, op);
    }

    @Override
    public void exscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        mpi.exscan(send, recv, count, type, op);
    }

    @Override
    public Request ibarrier(Communicator channel) {
        return mpi.ibarrier();
    }

    @Override
    public Request ibcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        return mpi.ibcast(buffer, count, type, root);
    }

    @Override
    public Request iallreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return mpi.iallreduce(send, recv, count, type, op);
    }

    // ---------------------------------------------------------------- non-blocking: MPI's own, over the whole group

    @Override
    public Request igather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return mpi.igather(send, count, type, recv, root);
    }

    @Override
    public Request igatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                            long[] recvCounts, long[] displacements, int root) {
        return mpi.igatherv(send, sendCount, type, recv, recvCounts, displacements, root);
    }

    @Override
    public Request iscatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return mpi.iscatter(send, count, type, recv, root);
    }

    @Override
    public Request iscatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                             MemorySegment recv, long recvCount, int root) {
        return mpi.iscatterv(send, sendCounts, displacements, type, recv, recvCount, root);
    }

    @Override
    public Request iallgather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return mpi.iallgather(send, count, type, recv);
    }

    @Override
    public Request iallgatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                               long[] recvCounts, long[] displacements) {
        return mpi.iallgatherv(send, sendCount, type, recv, recvCounts, displacements);
    }

    @Override
    public Request ialltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return mpi.ialltoall(send, count, type, recv);
    }

    @Override
    public Request ialltoallv(Communicator channel, MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                              Datatype type, MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return mpi.ialltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements);
    }

    @Override
    public Request ireduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        return mpi.ireduce(send, recv, count, type, op, root);
    }

    @Override
    public Request ireduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type,
                                  Op op) {
        return mpi.ireduceScatter(send, recv, recvCounts, type, op);
    }

    @Override
    public Request ireduceScatterBlock(Communicator channel, MemorySegment send, MemorySegment recv, long recvCount, Datatype type,
                                       Op op) {
        return mpi.ireduceScatterBlock(send, recv, recvCount, type, op);
    }

    @Override
    public Request iscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return mpi.iscan(send, recv, count, type, op);
    }

    @Override
    public Request iexscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return mpi.iexscan(send, recv, count, type, op);
    }
}
