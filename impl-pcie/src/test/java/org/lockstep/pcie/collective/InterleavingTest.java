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
 * Point-to-point messages in flight across collectives on the same communicator: neither side
 * takes the other's messages, wildcard receives included (after MPICH coll/coll* with pending
 * point-to-point, and the nonblocking tests' overlap). The collectives run on the communicator's
 * private collective channel.
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
            MemorySegment first = CollectiveTesting.bytes(big);
            // a receive that matches anything, posted before the collectives: only an application message may match it
            Request early = comm.irecv(first, big, Datatype.BYTE, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
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

            Status one = early.await();
            // the other application message: a probe that matches anything sees it, never a collective's
            Optional<Status> probed;
            do {
                probed = comm.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
            } while (probed.isEmpty());
            int otherTag = one.tag() == TAG_RIGHT ? TAG_LEFT : TAG_RIGHT;
            assertEquals(otherTag, probed.get().tag());
            MemorySegment second = CollectiveTesting.bytes(big);
            Status two = comm.recv(second, big, Datatype.BYTE, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
            bcast.await();
            comm.barrier();
            sentRight.await();

            for (Status s : new Status[] {one, two}) {
                MemorySegment got = s == one ? first : second;
                if (s.tag() == TAG_RIGHT) {
                    assertEquals(left, s.source());
                    assertEquals(big, s.byteCount());
                    assertData(got, 0, 0, big, left, 100 + me, "message from the left at rank " + me);
                } else {
                    assertEquals(TAG_LEFT, s.tag(), "a receive took a message that is not the application's");
                    assertEquals(right, s.source());
                    assertEquals(small, s.byteCount());
                    assertData(got, 0, 0, small, right, 200 + me, "message from the right at rank " + me);
                }
            }
            assertSameBytes(Reductions.reference(count, Datatype.INT, Reductions.MATRIX, 9, 0, ranks - 1), product,
                    "allreduce at rank " + me);
            assertData(data, 0, 0, data.byteSize(), ranks - 1, 8, "ibcast at rank " + me);
            for (int from = 0; from < ranks; from++) {
                assertData(exchanged, from * 64L, 0, 64, from, 1000L * me, "alltoall at rank " + me);
            }
            comm.barrier();
            assertTrue(comm.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG).isEmpty(), "a stray message is left over");
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
                Status s = comm.recv(got, 300 + i, Datatype.BYTE, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                assertEquals(left, s.source());
                assertEquals(300 + i, s.byteCount(), "message " + i + " from the left overtaken");
                assertData(got, 0, 0, 300 + i, left, i, "message " + i + " at rank " + me);
            }
            Request.waitAll(sends);
        });
    }
}
