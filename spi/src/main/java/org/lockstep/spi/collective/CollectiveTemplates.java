package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.function.LongSupplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.spi.events.CollectiveEvent;
import org.lockstep.spi.events.CollectiveRecording;

/**
 * The blocking collective templates of {@link AbstractCommunicator}, with the general typed
 * forms: each goes through {@link CollectiveCalls} (argument checks, derived datatypes packed) to the provider's
 * {@link CollectiveEngine} over the private collective channel; each blocking collective is
 * recorded as a {@link CollectiveEvent} when a Flight Recorder recording asks for it.
 */
public abstract class CollectiveTemplates extends PointToPointTemplates {
    private CollectiveCalls collectives;

    /** Only the layers of this package extend it. */
    CollectiveTemplates() {
    }

    final CollectiveCalls collectives() {
        checkOpen();
        CollectiveCalls c = collectives;
        if (c == null) {
            Communicator channel = collectiveChannel();
            if (channel != this && channel instanceof CommunicatorHooks hooks) {
                hooks.carriesCollectives = true;
            }
            c = new CollectiveCalls(this, collectiveEngine(), channel);
            collectives = c;
        }
        return c;
    }

    /**
     * Runs a blocking collective, its error handed to the error handler, recorded as a
     * {@link CollectiveEvent} when a Flight Recorder recording asks for it ({@code bytes} is
     * evaluated only then).
     */
    private void recorded(String operation, LongSupplier bytes, Runnable call) {
        CollectiveEvent event = CollectiveRecording.begin();
        if (event == null) {
            runWithHandler(call);
            return;
        }
        try {
            runWithHandler(call);
        } finally {
            long recordedBytes;
            try {
                recordedBytes = bytes.getAsLong();
            } catch (LockstepException badCount) {
                recordedBytes = 0; // the call itself reported it
            }
            CollectiveRecording.end(event, operation, this, recordedBytes);
        }
    }

    private static long sum(long[] counts) {
        long total = 0;
        if (counts != null) {
            for (long c : counts) {
                total += c;
            }
        }
        return total;
    }

    @Override
    public final void barrier() {
        recorded("barrier", () -> 0, () -> collectives().barrier(false));
    }

    @Override
    public final void bcast(MemorySegment buffer, long count, Datatype type, int root) {
        recorded("bcast", () -> type.byteLength(count), () -> collectives().bcast(buffer, count, type, root, false));
    }

    @Override
    public final void gather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        recorded("gather", () -> type.byteLength(count),
                () -> collectives().gather(send, count, type, recv, count, type, root, false));
    }

    @Override
    public final void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                              long[] displacements, int root) {
        recorded("gatherv", () -> type.byteLength(sendCount),
                () -> collectives().gatherv(send, sendCount, type, recv, recvCounts, displacements, type, root, false));
    }

    @Override
    public final void scatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        recorded("scatter", () -> type.byteLength(count),
                () -> collectives().scatter(send, count, type, recv, count, type, root, false));
    }

    @Override
    public final void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv,
                               long recvCount, int root) {
        recorded("scatterv", () -> type.byteLength(recvCount),
                () -> collectives().scatterv(send, sendCounts, displacements, type, recv, recvCount, type, root, false));
    }

    @Override
    public final void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        recorded("allgather", () -> type.byteLength(count),
                () -> collectives().allgather(send, count, type, recv, count, type, false));
    }

    @Override
    public final void allgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                 long[] displacements) {
        recorded("allgatherv", () -> type.byteLength(sendCount),
                () -> collectives().allgatherv(send, sendCount, type, recv, recvCounts, displacements, type, false));
    }

    @Override
    public final void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        recorded("alltoall", () -> type.byteLength(count) * size(),
                () -> collectives().alltoall(send, count, type, recv, count, type, false));
    }

    @Override
    public final void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        recorded("alltoallv", () -> type.byteLength(sum(recvCounts)),
                () -> collectives().alltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements, type, false));
    }

    @Override
    public final void alltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        recorded("alltoallw", () -> 0, () -> collectives().alltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts,
                recvDisplacements, recvTypes, false));
    }

    @Override
    public final void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        recorded("reduce", () -> type.byteLength(count), () -> collectives().reduce(send, recv, count, type, op, root, false));
    }

    @Override
    public final void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        recorded("allreduce", () -> type.byteLength(count), () -> collectives().allreduce(send, recv, count, type, op, false));
    }

    @Override
    public final void reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        recorded("reduce_scatter", () -> type.byteLength(sum(recvCounts)), () -> collectives().reduceScatter(send, recv, recvCounts, type, op, false));
    }

    @Override
    public final void reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        recorded("reduce_scatter_block", () -> type.byteLength(recvCount) * size(), () -> collectives().reduceScatterBlock(send, recv, recvCount, type, op, false));
    }

    @Override
    public final void scan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        recorded("scan", () -> type.byteLength(count), () -> collectives().scan(send, recv, count, type, op, false, false));
    }

    @Override
    public final void exscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        recorded("exscan", () -> type.byteLength(count), () -> collectives().scan(send, recv, count, type, op, true, false));
    }

    // ---- the general forms: send and receive sides with their own counts and datatypes (recorded as
    // the same operations: bytes as in the typed forms above, from the send or the receive side)

    @Override
    public final void gather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                             Datatype recvType, int root) {
        recorded("gather", () -> sendType.byteLength(sendCount),
                () -> collectives().gather(send, sendCount, sendType, recv, recvCount, recvType, root, false));
    }

    @Override
    public final void gatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                              long[] displacements, Datatype recvType, int root) {
        recorded("gatherv", () -> sendType.byteLength(sendCount),
                () -> collectives().gatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, root, false));
    }

    @Override
    public final void scatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                              Datatype recvType, int root) {
        recorded("scatter", () -> recvType.byteLength(recvCount),
                () -> collectives().scatter(send, sendCount, sendType, recv, recvCount, recvType, root, false));
    }

    @Override
    public final void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType, MemorySegment recv,
                               long recvCount, Datatype recvType, int root) {
        recorded("scatterv", () -> recvType.byteLength(recvCount),
                () -> collectives().scatterv(send, sendCounts, displacements, sendType, recv, recvCount, recvType, root, false));
    }

    @Override
    public final void allgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                Datatype recvType) {
        recorded("allgather", () -> sendType.byteLength(sendCount),
                () -> collectives().allgather(send, sendCount, sendType, recv, recvCount, recvType, false));
    }

    @Override
    public final void allgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                 long[] displacements, Datatype recvType) {
        recorded("allgatherv", () -> sendType.byteLength(sendCount),
                () -> collectives().allgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, false));
    }

    @Override
    public final void alltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                               Datatype recvType) {
        recorded("alltoall", () -> recvType.byteLength(recvCount) * size(),
                () -> collectives().alltoall(send, sendCount, sendType, recv, recvCount, recvType, false));
    }

    @Override
    public final void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        recorded("alltoallv", () -> recvType.byteLength(sum(recvCounts)),
                () -> collectives().alltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements, recvType, false));
    }

}
