package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.collective.CollectiveTesting.assertData;
import static org.lockstep.pcie.collective.CollectiveTesting.assertSameBytes;
import static org.lockstep.pcie.collective.CollectiveTesting.fill;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * Point-to-point messages in flight across collectives on the same ranks: neither side takes the
 * other's messages (after MPICH coll/coll* with pending point-to-point, and the nonblocking
 * tests' overlap). Until communicators have contexts of their own the collective channel is the
 * world itself, so the application uses tags below 2<sup>30</sup> (which collectives never use)
 * and wildcard sources only, never ANY_TAG.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class InterleavingTest {
    private static final int TAG_RIGHT = 5;
    private static final int TAG_LEFT = 6;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 5, 8})
    void messagesPendingAcrossCollectivesArriveIntactAndCollectivesStayCorrect(int ranks) {
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            int right = (me + 1) % ranks;
            int left = (me + ranks - 1) % ranks;
            long big = 3000;
            long small = 40;
            MemorySegment toRight = CollectiveTesting.pattern(me, big, 100 + right);
            MemorySegment toLeft = CollectiveTesting.pattern(me, small, 200 + left);
            MemorySegment fromLeft = CollectiveTesting.bytes(big);
            // a wildcard-source receive posted before the collectives, for a tag they never use
            Request leftArrival = comm.irecv(fromLeft, big, Datatype.BYTE, Communicator.ANY_SOURCE, TAG_RIGHT);
            Request sentRight = comm.isend(toRight, big, Datatype.BYTE, right, TAG_RIGHT);
            comm.send(toLeft, small, Datatype.BYTE, left, TAG_LEFT);

            long count = 500;
            MemorySegment send = Reductions.input(count, Datatype.INT, Reductions.MATRIX, me, 9);
            MemorySegment product = CollectiveTesting.bytes(count * Integer.BYTES);
            comm.allreduce(send, product, count, Datatype.INT, Reductions.MATRIX);
            MemorySegment data = CollectiveTesting.bytes(20_000);
            if (me == ranks - 1) {
                fill(data, 0, data.byteSize(), me, 8);
            }
            Request bcast = comm.ibcast(data, data.byteSize(), Datatype.BYTE, ranks - 1);
            MemorySegment blocks = CollectiveTesting.bytes(ranks * 64L);
            MemorySegment exchanged = CollectiveTesting.bytes(ranks * 64L);
            for (int to = 0; to < ranks; to++) {
                fill(blocks, to * 64L, 64, me, 1000L * to);
            }
            comm.alltoall(blocks, 64, Datatype.BYTE, exchanged);

            // the probe sees the application's message from the right, never a collective's
            Optional<Status> probed;
            do {
                probed = comm.iprobe(Communicator.ANY_SOURCE, TAG_LEFT);
            } while (probed.isEmpty());
            assertEquals(right, probed.get().source());
            assertEquals(small, probed.get().byteCount());
            MemorySegment fromRight = CollectiveTesting.bytes(small);
            Status s = comm.recv(fromRight, small, Datatype.BYTE, Communicator.ANY_SOURCE, TAG_LEFT);
            assertEquals(right, s.source());
            bcast.await();
            comm.barrier();
            Status arrived = leftArrival.await();
            sentRight.await();

            assertEquals(left, arrived.source());
            assertEquals(TAG_RIGHT, arrived.tag());
            assertData(fromLeft, 0, 0, big, left, 100 + me, "message from the left at rank " + me);
            assertData(fromRight, 0, 0, small, right, 200 + me, "message from the right at rank " + me);
            assertSameBytes(Reductions.reference(count, Datatype.INT, Reductions.MATRIX, 9, 0, ranks - 1), product,
                    "allreduce at rank " + me);
            assertData(data, 0, 0, data.byteSize(), ranks - 1, 8, "ibcast at rank " + me);
            for (int from = 0; from < ranks; from++) {
                assertData(exchanged, from * 64L, 0, 64, from, 1000L * me, "alltoall at rank " + me);
            }
            assertTrue(comm.iprobe(Communicator.ANY_SOURCE, TAG_RIGHT).isEmpty(), "a stray message is left over");
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {3, 4})
    void collectivesKeepTheirOrderWhileTheApplicationFloodsTheMailboxes(int ranks) {
        // many unexpected application messages fill the pair mailboxes and the sender heaps
        // while collectives run; every message and every result still arrives
        int messages = 40;
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            int right = (me + 1) % ranks;
            int left = (me + ranks - 1) % ranks;
            Request[] sends = new Request[messages];
            for (int i = 0; i < messages; i++) {
                sends[i] = comm.isend(CollectiveTesting.pattern(me, 300 + i, i), 300 + i, Datatype.BYTE, right, TAG_RIGHT);
            }
            MemorySegment one = CollectiveTesting.bytes(Integer.BYTES);
            MemorySegment total = CollectiveTesting.bytes(Integer.BYTES);
            for (int round = 0; round < 10; round++) {
                one.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0, me + round);
                comm.allreduce(one, total, 1, Datatype.INT, Op.SUM);
                assertEquals(ranks * (ranks - 1) / 2 + ranks * round,
                        total.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0), "allreduce round " + round);
            }
            for (int i = 0; i < messages; i++) {
                MemorySegment got = CollectiveTesting.bytes(300 + i);
                Status s = comm.recv(got, 300 + i, Datatype.BYTE, left, TAG_RIGHT);
                assertEquals(300 + i, s.byteCount(), "message " + i + " from the left overtaken");
                assertData(got, 0, 0, 300 + i, left, i, "message " + i + " at rank " + me);
            }
            Request.waitAll(sends);
        });
    }
}
