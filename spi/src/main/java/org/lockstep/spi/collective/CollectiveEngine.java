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

    /**
     * Whether this engine runs the blocking neighbourhood exchange of a grid of {@code blocks} blocks
     * a rank, each of {@code blockBytes} packed bytes, natively ({@link #neighborExchange}). The answer
     * may depend only on what every member has alike (the communicator, the block count and size),
     * never on this rank's buffers: members that chose differently would wait for each other.
     */
    default boolean runsNeighborExchange(int blocks, long blockBytes) {
        return false;
    }

    /**
     * The blocking neighbourhood exchange of a grid, natively, where {@link #runsNeighborExchange}
     * said so. Block j of {@code sendBlocks} goes to {@code destinations[j]} as the message its step
     * {@code sendSteps[j]} names, and block i of {@code recvBlocks} is the one {@code sources[i]}
     * sends as step {@code receiveSteps[i]}: on a grid every rank's send steps differ
     * ({@link org.lockstep.spi.topology.Neighborhood}), so a step names one block of its sender.
     * Every block is {@code blockBytes} long; null blocks are those of
     * {@link Communicator#PROC_NULL} neighbours.
     */
    default void neighborExchange(MemorySegment[] sendBlocks, int[] destinations, int[] sendSteps, MemorySegment[] recvBlocks,
                                  int[] sources, int[] receiveSteps, long blockBytes) {
        throw new UnsupportedOperationException("no native neighbourhood exchange");
    }

    // The other non-blocking collectives: by default the point-to-point schedules of
    // PointToPointCollectives over the channel; a provider overrides those it runs natively.

    default Request igather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return PointToPointCollectives.INSTANCE.gatherSchedule(channel, send, count, type, recv, root).start();
    }

    default Request igatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                             long[] recvCounts, long[] displacements, int root) {
        return PointToPointCollectives.INSTANCE.gathervSchedule(channel, send, sendCount, type, recv, recvCounts, displacements, root)
                .start();
    }

    default Request iscatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return PointToPointCollectives.INSTANCE.scatterSchedule(channel, send, count, type, recv, root).start();
    }

    default Request iscatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                              MemorySegment recv, long recvCount, int root) {
        return PointToPointCollectives.INSTANCE.scattervSchedule(channel, send, sendCounts, displacements, type, recv, recvCount, root)
                .start();
    }

    default Request iallgather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return PointToPointCollectives.INSTANCE.allgatherSchedule(channel, send, count, type, recv).start();
    }

    default Request iallgatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                                long[] recvCounts, long[] displacements) {
        return PointToPointCollectives.INSTANCE.allgathervSchedule(channel, send, sendCount, type, recv, recvCounts, displacements)
                .start();
    }

    default Request ialltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return PointToPointCollectives.INSTANCE.alltoallSchedule(channel, send, count, type, recv).start();
    }

    default Request ialltoallv(Communicator channel, MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                               Datatype type, MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return PointToPointCollectives.INSTANCE.alltoallvSchedule(channel, send, sendCounts, sendDisplacements, type, recv,
                recvCounts, recvDisplacements).start();
    }

    default Request ireduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op,
                            int root) {
        return PointToPointCollectives.INSTANCE.reduceSchedule(channel, send, recv, count, type, op, root).start();
    }

    default Request ireduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts,
                                   Datatype type, Op op) {
        return PointToPointCollectives.INSTANCE.reduceScatterSchedule(channel, send, recv, recvCounts, type, op).start();
    }

    default Request ireduceScatterBlock(Communicator channel, MemorySegment send, MemorySegment recv, long recvCount,
                                        Datatype type, Op op) {
        long[] counts = new long[channel.size()];
        java.util.Arrays.fill(counts, recvCount);
        return ireduceScatter(channel, send, recv, counts, type, op);
    }

    default Request iscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return PointToPointCollectives.INSTANCE.scanSchedule(channel, send, recv, count, type, op).start();
    }

    default Request iexscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return PointToPointCollectives.INSTANCE.exscanSchedule(channel, send, recv, count, type, op).start();
    }
}
