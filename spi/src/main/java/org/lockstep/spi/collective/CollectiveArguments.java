package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

/** The argument checks of the collectives. PLACEHOLDER while issue 5 is written: checks nothing yet. */
final class CollectiveArguments {
    private CollectiveArguments() {
    }

    static void checkBcast(Communicator comm, MemorySegment buffer, long count, Datatype type, int root) {
    }

    static void checkGather(Communicator comm, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
    }

    static void checkGatherv(Communicator comm, MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements, int root) {
    }

    static void checkScatter(Communicator comm, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
    }

    static void checkScatterv(Communicator comm, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv, long recvCount, int root) {
    }

    static void checkAllgather(Communicator comm, MemorySegment send, long count, Datatype type, MemorySegment recv) {
    }

    static void checkAllgatherv(Communicator comm, MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements) {
    }

    static void checkAlltoall(Communicator comm, MemorySegment send, long count, Datatype type, MemorySegment recv) {
    }

    static void checkAlltoallv(Communicator comm, MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
    }

    static void checkReduce(Communicator comm, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
    }

    static void checkAllreduce(Communicator comm, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
    }

    static void checkReduceScatter(Communicator comm, MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
    }

    static void checkReduceScatterBlock(Communicator comm, MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
    }

    static void checkScan(Communicator comm, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
    }
}
