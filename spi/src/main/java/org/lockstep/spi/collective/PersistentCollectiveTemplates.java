package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.spi.events.CollectiveRecording;
import org.lockstep.spi.messaging.PersistentOperation;

/**
 * The persistent collectives of {@link AbstractCommunicator} (MPI 4.0 {@code …_init}): each start
 * runs the non-blocking form, whose arguments are checked at each start (and which a recording
 * shows as one persistent collective call per start).
 */
public abstract class PersistentCollectiveTemplates extends NonBlockingCollectiveTemplates {
    /** Only the layers of this package extend it. */
    PersistentCollectiveTemplates() {
    }

    private PersistentRequest persistent(String what, java.util.function.Supplier<Request> start) {
        checkOpen();
        return new PersistentOperation(what, () -> CollectiveRecording.persistentStart(start));
    }

    @Override
    public final PersistentRequest barrierInit() {
        return startedPersistent(() -> persistent("barrier", this::ibarrier));
    }

    @Override
    public final PersistentRequest bcastInit(MemorySegment buffer, long count, Datatype type, int root) {
        return startedPersistent(() -> persistent("bcast", () -> ibcast(buffer, count, type, root)));
    }

    @Override
    public final PersistentRequest gatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return startedPersistent(() -> persistent("gather", () -> igather(send, count, type, recv, root)));
    }

    @Override
    public final PersistentRequest gathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                                               long[] recvCounts, long[] displacements, int root) {
        return startedPersistent(() -> persistent("gatherv", () -> igatherv(send, sendCount, type, recv, recvCounts, displacements, root)));
    }

    @Override
    public final PersistentRequest scatterInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return startedPersistent(() -> persistent("scatter", () -> iscatter(send, count, type, recv, root)));
    }

    @Override
    public final PersistentRequest scattervInit(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                                                MemorySegment recv, long recvCount, int root) {
        return startedPersistent(() -> persistent("scatterv", () -> iscatterv(send, sendCounts, displacements, type, recv, recvCount, root)));
    }

    @Override
    public final PersistentRequest allgatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return startedPersistent(() -> persistent("allgather", () -> iallgather(send, count, type, recv)));
    }

    @Override
    public final PersistentRequest allgathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                                                  long[] recvCounts, long[] displacements) {
        return startedPersistent(() -> persistent("allgatherv", () -> iallgatherv(send, sendCount, type, recv, recvCounts, displacements)));
    }

    @Override
    public final PersistentRequest alltoallInit(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return startedPersistent(() -> persistent("alltoall", () -> ialltoall(send, count, type, recv)));
    }

    @Override
    public final PersistentRequest alltoallvInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                                 MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return startedPersistent(() -> persistent("alltoallv", () -> ialltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements)));
    }

    @Override
    public final PersistentRequest alltoallwInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                                                 Datatype[] sendTypes, MemorySegment recv, long[] recvCounts,
                                                 long[] recvDisplacements, Datatype[] recvTypes) {
        return startedPersistent(() -> persistent("alltoallw", () -> ialltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts,
                recvDisplacements, recvTypes)));
    }

    @Override
    public final PersistentRequest reduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        return startedPersistent(() -> persistent("reduce", () -> ireduce(send, recv, count, type, op, root)));
    }

    @Override
    public final PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return startedPersistent(() -> persistent("allreduce", () -> iallreduce(send, recv, count, type, op)));
    }

    @Override
    public final PersistentRequest reduceScatterInit(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type,
                                                     Op op) {
        return startedPersistent(() -> persistent("reduceScatter", () -> ireduceScatter(send, recv, recvCounts, type, op)));
    }

    @Override
    public final PersistentRequest reduceScatterBlockInit(MemorySegment send, MemorySegment recv, long recvCount, Datatype type,
                                                          Op op) {
        return startedPersistent(() -> persistent("reduceScatterBlock", () -> ireduceScatterBlock(send, recv, recvCount, type, op)));
    }

    @Override
    public final PersistentRequest scanInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return startedPersistent(() -> persistent("scan", () -> iscan(send, recv, count, type, op)));
    }

    @Override
    public final PersistentRequest exscanInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return startedPersistent(() -> persistent("exscan", () -> iexscan(send, recv, count, type, op)));
    }
}
