package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.lockstep.pcie.collective.CollectiveTesting.assertSameBytes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.spi.collective.PointToPointCollectives.AllreduceAlgorithm;
import org.lockstep.spi.collective.PointToPointCollectives.ReduceAlgorithm;

/**
 * Reduce and allreduce against the sequential fold in rank order: every algorithm, rank count and
 * root, predefined, user and non-commutative operations, MINLOC/MAXLOC ties, in place, and
 * bit-identical floating-point allreduce (after MPICH coll/allred*, reduce, red3, red4, coll8–9,
 * coll12, op*).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ReductionTest {
    static final int[] RANK_COUNTS = CollectiveTesting.RANK_COUNTS;

    /** An operation on a datatype. */
    record Case(Op op, Datatype type) {
    }

    static final List<Case> CASES = List.of(
            new Case(Op.SUM, Datatype.INT),
            new Case(Reductions.MATRIX, Datatype.INT),
            new Case(Reductions.USER_SUM, Datatype.INT),
            new Case(Op.MAX, Datatype.DOUBLE),
            new Case(Op.MINLOC, Datatype.DOUBLE_INT),
            new Case(Op.MAXLOC, Datatype.LONG_INT));

    private static long[] counts(int ranks) {
        // 1 and 3 are below 2^k for larger p: the long algorithms then have empty blocks
        return ranks >= 16 ? new long[] {0, 1, 40} : new long[] {0, 1, 3, 600};
    }

    /** At 16 ranks (oversubscribed threads are slow) the predefined sum and the non-commutative user operation. */
    private static List<Case> cases(int ranks) {
        return ranks >= 16 ? CASES.subList(0, 2) : CASES;
    }

    /** Every root for the predefined sum and the non-commutative operation; the first, middle and last for the others. */
    private static int[] roots(Case c, int ranks) {
        if (CASES.indexOf(c) < 2) {
            return java.util.stream.IntStream.range(0, ranks).toArray();
        }
        return java.util.stream.IntStream.of(0, ranks / 2, ranks - 1).distinct().toArray();
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void reduceCombinesInRankOrderAtEveryRootWithEveryAlgorithm(int ranks) {
        for (ReduceAlgorithm algorithm : ReduceAlgorithm.values()) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.reduce(algorithm), comm -> {
                int me = comm.rank();
                long salt = 0;
                for (Case c : cases(ranks)) {
                    for (long count : counts(ranks)) {
                        salt++;
                        long bytes = count * c.type().size();
                        MemorySegment send = Reductions.input(count, c.type(), c.op(), me, salt).asReadOnly();
                        MemorySegment expected = Reductions.reference(count, c.type(), c.op(), salt, 0, ranks - 1);
                        for (int root : roots(c, ranks)) {
                            for (boolean inPlace : new boolean[] {false, true}) {
                                Guarded recv = Guarded.of(bytes);
                                MemorySegment from = send;
                                if (inPlace && me == root) {
                                    MemorySegment.copy(send, 0, recv.body(), 0, bytes);
                                    from = Communicator.IN_PLACE;
                                }
                                comm.reduce(from, recv.body(), count, c.type(), c.op(), root);
                                String what = algorithm + " reduce " + c + " of " + count + " to " + root
                                        + (inPlace ? " in place" : "") + " at rank " + me;
                                if (me == root) {
                                    assertSameBytes(expected, recv.body(), what);
                                    recv.assertGuards(what);
                                } else {
                                    recv.assertUntouched(what + " (not the root)");
                                }
                            }
                        }
                    }
                }
            });
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void allreduceGivesEveryRankTheRankOrderResultWithEveryAlgorithm(int ranks) {
        for (AllreduceAlgorithm algorithm : AllreduceAlgorithm.values()) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.allreduce(algorithm), comm -> {
                int me = comm.rank();
                long salt = 0;
                for (Case c : cases(ranks)) {
                    for (long count : counts(ranks)) {
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
                            comm.allreduce(from, recv.body(), count, c.type(), c.op());
                            String what = algorithm + " allreduce " + c + " of " + count + (inPlace ? " in place" : "")
                                    + " at rank " + me;
                            assertSameBytes(Reductions.reference(count, c.type(), c.op(), salt, 0, ranks - 1), recv.body(), what);
                            recv.assertGuards(what);
                        }
                    }
                }
            });
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {3, 4})
    void everyPredefinedOperationOnEveryTypeItSupports(int ranks) {
        // counts below and above the allreduce threshold, so both default algorithms run
        long[] counts = {5, 700};
        List<Op> ops = List.of(Op.MAX, Op.MIN, Op.SUM, Op.PROD, Op.LAND, Op.LOR, Op.LXOR, Op.BAND, Op.BOR, Op.BXOR,
                Op.MINLOC, Op.MAXLOC);
        CollectiveTesting.run(ranks, comm -> {
            long salt = 0;
            for (Op op : ops) {
                for (Datatype type : Datatype.predefined()) {
                    if (!op.supports(type)) {
                        continue;
                    }
                    for (long count : counts) {
                        salt++;
                        MemorySegment send = Reductions.input(count, type, op, comm.rank(), salt);
                        MemorySegment recv = CollectiveTesting.bytes(count * type.size());
                        comm.allreduce(send, recv, count, type, op);
                        assertSameBytes(Reductions.reference(count, type, op, salt, 0, ranks - 1), recv,
                                op + " on " + type + " of " + count + " at rank " + comm.rank());
                        int root = (int) (salt % ranks);
                        MemorySegment atRoot = CollectiveTesting.bytes(count * type.size());
                        comm.reduce(send, atRoot, count, type, op, root);
                        if (comm.rank() == root) {
                            assertSameBytes(recv, atRoot, "reduce " + op + " on " + type + " to " + root);
                        }
                    }
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 5, 7, 8, 16})
    void floatingPointAllreduceIsBitIdenticalOnEveryRank(int ranks) {
        // full-precision values of mixed magnitude: the sum depends on the bracketing, which must be the same everywhere
        long[] counts = {1, 9, 3000};
        for (AllreduceAlgorithm algorithm : AllreduceAlgorithm.values()) {
            AtomicReferenceArray<byte[]> results = new AtomicReferenceArray<>(ranks * counts.length * 2);
            CollectiveTesting.run(ranks, ForcedAlgorithms.allreduce(algorithm), comm -> {
                int me = comm.rank();
                for (int k = 0; k < counts.length; k++) {
                    long count = counts[k];
                    MemorySegment send = CollectiveTesting.bytes(count * Double.BYTES);
                    for (long i = 0; i < count; i++) {
                        long bits = CollectiveTesting.mix(me * 1_000_003L + i);
                        double value = (bits >>> 11) * 0x1.0p-53 * Math.pow(10, (int) (bits % 13) - 6) * (bits % 2 == 0 ? 1 : -1);
                        send.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, i * Double.BYTES, value);
                    }
                    MemorySegment sum = CollectiveTesting.bytes(count * Double.BYTES);
                    comm.allreduce(send, sum, count, Datatype.DOUBLE, Op.SUM);
                    results.set((k * 2) * ranks + me, sum.toArray(ValueLayout.JAVA_BYTE));
                    MemorySegment product = CollectiveTesting.bytes(count * Double.BYTES);
                    comm.allreduce(send, product, count, Datatype.DOUBLE, Op.PROD);
                    results.set((k * 2 + 1) * ranks + me, product.toArray(ValueLayout.JAVA_BYTE));
                }
            });
            for (int c = 0; c < counts.length * 2; c++) {
                byte[] first = results.get(c * ranks);
                assertNotNull(first);
                for (int r = 1; r < ranks; r++) {
                    assertArrayEquals(first, results.get(c * ranks + r), algorithm + " case " + c + ": rank " + r
                            + " differs from rank 0");
                }
            }
        }
    }
}
