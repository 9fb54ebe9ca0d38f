package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.spi.events.CollectiveEvent;
import org.lockstep.spi.events.CollectiveRecording;

/**
 * The blocking collective templates of {@link AbstractCommunicator}, with the general typed
 * forms: each goes through {@link CollectiveCalls} (argument checks, derived datatypes packed) to the provider's
 * {@link CollectiveEngine} over the private collective channel. Each collective is written once
 * here for its blocking form ({@code start == false}) and the non-blocking one
 * ({@link NonBlockingCollectiveTemplates}), and recorded as a {@link CollectiveEvent} when a
 * Flight Recorder recording asks for it: the bytes named here are this rank's buffer in the call.
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
     * Runs a collective, blocking ({@code start == false}, returns null) or started (returns its
     * request), its errors handed to the error handler, and recorded as a {@link CollectiveEvent}
     * when a Flight Recorder recording asks for it ({@code bytes} is evaluated only then): a
     * blocking call for its whole length, a started one from its start to its completion.
     */
    final Request collective(String operation, boolean start, LongSupplier bytes, Supplier<Request> call) {
        CollectiveEvent event = CollectiveRecording.begin();
        if (event == null) {
            return start ? started(call) : withHandler(call);
        }
        if (!start) {
            try {
                return withHandler(call);
            } finally {
                CollectiveRecording.end(event, operation, this, recordedBytes(bytes));
            }
        }
        Request request;
        try {
            request = started(call);
        } catch (RuntimeException failed) {
            CollectiveRecording.completed(event, operation, CollectiveRecording.started(event), this, recordedBytes(bytes));
            throw failed;
        }
        String kind = CollectiveRecording.started(event);
        long recordedBytes = recordedBytes(bytes);
        return new CompletingRequest(request, status -> CollectiveRecording.completed(event, operation, kind, this, recordedBytes));
    }

    private static long recordedBytes(LongSupplier bytes) {
        try {
            return bytes.getAsLong();
        } catch (LockstepException badCount) {
            return 0; // the call itself reported it
        }
    }

    static long sum(long[] counts) {
        long total = 0;
        if (counts != null) {
            for (long c : counts) {
                total += c;
            }
        }
        return total;
    }

    // ---- each collective once, blocking or started

    final Request barrier(boolean start) {
        return collective("barrier", start, () -> 0, () -> collectives().barrier(start));
    }

    final Request bcast(MemorySegment buffer, long count, Datatype type, int root, boolean start) {
        return collective("bcast", start, () -> type.byteLength(count), () -> collectives().bcast(buffer, count, type, root, start));
    }

    final Request gather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                         Datatype recvType, int root, boolean start) {
        return collective("gather", start, () -> sendType.byteLength(sendCount),
                () -> collectives().gather(send, sendCount, sendType, recv, recvCount, recvType, root, start));
    }

    final Request gatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                          long[] displacements, Datatype recvType, int root, boolean start) {
        return collective("gatherv", start, () -> sendType.byteLength(sendCount),
                () -> collectives().gatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, root, start));
    }

    final Request scatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                          Datatype recvType, int root, boolean start) {
        return collective("scatter", start, () -> recvType.byteLength(recvCount),
                () -> collectives().scatter(send, sendCount, sendType, recv, recvCount, recvType, root, start));
    }

    final Request scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType, MemorySegment recv,
                           long recvCount, Datatype recvType, int root, boolean start) {
        return collective("scatterv", start, () -> recvType.byteLength(recvCount),
                () -> collectives().scatterv(send, sendCounts, displacements, sendType, recv, recvCount, recvType, root, start));
    }

    final Request allgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                            Datatype recvType, boolean start) {
        return collective("allgather", start, () -> sendType.byteLength(sendCount),
                () -> collectives().allgather(send, sendCount, sendType, recv, recvCount, recvType, start));
    }

    final Request allgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                             long[] displacements, Datatype recvType, boolean start) {
        return collective("allgatherv", start, () -> sendType.byteLength(sendCount),
                () -> collectives().allgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, start));
    }

    final Request alltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                           Datatype recvType, boolean start) {
        return collective("alltoall", start, () -> recvType.byteLength(recvCount) * size(),
                () -> collectives().alltoall(send, sendCount, sendType, recv, recvCount, recvType, start));
    }

    final Request alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                            MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType, boolean start) {
        return collective("alltoallv", start, () -> recvType.byteLength(sum(recvCounts)),
                () -> collectives().alltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements,
                        recvType, start));
    }

    final Request alltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                            MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes, boolean start) {
        return collective("alltoallw", start, () -> 0, () -> collectives().alltoallw(send, sendCounts, sendDisplacements, sendTypes,
                recv, recvCounts, recvDisplacements, recvTypes, start));
    }

    final Request reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root, boolean start) {
        return collective("reduce", start, () -> type.byteLength(count), () -> collectives().reduce(send, recv, count, type, op, root, start));
    }

    final Request allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, boolean start) {
        return collective("allreduce", start, () -> type.byteLength(count), () -> collectives().allreduce(send, recv, count, type, op, start));
    }

    final Request reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op, boolean start) {
        return collective("reduce_scatter", start, () -> type.byteLength(sum(recvCounts)),
                () -> collectives().reduceScatter(send, recv, recvCounts, type, op, start));
    }

    final Request reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op, boolean start) {
        return collective("reduce_scatter_block", start, () -> type.byteLength(recvCount) * size(),
                () -> collectives().reduceScatterBlock(send, recv, recvCount, type, op, start));
    }

    final Request scan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, boolean exclusive, boolean start) {
        return collective(exclusive ? "exscan" : "scan", start, () -> type.byteLength(count),
                () -> collectives().scan(send, recv, count, type, op, exclusive, start));
    }

    // ---- the blocking calls: the typed forms are the general ones with one datatype

    @Override
    public final void barrier() {
        barrier(false);
    }

    @Override
    public final void bcast(MemorySegment buffer, long count, Datatype type, int root) {
        bcast(buffer, count, type, root, false);
    }

    @Override
    public final void gather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        gather(send, count, type, recv, count, type, root, false);
    }

    @Override
    public final void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                              long[] displacements, int root) {
        gatherv(send, sendCount, type, recv, recvCounts, displacements, type, root, false);
    }

    @Override
    public final void scatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        scatter(send, count, type, recv, count, type, root, false);
    }

    @Override
    public final void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv,
                               long recvCount, int root) {
        scatterv(send, sendCounts, displacements, type, recv, recvCount, type, root, false);
    }

    @Override
    public final void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        allgather(send, count, type, recv, count, type, false);
    }

    @Override
    public final void allgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                 long[] displacements) {
        allgatherv(send, sendCount, type, recv, recvCounts, displacements, type, false);
    }

    @Override
    public final void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        alltoall(send, count, type, recv, count, type, false);
    }

    @Override
    public final void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        alltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements, type, false);
    }

    @Override
    public final void alltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        alltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements, recvTypes, false);
    }

    @Override
    public final void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        reduce(send, recv, count, type, op, root, false);
    }

    @Override
    public final void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        allreduce(send, recv, count, type, op, false);
    }

    @Override
    public final void reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        reduceScatter(send, recv, recvCounts, type, op, false);
    }

    @Override
    public final void reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        reduceScatterBlock(send, recv, recvCount, type, op, false);
    }

    @Override
    public final void scan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        scan(send, recv, count, type, op, false, false);
    }

    @Override
    public final void exscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        scan(send, recv, count, type, op, true, false);
    }

    @Override
    public final void gather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                             Datatype recvType, int root) {
        gather(send, sendCount, sendType, recv, recvCount, recvType, root, false);
    }

    @Override
    public final void gatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                              long[] displacements, Datatype recvType, int root) {
        gatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, root, false);
    }

    @Override
    public final void scatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                              Datatype recvType, int root) {
        scatter(send, sendCount, sendType, recv, recvCount, recvType, root, false);
    }

    @Override
    public final void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType, MemorySegment recv,
                               long recvCount, Datatype recvType, int root) {
        scatterv(send, sendCounts, displacements, sendType, recv, recvCount, recvType, root, false);
    }

    @Override
    public final void allgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                Datatype recvType) {
        allgather(send, sendCount, sendType, recv, recvCount, recvType, false);
    }

    @Override
    public final void allgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                 long[] displacements, Datatype recvType) {
        allgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, false);
    }

    @Override
    public final void alltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                               Datatype recvType) {
        alltoall(send, sendCount, sendType, recv, recvCount, recvType, false);
    }

    @Override
    public final void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        alltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements, recvType, false);
    }
}
