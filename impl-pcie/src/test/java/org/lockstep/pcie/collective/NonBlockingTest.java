package org.lockstep.pcie.collective;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.collective.CollectiveTesting.assertData;
import static org.lockstep.pcie.collective.CollectiveTesting.assertSameBytes;
import static org.lockstep.pcie.collective.CollectiveTesting.fill;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * Non-blocking barrier, broadcast and allreduce: progressed only by tests, several in flight and
 * completed in different orders on different ranks, beside blocking collectives (after MPICH
 * coll/nonblocking*, ibarrier, icbarrier's ordering property).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NonBlockingTest {
    static final int[] RANK_COUNTS = CollectiveTesting.RANK_COUNTS;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 5, 8})
    void ibarrierDoesNotCompleteBeforeTheLastRankHasStartedIt(int ranks) {
        int late = ranks - 1;
        int polls = 2_000;
        AtomicBoolean lateStarted = new AtomicBoolean();
        AtomicInteger polled = new AtomicInteger();
        CollectiveTesting.run(ranks, comm -> {
            if (comm.rank() == late) {
                await().atMost(Duration.ofSeconds(60)).until(() -> polled.get() == ranks - 1);
                lateStarted.set(true);
                comm.ibarrier().await();
                return;
            }
            Request barrier = comm.ibarrier();
            for (int i = 0; i < polls; i++) {
                boolean done = barrier.test().isPresent();
                assertTrue(!done || lateStarted.get(), "ibarrier completed at rank " + comm.rank()
                        + " before rank " + late + " started it");
            }
            polled.incrementAndGet();
            barrier.await();
            assertTrue(lateStarted.get());
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void ibcastAndIallreduceCompleteWhenOnlyTested(int ranks) {
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            // short and long sizes: binomial and scatter-allgather broadcasts, both allreduce algorithms
            for (long count : new long[] {3, 4000}) {
                int root = (int) (count % ranks);
                MemorySegment data = CollectiveTesting.bytes(count * Long.BYTES);
                if (me == root) {
                    fill(data, 0, data.byteSize(), root, count);
                }
                Request bcast = comm.ibcast(data, count, Datatype.LONG, root);
                MemorySegment send = Reductions.input(count, Datatype.INT, Reductions.MATRIX, me, count);
                MemorySegment sum = CollectiveTesting.bytes(count * Integer.BYTES);
                Request allreduce = comm.iallreduce(send, sum, count, Datatype.INT, Reductions.MATRIX);
                Request barrier = comm.ibarrier();
                Request[] all = {bcast, allreduce, barrier};
                while (Request.testAll(all).isEmpty()) {
                    Thread.onSpinWait();
                }
                assertData(data, 0, 0, data.byteSize(), root, count, "ibcast of " + count + " at rank " + me);
                assertSameBytes(Reductions.reference(count, Datatype.INT, Reductions.MATRIX, count, 0, ranks - 1), sum,
                        "iallreduce of " + count + " at rank " + me);
                for (Request r : all) {
                    assertTrue(r.isComplete());
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void outstandingCollectivesMayBeCompletedInAnyOrderOnEachRank(int ranks) {
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            long count = 700;
            MemorySegment first = CollectiveTesting.bytes(count);
            MemorySegment second = CollectiveTesting.bytes(count);
            if (me == 0) {
                fill(first, 0, count, 0, 1);
            }
            if (me == ranks - 1) {
                fill(second, 0, count, ranks - 1, 2);
            }
            MemorySegment send = Reductions.input(count, Datatype.INT, Op.SUM, me, 3);
            MemorySegment sum = CollectiveTesting.bytes(count * Integer.BYTES);
            Request[] requests = {
                comm.ibcast(first, count, Datatype.BYTE, 0),
                comm.iallreduce(send, sum, count, Datatype.INT, Op.SUM),
                comm.ibarrier(),
                comm.ibcast(second, count, Datatype.BYTE, ranks - 1),
            };
            // each rank completes them in its own order: a rotation that depends on the rank
            for (int i = 0; i < requests.length; i++) {
                Request r = requests[(i + me) % requests.length];
                if (me % 2 == 0) {
                    r.await();
                } else {
                    while (r.test().isEmpty()) {
                        Thread.onSpinWait();
                    }
                }
            }
            assertData(first, 0, 0, count, 0, 1, "first ibcast at rank " + me);
            assertData(second, 0, 0, count, ranks - 1, 2, "second ibcast at rank " + me);
            assertSameBytes(Reductions.reference(count, Datatype.INT, Op.SUM, 3, 0, ranks - 1), sum, "iallreduce at rank " + me);
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void blockingCollectivesRunWhileNonBlockingOnesArePending(int ranks) {
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            long count = 900;
            MemorySegment send = Reductions.input(count, Datatype.INT, Reductions.MATRIX, me, 4);
            MemorySegment product = CollectiveTesting.bytes(count * Integer.BYTES);
            Request pending = comm.iallreduce(send, product, count, Datatype.INT, Reductions.MATRIX);
            MemorySegment data = CollectiveTesting.bytes(5000);
            if (me == 0) {
                fill(data, 0, data.byteSize(), 0, 5);
            }
            if (me % 2 == 0) {
                // even ranks finish the iallreduce first; odd ranks only once the broadcast is done,
                // so the odd ranks' blocking bcast must keep their iallreduce moving
                pending.await();
                comm.bcast(data, data.byteSize(), Datatype.BYTE, 0);
            } else {
                comm.bcast(data, data.byteSize(), Datatype.BYTE, 0);
                pending.await();
            }
            comm.barrier();
            assertData(data, 0, 0, data.byteSize(), 0, 5, "bcast at rank " + me);
            assertSameBytes(Reductions.reference(count, Datatype.INT, Reductions.MATRIX, 4, 0, ranks - 1), product,
                    "iallreduce at rank " + me);
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 4})
    void aCompletedRequestStaysCompleteAndReportsNoMessage(int ranks) {
        CollectiveTesting.run(ranks, comm -> {
            Request r = comm.ibarrier();
            r.await();
            assertTrue(r.isComplete());
            assertTrue(r.test().isPresent());
            assertEquals(0, r.await().byteCount());
            r.cancel();
            assertTrue(r.isComplete());
        });
    }
}
