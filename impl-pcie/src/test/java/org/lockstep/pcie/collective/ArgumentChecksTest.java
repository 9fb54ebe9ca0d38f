package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.spi.collective.CollectiveArguments;

/**
 * Bad arguments of the collectives fail with the MPI error class, on the rank that passed them,
 * before anything is sent; the communicator stays usable (after MPICH errors/coll).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ArgumentChecksTest {
    private static final int RANKS = 3;
    private static final int ROOT = 1;

    private static void fails(ErrorClass expected, Executable call, String what) {
        LockstepException e = assertThrows(LockstepException.class, call, what);
        assertEquals(expected, e.errorClass(), what + ": " + e.getMessage());
    }

    private static MemorySegment bytes(long n) {
        return CollectiveTesting.bytes(n);
    }

    /** Counts or displacements of one value per rank. */
    private static long[] each(long... values) {
        return values;
    }

    @Test
    void rootedCollectivesCheckRootTypeCountAndTheBuffersSignificantHere() {
        CollectiveTesting.run(RANKS, comm -> {
            boolean root = comm.rank() == ROOT;
            MemorySegment four = bytes(4 * Integer.BYTES);
            // bcast
            fails(ErrorClass.ROOT, () -> CollectiveArguments.checkBcast(comm, four, 4, Datatype.INT, -1), "negative root");
            fails(ErrorClass.ROOT, () -> CollectiveArguments.checkBcast(comm, four, 4, Datatype.INT, RANKS), "root = size");
            fails(ErrorClass.COUNT, () -> CollectiveArguments.checkBcast(comm, four, -1, Datatype.INT, ROOT), "negative count");
            fails(ErrorClass.TYPE, () -> CollectiveArguments.checkBcast(comm, four, 4, null, ROOT), "null type");
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkBcast(comm, four, 5, Datatype.INT, ROOT), "short buffer");
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkBcast(comm, null, 1, Datatype.INT, ROOT), "null buffer");
            CollectiveArguments.checkBcast(comm, null, 0, Datatype.INT, ROOT);
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkBcast(comm, Communicator.IN_PLACE, 0, Datatype.INT, ROOT),
                    "IN_PLACE bcast");
            fails(ErrorClass.COUNT, () -> CollectiveArguments.checkBcast(comm, four, Long.MAX_VALUE / 2, Datatype.INT, ROOT),
                    "byte length overflow");
            if (root) {
                CollectiveArguments.checkBcast(comm, four.asReadOnly(), 4, Datatype.INT, ROOT);
            } else {
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkBcast(comm, four.asReadOnly(), 4, Datatype.INT, ROOT),
                        "read-only buffer written at a non-root");
            }
            MemorySegment freed;
            try (Arena arena = Arena.ofConfined()) {
                freed = arena.allocate(16);
            }
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkBcast(comm, freed, 4, Datatype.INT, ROOT), "freed buffer");

            // gather: the receive buffer counts only at the root; IN_PLACE only there
            MemorySegment all = bytes(RANKS * 4L * Integer.BYTES);
            if (root) {
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkGather(comm, four, 4, Datatype.INT,
                        bytes(RANKS * 16L - 1), ROOT), "root's receive buffer short");
                CollectiveArguments.checkGather(comm, Communicator.IN_PLACE, 4, Datatype.INT, all, ROOT);
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkGather(comm, four, 4, Datatype.INT,
                        Communicator.IN_PLACE, ROOT), "IN_PLACE as receive buffer");
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkGather(comm, all.asSlice(16, 16), 4, Datatype.INT,
                        all, ROOT), "send inside receive buffer");
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkGather(comm, four, 4, Datatype.INT,
                        all.asReadOnly(), ROOT), "read-only receive buffer");
            } else {
                CollectiveArguments.checkGather(comm, four, 4, Datatype.INT, null, ROOT);
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkGather(comm, Communicator.IN_PLACE, 4, Datatype.INT,
                        null, ROOT), "IN_PLACE at a non-root");
            }
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkGather(comm, bytes(15), 4, Datatype.INT, all, ROOT),
                    "short send buffer");

            // scatter: the send buffer counts only at the root
            if (root) {
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkScatter(comm, bytes(RANKS * 16L - 4), 4,
                        Datatype.INT, four, ROOT), "root's send buffer short");
                CollectiveArguments.checkScatter(comm, all.asReadOnly(), 4, Datatype.INT, Communicator.IN_PLACE, ROOT);
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkScatter(comm, Communicator.IN_PLACE, 4, Datatype.INT,
                        four, ROOT), "IN_PLACE as send buffer");
            } else {
                CollectiveArguments.checkScatter(comm, null, 4, Datatype.INT, four, ROOT);
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkScatter(comm, null, 4, Datatype.INT,
                        Communicator.IN_PLACE, ROOT), "IN_PLACE at a non-root");
            }

            // reduce
            fails(ErrorClass.OP, () -> CollectiveArguments.checkReduce(comm, four, all, 4, Datatype.INT, null, ROOT), "null op");
            fails(ErrorClass.OP, () -> CollectiveArguments.checkReduce(comm, bytes(32), bytes(32), 4, Datatype.DOUBLE,
                    Op.BAND, ROOT), "BAND on DOUBLE");
            fails(ErrorClass.OP, () -> CollectiveArguments.checkReduce(comm, four, all, 4, Datatype.INT, Op.MINLOC, ROOT),
                    "MINLOC on a non-pair type");
            fails(ErrorClass.ROOT, () -> CollectiveArguments.checkReduce(comm, four, all, 4, Datatype.INT, Op.SUM, 7),
                    "bad reduce root");
            if (root) {
                CollectiveArguments.checkReduce(comm, Communicator.IN_PLACE, four, 4, Datatype.INT, Op.SUM, ROOT);
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkReduce(comm, four, four, 4, Datatype.INT, Op.SUM,
                        ROOT), "aliased send and receive");
            } else {
                CollectiveArguments.checkReduce(comm, four, null, 4, Datatype.INT, Op.SUM, ROOT);
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkReduce(comm, Communicator.IN_PLACE, four, 4,
                        Datatype.INT, Op.SUM, ROOT), "IN_PLACE at a non-root");
            }
        });
    }

    @Test
    void vVariantsCheckTheirArraysAndLayouts() {
        CollectiveTesting.run(RANKS, comm -> {
            int me = comm.rank();
            boolean root = me == ROOT;
            MemorySegment recv = bytes(10 * Integer.BYTES);
            MemorySegment two = bytes(2 * Integer.BYTES);
            if (root) {
                fails(ErrorClass.COUNT, () -> CollectiveArguments.checkGatherv(comm, two, 2, Datatype.INT, recv, each(2, 2),
                        each(0, 2), ROOT), "counts of the wrong length");
                fails(ErrorClass.COUNT, () -> CollectiveArguments.checkGatherv(comm, two, 2, Datatype.INT, recv, null,
                        each(0, 2, 4), ROOT), "null counts at the root");
                fails(ErrorClass.COUNT, () -> CollectiveArguments.checkGatherv(comm, two, 2, Datatype.INT, recv,
                        each(2, 2, -1), each(0, 2, 4), ROOT), "negative count");
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkGatherv(comm, two, 2, Datatype.INT, recv,
                        each(2, 2, 2), each(0, -2, 4), ROOT), "negative displacement");
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkGatherv(comm, two, 2, Datatype.INT, recv,
                        each(2, 2, 2), each(0, 2, 9), ROOT), "block past the end");
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkGatherv(comm, two, 2, Datatype.INT, recv,
                        each(2, 2, 2), each(0, 3, 1), ROOT), "overlapping blocks");
                fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkGatherv(comm, bytes(4), 1, Datatype.INT, recv,
                        each(1, 1, 1), each(0, 1, 10), ROOT), "one-element block just past the end");
                fails(ErrorClass.COUNT, () -> CollectiveArguments.checkGatherv(comm, two, 1, Datatype.INT, recv,
                        each(2, 2, 2), each(0, 2, 4), ROOT), "root's count differs from its own block");
                // empty blocks may sit anywhere, even on top of others
                CollectiveArguments.checkGatherv(comm, two, 2, Datatype.INT, recv, each(2, 2, 0), each(0, 2, 1), ROOT);
                // scatterv reads: overlapping blocks are allowed there
                CollectiveArguments.checkScatterv(comm, recv, each(2, 2, 2), each(0, 1, 1), Datatype.INT, two, 2, ROOT);
                fails(ErrorClass.COUNT, () -> CollectiveArguments.checkScatterv(comm, recv, each(2, 2), each(0, 1),
                        Datatype.INT, two, 2, ROOT), "scatterv counts of the wrong length");
            } else {
                CollectiveArguments.checkGatherv(comm, two, 2, Datatype.INT, null, null, null, ROOT);
                CollectiveArguments.checkScatterv(comm, null, null, null, Datatype.INT, two, 2, ROOT);
            }
            long[] counts = each(2, 2, 2);
            long[] displ = each(0, 2, 4);
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkAllgatherv(comm, two, 2, Datatype.INT, recv, counts,
                    each(0, 1, 4)), "allgatherv blocks overlap");
            fails(ErrorClass.COUNT, () -> CollectiveArguments.checkAllgatherv(comm, bytes(12), 3, Datatype.INT, recv, counts,
                    displ), "allgatherv send count differs from own block");
            CollectiveArguments.checkAllgatherv(comm, Communicator.IN_PLACE, 99, Datatype.INT, recv, counts, displ);
            fails(ErrorClass.COUNT, () -> CollectiveArguments.checkAlltoallv(comm, recv, counts, null, Datatype.INT, recv,
                    counts, displ), "alltoallv null send displacements");
            CollectiveArguments.checkAlltoallv(comm, Communicator.IN_PLACE, null, null, Datatype.INT, recv, counts, displ);
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkAlltoallv(comm, recv.asSlice(0, 24), counts, displ,
                    Datatype.INT, recv, counts, displ), "alltoallv aliased");
        });
    }

    @Test
    void allToAllAndReductionCollectivesCheckSizesAndInPlace() {
        CollectiveTesting.run(RANKS, comm -> {
            int me = comm.rank();
            MemorySegment all = bytes(RANKS * 8L);
            MemorySegment two = bytes(8);
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkAllgather(comm, two, 2, Datatype.INT, bytes(RANKS * 8L - 1)),
                    "allgather receive short");
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkAllgather(comm, two, 2, Datatype.INT, all.asReadOnly()),
                    "allgather receive read-only");
            CollectiveArguments.checkAllgather(comm, Communicator.IN_PLACE, 2, Datatype.INT, all);
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkAlltoall(comm, two, 2, Datatype.INT, all),
                    "alltoall send short");
            CollectiveArguments.checkAlltoall(comm, Communicator.IN_PLACE, 2, Datatype.INT, all);
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkAllreduce(comm, two, Communicator.IN_PLACE, 2, Datatype.INT,
                    Op.SUM), "allreduce receive IN_PLACE");
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkAllreduce(comm, all.asSlice(4, 8), all.asSlice(0, 8), 2,
                    Datatype.INT, Op.SUM), "allreduce buffers overlap");
            fails(ErrorClass.OP, () -> CollectiveArguments.checkAllreduce(comm, bytes(8), bytes(8), 2, Datatype.FLOAT,
                    Op.LAND), "LAND on FLOAT");
            CollectiveArguments.checkAllreduce(comm, Communicator.IN_PLACE, two, 2, Datatype.INT, Op.SUM);
            long[] counts = new long[RANKS];
            counts[me] = 2;
            fails(ErrorClass.COUNT, () -> CollectiveArguments.checkReduceScatter(comm, all, two, new long[RANKS + 1],
                    Datatype.INT, Op.SUM), "reduceScatter counts of the wrong length");
            fails(ErrorClass.COUNT, () -> CollectiveArguments.checkReduceScatter(comm, all, two, new long[] {1, -1, 1},
                    Datatype.INT, Op.SUM), "reduceScatter negative count");
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkReduceScatter(comm, all, bytes(7), counts, Datatype.INT,
                    Op.SUM), "reduceScatter receive short");
            long[] twoEach = {2, 2, 2};
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkReduceScatter(comm, Communicator.IN_PLACE, two, twoEach,
                    Datatype.INT, Op.SUM), "reduceScatter in place needs room for the whole input");
            CollectiveArguments.checkReduceScatter(comm, Communicator.IN_PLACE, all, twoEach, Datatype.INT, Op.SUM);
            fails(ErrorClass.COUNT, () -> CollectiveArguments.checkReduceScatterBlock(comm, all, two, -2, Datatype.INT, Op.SUM),
                    "reduceScatterBlock negative count");
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkReduceScatterBlock(comm, two, two, 2, Datatype.INT,
                    Op.SUM), "reduceScatterBlock send short");
            fails(ErrorClass.OP, () -> CollectiveArguments.checkScan(comm, two, bytes(8), 2, Datatype.INT, null), "scan null op");
            fails(ErrorClass.BUFFER, () -> CollectiveArguments.checkScan(comm, two, bytes(4), 2, Datatype.INT, Op.SUM),
                    "scan receive short");
        });
    }

    @Test
    void theCommunicatorRejectsBadCallsBeforeSendingAndStaysUsable() {
        CollectiveTesting.run(RANKS, comm -> {
            MemorySegment two = bytes(8);
            MemorySegment sum = bytes(8);
            // each bad call fails on every rank, so no rank starts the collective
            fails(ErrorClass.ROOT, () -> comm.bcast(two, 2, Datatype.INT, RANKS), "bcast with a bad root");
            fails(ErrorClass.OP, () -> comm.allreduce(bytes(16), bytes(16), 2, Datatype.DOUBLE, Op.BXOR), "BXOR on DOUBLE");
            fails(ErrorClass.OP, () -> comm.iallreduce(two, sum, 2, Datatype.INT, null), "iallreduce null op");
            fails(ErrorClass.BUFFER, () -> comm.ibcast(Communicator.IN_PLACE, 1, Datatype.INT, 0), "ibcast IN_PLACE");
            fails(ErrorClass.COUNT, () -> comm.alltoallv(two, new long[1], new long[1], Datatype.INT, two, new long[1],
                    new long[1]), "alltoallv arrays of the wrong length");
            fails(ErrorClass.TYPE, () -> comm.scan(two, sum, 2, null, Op.SUM), "scan null type");
            // ... and the next good collective matches up
            two.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0, comm.rank() + 1);
            comm.allreduce(two, sum, 2, Datatype.INT, Op.SUM);
            assertEquals(RANKS * (RANKS + 1) / 2, sum.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0));
            comm.barrier();
        });
    }
}
