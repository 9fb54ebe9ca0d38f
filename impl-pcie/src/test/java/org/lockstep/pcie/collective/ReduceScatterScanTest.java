package org.lockstep.pcie.collective;

import static org.lockstep.pcie.collective.CollectiveTesting.assertSameBytes;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.spi.collective.PointToPointCollectives.ReduceScatterAlgorithm;

/**
 * Reduce-scatter (with unequal, zero and equal blocks), scan and exscan against the sequential
 * fold in rank order, with commutative and non-commutative operations and in place (after MPICH
 * coll/redscat*, red_scat_block*, scantst, exscan*, coll10–11).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ReduceScatterScanTest {
    static final int[] RANK_COUNTS = CollectiveTesting.RANK_COUNTS;

    static final List<ReductionTest.Case> CASES = List.of(
            new ReductionTest.Case(Op.SUM, Datatype.INT),
            new ReductionTest.Case(Reductions.MATRIX, Datatype.INT),
            new ReductionTest.Case(Op.MINLOC, Datatype.FLOAT_INT));

    /** Block sizes per rank: unequal, some empty, shifted so each rank sometimes has none. */
    private static long[] blocks(int ranks, int shift) {
        long[] counts = new long[ranks];
        for (int i = 0; i < ranks; i++) {
            counts[i] = (i * 5L + shift) % (ranks >= 16 ? 3 : 7);
        }
        return counts;
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void reduceScatterGivesRankIBlockIOfTheRankOrderReduction(int ranks) {
        for (ReduceScatterAlgorithm algorithm : ReduceScatterAlgorithm.values()) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.reduceScatter(algorithm), comm -> {
                int me = comm.rank();
                long salt = 0;
                for (ReductionTest.Case c : CASES) {
                    long size = c.type().size();
                    for (int shift = 0; shift < 3; shift++) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            salt++;
                            long[] counts = blocks(ranks, shift);
                            long total = 0;
                            long start = 0;
                            for (int i = 0; i < ranks; i++) {
                                if (i < me) {
                                    start += counts[i];
                                }
                                total += counts[i];
                            }
                            MemorySegment send = Reductions.input(total, c.type(), c.op(), me, salt);
                            long resultBytes = counts[me] * size;
                            Guarded recv = Guarded.of(inPlace ? total * size : resultBytes);
                            MemorySegment from = send.asReadOnly();
                            if (inPlace) {
                                MemorySegment.copy(send, 0, recv.body(), 0, total * size);
                                from = Communicator.IN_PLACE;
                            }
                            comm.reduceScatter(from, recv.body(), counts, c.type(), c.op());
                            String what = algorithm + " reduceScatter " + c + " shift " + shift + (inPlace ? " in place" : "")
                                    + " at rank " + me;
                            MemorySegment all = Reductions.reference(total, c.type(), c.op(), salt, 0, ranks - 1);
                            assertSameBytes(all.asSlice(start * size, resultBytes), recv.body().asSlice(0, resultBytes), what);
                            recv.assertGuards(what);
                        }
                    }
                }
            });
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void reduceScatterBlockGivesEqualBlocks(int ranks) {
        for (ReduceScatterAlgorithm algorithm : ReduceScatterAlgorithm.values()) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.reduceScatter(algorithm), comm -> {
                int me = comm.rank();
                long salt = 0;
                for (ReductionTest.Case c : CASES) {
                    long size = c.type().size();
                    for (long block : new long[] {0, 1, 13}) {
                        salt++;
                        long total = block * ranks;
                        MemorySegment send = Reductions.input(total, c.type(), c.op(), me, salt);
                        Guarded recv = Guarded.of(block * size);
                        comm.reduceScatterBlock(send, recv.body(), block, c.type(), c.op());
                        String what = algorithm + " reduceScatterBlock " + c + " of " + block + " at rank " + me;
                        MemorySegment all = Reductions.reference(total, c.type(), c.op(), salt, 0, ranks - 1);
                        assertSameBytes(all.asSlice(me * block * size, block * size), recv.body(), what);
                        recv.assertGuards(what);
                    }
                }
            });
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void scanGivesRankIThePrefixOfRanksZeroToI(int ranks) {
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            long salt = 0;
            for (ReductionTest.Case c : CASES) {
                for (long count : new long[] {0, 1, 7, 300}) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        salt++;
                        long bytes = count * c.type().size();
                        MemorySegment send = Reductions.input(count, c.type(), c.op(), me, salt);
                        Guarded recv = Guarded.of(bytes);
                        MemorySegment from = send.asReadOnly();
                        if (inPlace) {
                            MemorySegment.copy(send, 0, recv.body(), 0, bytes);
                            from = Communicator.IN_PLACE;
                        }
                        comm.scan(from, recv.body(), count, c.type(), c.op());
                        String what = "scan " + c + " of " + count + (inPlace ? " in place" : "") + " at rank " + me;
                        assertSameBytes(Reductions.reference(count, c.type(), c.op(), salt, 0, me), recv.body(), what);
                        recv.assertGuards(what);
                    }
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void exscanGivesRankIThePrefixOfRanksBelowAndLeavesRankZeroAlone(int ranks) {
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            long salt = 0;
            for (ReductionTest.Case c : CASES) {
                for (long count : new long[] {0, 1, 7, 300}) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        salt++;
                        long bytes = count * c.type().size();
                        MemorySegment send = Reductions.input(count, c.type(), c.op(), me, salt);
                        Guarded recv = Guarded.of(bytes);
                        MemorySegment from = send.asReadOnly();
                        if (inPlace) {
                            MemorySegment.copy(send, 0, recv.body(), 0, bytes);
                            from = Communicator.IN_PLACE;
                        }
                        comm.exscan(from, recv.body(), count, c.type(), c.op());
                        String what = "exscan " + c + " of " + count + (inPlace ? " in place" : "") + " at rank " + me;
                        if (me == 0) {
                            if (inPlace) {
                                assertSameBytes(send, recv.body(), what + ": rank 0's buffer changed");
                                recv.assertGuards(what);
                            } else {
                                recv.assertUntouched(what);
                            }
                        } else {
                            assertSameBytes(Reductions.reference(count, c.type(), c.op(), salt, 0, me - 1), recv.body(), what);
                            recv.assertGuards(what);
                        }
                    }
                }
            }
        });
    }
}
