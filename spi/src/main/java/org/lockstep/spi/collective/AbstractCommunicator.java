package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.spi.events.CollectiveEvent;
import org.lockstep.spi.events.CollectiveRecording;

/**
 * Base class of a provider's communicators: the collectives of {@link Communicator}, checked here
 * once for every provider and then handed to the provider's {@link CollectiveEngine} (by default
 * {@link PointToPointCollectives}) over the communicator's private collective channel. Each
 * blocking collective is recorded as a {@link CollectiveEvent} when a Flight Recorder recording asks
 * for it.
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
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().barrier(collectiveChannel());
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "barrier", this, 0);
            }
        }
    }

    @Override
    public void bcast(MemorySegment buffer, long count, Datatype type, int root) {
        CollectiveArguments.checkBcast(this, buffer, count, type, root);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().bcast(collectiveChannel(), buffer, count, type, root);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "bcast", this, type.byteLength(count));
            }
        }
    }

    @Override
    public void gather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        CollectiveArguments.checkGather(this, send, count, type, recv, root);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().gather(collectiveChannel(), send, count, type, recv, root);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "gather", this, type.byteLength(count));
            }
        }
    }

    @Override
    public void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                        long[] displacements, int root) {
        CollectiveArguments.checkGatherv(this, send, sendCount, type, recv, recvCounts, displacements, root);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().gatherv(collectiveChannel(), send, sendCount, type, recv, recvCounts, displacements, root);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "gatherv", this, type.byteLength(sendCount));
            }
        }
    }

    @Override
    public void scatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        CollectiveArguments.checkScatter(this, send, count, type, recv, root);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().scatter(collectiveChannel(), send, count, type, recv, root);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "scatter", this, type.byteLength(count));
            }
        }
    }

    @Override
    public void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv,
                         long recvCount, int root) {
        CollectiveArguments.checkScatterv(this, send, sendCounts, displacements, type, recv, recvCount, root);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().scatterv(collectiveChannel(), send, sendCounts, displacements, type, recv, recvCount, root);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "scatterv", this, type.byteLength(recvCount));
            }
        }
    }

    @Override
    public void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        CollectiveArguments.checkAllgather(this, send, count, type, recv);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().allgather(collectiveChannel(), send, count, type, recv);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "allgather", this, type.byteLength(count));
            }
        }
    }

    @Override
    public void allgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                           long[] displacements) {
        CollectiveArguments.checkAllgatherv(this, send, sendCount, type, recv, recvCounts, displacements);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().allgatherv(collectiveChannel(), send, sendCount, type, recv, recvCounts, displacements);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "allgatherv", this, type.byteLength(sendCount));
            }
        }
    }

    @Override
    public void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        CollectiveArguments.checkAlltoall(this, send, count, type, recv);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().alltoall(collectiveChannel(), send, count, type, recv);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "alltoall", this, type.byteLength(count) * size());
            }
        }
    }

    @Override
    public void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv,
                          long[] recvCounts, long[] recvDisplacements) {
        CollectiveArguments.checkAlltoallv(this, send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().alltoallv(collectiveChannel(), send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "alltoallv", this, type.byteLength(sum(recvCounts)));
            }
        }
    }

    @Override
    public void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        CollectiveArguments.checkReduce(this, send, recv, count, type, op, root);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().reduce(collectiveChannel(), send, recv, count, type, op, root);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "reduce", this, type.byteLength(count));
            }
        }
    }

    @Override
    public void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        CollectiveArguments.checkAllreduce(this, send, recv, count, type, op);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().allreduce(collectiveChannel(), send, recv, count, type, op);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "allreduce", this, type.byteLength(count));
            }
        }
    }

    @Override
    public void reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        CollectiveArguments.checkReduceScatter(this, send, recv, recvCounts, type, op);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().reduceScatter(collectiveChannel(), send, recv, recvCounts, type, op);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "reduce_scatter", this, type.byteLength(sum(recvCounts)));
            }
        }
    }

    @Override
    public void reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        CollectiveArguments.checkReduceScatterBlock(this, send, recv, recvCount, type, op);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().reduceScatterBlock(collectiveChannel(), send, recv, recvCount, type, op);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "reduce_scatter_block", this, type.byteLength(recvCount) * size());
            }
        }
    }

    @Override
    public void scan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        CollectiveArguments.checkScan(this, send, recv, count, type, op);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().scan(collectiveChannel(), send, recv, count, type, op);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "scan", this, type.byteLength(count));
            }
        }
    }

    @Override
    public void exscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        CollectiveArguments.checkScan(this, send, recv, count, type, op);
        CollectiveEvent event = CollectiveRecording.begin();
        try {
            collectiveEngine().exscan(collectiveChannel(), send, recv, count, type, op);
        } finally {
            if (event != null) {
                CollectiveRecording.end(event, "exscan", this, type.byteLength(count));
            }
        }
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

    private static long sum(long[] counts) {
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        return total;
    }
}
