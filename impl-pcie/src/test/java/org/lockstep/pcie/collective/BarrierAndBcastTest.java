package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.collective.CollectiveTesting.assertData;
import static org.lockstep.pcie.collective.CollectiveTesting.fill;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lockstep.api.Datatype;
import org.lockstep.spi.collective.PointToPointCollectives;
import org.lockstep.spi.collective.PointToPointCollectives.BcastAlgorithm;

/** Barrier and broadcast, every algorithm, rank count and root (after MPICH coll/barrier*, bcast*). */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BarrierAndBcastTest {
    static final int[] RANK_COUNTS = CollectiveTesting.RANK_COUNTS;

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void noRankLeavesABarrierBeforeEveryRankHasEnteredIt(int ranks) {
        int rounds = 20;
        AtomicIntegerArray entered = new AtomicIntegerArray(rounds);
        CollectiveTesting.run(ranks, comm -> {
            for (int round = 0; round < rounds; round++) {
                // late arrivers differ per round, so that every rank is sometimes the last
                if ((round + comm.rank()) % ranks == 0) {
                    arriveLate();
                }
                entered.incrementAndGet(round);
                comm.barrier();
                assertEquals(ranks, entered.get(round), "rank " + comm.rank() + " left barrier " + round + " early");
            }
        });
    }

    /** Keeps the calling rank busy for a while, so that the others reach the barrier first. */
    private static void arriveLate() {
        long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(300);
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    /** Element counts around the chunking of the long broadcast: empty chunks, uneven last chunk, many chunks. */
    private static long[] counts(int ranks) {
        return ranks >= 16 ? new long[] {0, 1, 17, 1100} : new long[] {0, 1, ranks - 1L, ranks + 1L, 3L * ranks + 2, 1100};
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void everyAlgorithmBroadcastsFromEveryRootIntoEveryRankAndNowhereElse(int ranks) {
        // LONG_INT is 12 bytes: counts are in elements, and chunks of the long algorithm cut through elements
        Datatype type = Datatype.LONG_INT;
        for (BcastAlgorithm algorithm : BcastAlgorithm.values()) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.bcast(algorithm), comm -> {
                long salt = 0;
                for (int root = 0; root < ranks; root++) {
                    for (long count : counts(ranks)) {
                        salt++;
                        long bytes = count * type.size();
                        Guarded buffer = Guarded.of(bytes);
                        if (comm.rank() == root) {
                            fill(buffer.body(), 0, bytes, root, salt);
                        }
                        comm.bcast(buffer.body(), count, type, root);
                        String what = algorithm + " bcast of " + count + " from root " + root + " at rank " + comm.rank();
                        assertData(buffer.body(), 0, 0, bytes, root, salt, what);
                        buffer.assertGuards(what);
                    }
                }
            });
        }
    }

    @Test
    void theRootsBufferMayBeReadOnlyForEveryAlgorithm() {
        int ranks = 8;
        for (BcastAlgorithm algorithm : BcastAlgorithm.values()) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.bcast(algorithm), comm -> {
                int root = 3;
                long bytes = 5000;
                MemorySegment buffer = MemorySegment.ofArray(new byte[(int) bytes]);
                if (comm.rank() == root) {
                    fill(buffer, 0, bytes, root, 7);
                    buffer = buffer.asReadOnly();
                }
                comm.bcast(buffer, bytes, Datatype.BYTE, root);
                assertData(buffer, 0, 0, bytes, root, 7, algorithm + " at rank " + comm.rank());
            });
        }
    }

    @Test
    void defaultChoiceSwitchesToScatterAllgatherForLongMessagesOnEnoughRanks() {
        ChoiceProbe probe = new ChoiceProbe();
        assertEquals(BcastAlgorithm.BINOMIAL, probe.bcast(PointToPointCollectives.BCAST_SCATTER_MIN_RANKS, 8));
        assertEquals(BcastAlgorithm.BINOMIAL, probe.bcast(4, 1 << 20));
        assertEquals(BcastAlgorithm.SCATTER_RING_ALLGATHER,
                probe.bcast(PointToPointCollectives.BCAST_SCATTER_MIN_RANKS, PointToPointCollectives.BCAST_SHORT_BYTES));
        assertTrue(PointToPointCollectives.BCAST_SHORT_BYTES > 0);
    }

    /** Exposes the protected choices of the default engine. */
    static final class ChoiceProbe extends PointToPointCollectives {
        BcastAlgorithm bcast(int ranks, long bytes) {
            return bcastAlgorithm(ranks, bytes);
        }
    }
}
