package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.lockstep.pcie.collective.CollectiveTesting.assertData;
import static org.lockstep.pcie.collective.CollectiveTesting.assertSameBytes;
import static org.lockstep.pcie.collective.CollectiveTesting.fill;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * Collectives on duplicated and split communicators: ranks and roots are those of the new
 * communicator, non-commutative operations follow its rank order, and collectives in flight on
 * several communicators at once never mix (after MPICH coll/* run over the MTest communicators,
 * comm/dup, comm/ctxsplit, nonblocking3).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CommunicatorCollectivesTest {

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 5, 8})
    void collectivesOnASplitFollowItsRankOrderNotTheWorlds(int ranks) {
        CollectiveTesting.run(ranks, world -> {
            int color = world.rank() % 2;
            // reversed key: the new rank order is the opposite of the world's
            Communicator half = world.split(color, -world.rank());
            int n = half.size();
            int me = half.rank();
            long count = 300;
            // inputs are keyed by the rank in the new communicator, and by color
            MemorySegment send = Reductions.input(count, Datatype.INT, Reductions.MATRIX, me, 40 + color);
            MemorySegment product = CollectiveTesting.bytes(count * Integer.BYTES);
            half.allreduce(send, product, count, Datatype.INT, Reductions.MATRIX);
            assertSameBytes(Reductions.reference(count, Datatype.INT, Reductions.MATRIX, 40 + color, 0, n - 1), product,
                    "allreduce on color " + color + " at rank " + me);
            MemorySegment prefix = CollectiveTesting.bytes(count * Integer.BYTES);
            half.scan(send, prefix, count, Datatype.INT, Reductions.MATRIX);
            assertSameBytes(Reductions.reference(count, Datatype.INT, Reductions.MATRIX, 40 + color, 0, me), prefix,
                    "scan on color " + color + " at rank " + me);
            int root = n - 1;
            MemorySegment data = CollectiveTesting.bytes(5000);
            if (me == root) {
                fill(data, 0, data.byteSize(), root, 50 + color);
            }
            half.bcast(data, data.byteSize(), Datatype.BYTE, root);
            assertData(data, 0, 0, data.byteSize(), root, 50 + color, "bcast on color " + color + " at rank " + me);
            MemorySegment mine = MemorySegment.ofArray(new int[] {world.rank()});
            MemorySegment worldRanks = CollectiveTesting.bytes((long) n * Integer.BYTES);
            half.allgather(mine, 1, Datatype.INT, worldRanks);
            for (int i = 0; i < n; i++) {
                // new rank i is the i-th highest world rank of this color
                int expected = color + 2 * ((ranks - 1 - color) / 2 - i);
                assertEquals(expected, worldRanks.get(ValueLayout.JAVA_INT_UNALIGNED, (long) i * Integer.BYTES),
                        "allgather slot " + i + " on color " + color);
            }
            half.close();
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {3, 4, 7})
    void nonBlockingCollectivesOnSeveralCommunicatorsRunAtOnceInAnyOrder(int ranks) {
        CollectiveTesting.run(ranks, world -> {
            Communicator copy = world.dup();
            Communicator odd = world.split(world.rank() % 2 == 1 ? 1 : Communicator.UNDEFINED, 0);
            if (world.rank() % 2 == 0) {
                assertNull(odd);
            }
            long count = 800;
            int me = world.rank();
            // the same kind of collective with the same shape on two communicators at once
            MemorySegment worldSend = Reductions.input(count, Datatype.INT, Reductions.MATRIX, me, 61);
            MemorySegment copySend = Reductions.input(count, Datatype.INT, Reductions.MATRIX, me, 62);
            MemorySegment worldResult = CollectiveTesting.bytes(count * Integer.BYTES);
            MemorySegment copyResult = CollectiveTesting.bytes(count * Integer.BYTES);
            MemorySegment data = CollectiveTesting.bytes(3000);
            if (me == 0) {
                fill(data, 0, data.byteSize(), 0, 63);
            }
            Request onWorld = world.iallreduce(worldSend, worldResult, count, Datatype.INT, Reductions.MATRIX);
            Request onCopy = copy.iallreduce(copySend, copyResult, count, Datatype.INT, Reductions.MATRIX);
            Request bcast = copy.ibcast(data, data.byteSize(), Datatype.BYTE, 0);
            Request barrier = odd != null ? odd.ibarrier() : null;
            MemorySegment oddSum = CollectiveTesting.bytes(Integer.BYTES);
            if (odd != null) {
                // a blocking collective on a third communicator while the others are pending
                odd.allreduce(MemorySegment.ofArray(new int[] {me}), oddSum, 1, Datatype.INT, Op.SUM);
            }
            Request[] all = me % 2 == 0 ? new Request[] {onCopy, bcast, onWorld, barrier}
                    : new Request[] {barrier, onWorld, bcast, onCopy};
            for (Request r : all) {
                if (r != null) {
                    r.await();
                }
            }
            assertSameBytes(Reductions.reference(count, Datatype.INT, Reductions.MATRIX, 61, 0, ranks - 1), worldResult,
                    "world iallreduce at " + me);
            assertSameBytes(Reductions.reference(count, Datatype.INT, Reductions.MATRIX, 62, 0, ranks - 1), copyResult,
                    "duplicate's iallreduce at " + me);
            assertData(data, 0, 0, data.byteSize(), 0, 63, "ibcast on the duplicate at " + me);
            if (odd != null) {
                int expected = 0;
                for (int r = 1; r < ranks; r += 2) {
                    expected += r;
                }
                assertEquals(expected, oddSum.get(ValueLayout.JAVA_INT_UNALIGNED, 0), "allreduce on the odd ranks");
                odd.close();
            }
            copy.close();
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4, 5})
    void pointToPointWithWildcardsOnTheWorldRunsBesideCollectivesOnADuplicate(int ranks) {
        CollectiveTesting.run(ranks, world -> {
            Communicator copy = world.dup();
            int me = world.rank();
            int right = (me + 1) % ranks;
            MemorySegment incoming = CollectiveTesting.bytes(2000);
            Request anything = world.irecv(incoming, incoming.byteSize(), Datatype.BYTE, Communicator.ANY_SOURCE,
                    Communicator.ANY_TAG);
            long count = 600;
            MemorySegment send = Reductions.input(count, Datatype.INT, Op.SUM, me, 70);
            MemorySegment sum = CollectiveTesting.bytes(count * Integer.BYTES);
            Request reduction = copy.iallreduce(send, sum, count, Datatype.INT, Op.SUM);
            world.send(CollectiveTesting.pattern(me, 2000, 71), 2000, Datatype.BYTE, right, 9);
            copy.barrier();
            Status s = anything.await();
            reduction.await();
            assertEquals((me + ranks - 1) % ranks, s.source());
            assertEquals(9, s.tag());
            assertData(incoming, 0, 0, 2000, s.source(), 71, "world message at " + me);
            assertSameBytes(Reductions.reference(count, Datatype.INT, Op.SUM, 70, 0, ranks - 1), sum, "iallreduce at " + me);
            copy.close();
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 3})
    void everyCollectiveWorksOnACommunicatorOfOneRank(int ranks) {
        CollectiveTesting.run(ranks, world -> {
            Communicator alone = world.split(world.rank(), 0);
            assertEquals(1, alone.size());
            MemorySegment in = MemorySegment.ofArray(new int[] {world.rank() + 5, 7});
            MemorySegment out = CollectiveTesting.bytes(8);
            alone.allreduce(in, out, 2, Datatype.INT, Reductions.MATRIX);
            assertSameBytes(in, out, "allreduce of one rank");
            out.fill((byte) 0);
            alone.reduceScatterBlock(in, out, 2, Datatype.INT, Op.SUM);
            assertSameBytes(in, out, "reduceScatterBlock of one rank");
            out.fill((byte) 0);
            alone.alltoall(in, 2, Datatype.INT, out);
            assertSameBytes(in, out, "alltoall of one rank");
            MemorySegment untouched = CollectiveTesting.bytes(8);
            alone.exscan(in, untouched, 2, Datatype.INT, Op.SUM);
            assertSameBytes(CollectiveTesting.bytes(8), untouched, "exscan of one rank writes nothing");
            alone.barrier();
            alone.ibarrier().await();
            alone.close();
        });
    }
}
