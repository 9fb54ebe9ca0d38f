package org.lockstep.pcie.collective;

import static org.lockstep.pcie.collective.CollectiveTesting.assertSameBytes;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Op;
import org.lockstep.spi.collective.CollectiveEngine;
import org.lockstep.spi.collective.PointToPointCollectives;
import org.lockstep.spi.collective.PointToPointCollectives.AllreduceAlgorithm;
import org.lockstep.spi.collective.PointToPointCollectives.ReduceAlgorithm;

/**
 * Reductions of 1.2 M elements with user operations, where chunking and pipelining bugs live
 * (after MPICH coll/uoplong, longuser, allred with large counts): messages of many fragments,
 * reductions on slices at offsets that are not multiples of anything nice.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LargeCountTest {
    private static final long COUNT = 1_200_000;

    private static JobOptions options(int ranks) {
        return CollectiveTesting.options(ranks).with("lockstep.mailbox.heapPerRank", "8m");
    }

    private static void allreduce(int ranks, CollectiveEngine engine, Op op) {
        CollectiveTesting.run(options(ranks), engine, comm -> {
            MemorySegment send = Reductions.input(COUNT, Datatype.INT, op, comm.rank(), 11);
            MemorySegment recv = CollectiveTesting.bytes(COUNT * Integer.BYTES);
            comm.allreduce(send, recv, COUNT, Datatype.INT, op);
            assertSameBytes(Reductions.reference(COUNT, Datatype.INT, op, 11, 0, ranks - 1), recv,
                    engine + " allreduce " + op + " of " + COUNT + " at rank " + comm.rank());
        });
    }

    private static void reduce(int ranks, int root, CollectiveEngine engine, Op op) {
        CollectiveTesting.run(options(ranks), engine, comm -> {
            MemorySegment send = Reductions.input(COUNT, Datatype.INT, op, comm.rank(), 12);
            MemorySegment recv = comm.rank() == root ? CollectiveTesting.bytes(COUNT * Integer.BYTES) : null;
            comm.reduce(send, recv, COUNT, Datatype.INT, op, root);
            if (comm.rank() == root) {
                assertSameBytes(Reductions.reference(COUNT, Datatype.INT, op, 12, 0, ranks - 1), recv,
                        engine + " reduce " + op + " of " + COUNT + " to " + root);
            }
        });
    }

    @Test
    void nonCommutativeAllreduceOfManyElementsOnThreeAndFourRanks() {
        allreduce(3, PointToPointCollectives.INSTANCE, Reductions.MATRIX);
        allreduce(4, PointToPointCollectives.INSTANCE, Reductions.MATRIX);
    }

    @Test
    void allreduceOfManyElementsByRecursiveDoubling() {
        allreduce(3, ForcedAlgorithms.allreduce(AllreduceAlgorithm.RECURSIVE_DOUBLING), Reductions.MATRIX);
    }

    @Test
    void commutativeUserAllreduceOfManyElementsOnFiveRanks() {
        allreduce(5, PointToPointCollectives.INSTANCE, Reductions.USER_SUM);
    }

    @Test
    void nonCommutativeReduceOfManyElementsWithBothAlgorithms() {
        reduce(3, 1, PointToPointCollectives.INSTANCE, Reductions.MATRIX);
        reduce(4, 3, ForcedAlgorithms.reduce(ReduceAlgorithm.BINOMIAL), Reductions.MATRIX);
    }
}
