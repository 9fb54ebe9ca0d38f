package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

import org.lockstep.api.Datatype;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.Op;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.spi.messaging.PersistentOperation;

/**
 * The persistent collectives of an intercommunicator (MPI 4.0 §6.13), over its non-blocking ones:
 * each start runs the non-blocking form with the arguments given at init, checked at that start.
 */
abstract class IntercommunicatorPersistentTemplates implements Intercommunicator {
    /** Checks that the intercommunicator is open (a persistent collective is made on an open one only). */
    abstract void checkOpen();

    private PersistentRequest persistent(String what, Supplier<Request> start) {
        checkOpen();
        return new PersistentOperation(what, start);
    }

    @Override
    public final PersistentRequest barrierInit() {
        return persistent("barrier", this::ibarrier);
    }

    @Override
    public final PersistentRequest bcastInit(MemorySegment buffer, long count, Datatype type, int root) {
        return persistent("bcast", () -> ibcast(buffer, count, type, root));
    }

    @Override
    public final PersistentRequest gatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return persistent("gather", () -> igather(send, count, type, recv, root));
    }

    @Override
    public final PersistentRequest gathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                                               long[] recvCounts, long[] displacements, int root) {
        return persistent("gatherv", () -> igatherv(send, sendCount, type, recv, recvCounts, displacements, root));
    }

    @Override
    public final PersistentRequest scatterInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return persistent("scatter", () -> iscatter(send, count, type, recv, root));
    }

    @Override
    public final PersistentRequest scattervInit(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                                                MemorySegment recv, long recvCount, int root) {
        return persistent("scatterv", () -> iscatterv(send, sendCounts, displacements, type, recv, recvCount, root));
    }

    @Override
    public final PersistentRequest allgatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return persistent("allgather", () -> iallgather(send, count, type, recv));
    }

    @Override
    public final PersistentRequest allgathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                                                  long[] recvCounts, long[] displacements) {
        return persistent("allgatherv", () -> iallgatherv(send, sendCount, type, recv, recvCounts, displacements));
    }

    @Override
    public final PersistentRequest alltoallInit(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return persistent("alltoall", () -> ialltoall(send, count, type, recv));
    }

    @Override
    public final PersistentRequest alltoallvInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                                                 Datatype type, MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return persistent("alltoallv",
                () -> ialltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements));
    }

    @Override
    public final PersistentRequest alltoallwInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                                                 Datatype[] sendTypes, MemorySegment recv, long[] recvCounts,
                                                 long[] recvDisplacements, Datatype[] recvTypes) {
        return persistent("alltoallw",
                () -> ialltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements, recvTypes));
    }

    @Override
    public final PersistentRequest reduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op,
                                              int root) {
        return persistent("reduce", () -> ireduce(send, recv, count, type, op, root));
    }

    @Override
    public final PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return persistent("allreduce", () -> iallreduce(send, recv, count, type, op));
    }

    @Override
    public final PersistentRequest reduceScatterInit(MemorySegment send, MemorySegment recv, long[] recvCounts,
                                                     Datatype type, Op op) {
        return persistent("reduceScatter", () -> ireduceScatter(send, recv, recvCounts, type, op));
    }

    @Override
    public final PersistentRequest reduceScatterBlockInit(MemorySegment send, MemorySegment recv, long recvCount,
                                                          Datatype type, Op op) {
        return persistent("reduceScatterBlock", () -> ireduceScatterBlock(send, recv, recvCount, type, op));
    }
}
