package org.lockstep.pcie.collective;

import static org.lockstep.pcie.collective.CollectiveTesting.assertData;
import static org.lockstep.pcie.collective.CollectiveTesting.fill;
import static org.lockstep.pcie.collective.CollectiveTesting.fillRange;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.spi.collective.PointToPointCollectives.AllgatherAlgorithm;
import org.lockstep.spi.collective.PointToPointCollectives.AlltoallAlgorithm;

/**
 * Allgather(v) and alltoall(v): every algorithm and rank count, in place, zero and unequal counts
 * with gaps (after MPICH coll/allgather2–3, allgatherv2–4, alltoall1, alltoallv, alltoallv0).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AllgatherAlltoallTest {
    static final int[] RANK_COUNTS = CollectiveTesting.RANK_COUNTS;
    private static final Datatype TYPE = Datatype.FLOAT_INT;
    private static final long SIZE = TYPE.size();

    private static long[] counts(int ranks) {
        return ranks >= 16 ? new long[] {0, 2, 25} : new long[] {0, 1, 3, 90};
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void allgatherGivesEveryRankEveryBlockInRankOrder(int ranks) {
        for (AllgatherAlgorithm algorithm : AllgatherAlgorithm.values()) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.allgather(algorithm), comm -> {
                int me = comm.rank();
                long salt = 0;
                for (long count : counts(ranks)) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        salt++;
                        long block = count * SIZE;
                        Guarded recv = Guarded.of(ranks * block);
                        MemorySegment send = MemorySegment.ofArray(new byte[(int) block]);
                        fill(send, 0, block, me, salt);
                        if (inPlace) {
                            fill(recv.body(), me * block, block, me, salt);
                            send = Communicator.IN_PLACE;
                        } else {
                            send = send.asReadOnly();
                        }
                        comm.allgather(send, count, TYPE, recv.body());
                        String what = algorithm + " allgather of " + count + (inPlace ? " in place" : "") + " at rank " + me;
                        for (int i = 0; i < ranks; i++) {
                            assertData(recv.body(), i * block, 0, block, i, salt, what);
                        }
                        recv.assertGuards(what);
                    }
                }
            });
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void allgathervPlacesUnequalBlocksAndLeavesTheGaps(int ranks) {
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            long salt = 0;
            for (int shift = 0; shift < 3; shift++) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    salt++;
                    GatherScatterTest.Layout layout = GatherScatterTest.Layout.of(ranks, shift);
                    long mine = layout.counts()[me] * SIZE;
                    Guarded recv = Guarded.of(layout.extent() * SIZE);
                    MemorySegment send = MemorySegment.ofArray(new byte[(int) mine]);
                    fill(send, 0, mine, me, salt);
                    if (inPlace) {
                        fill(recv.body(), layout.displacements()[me] * SIZE, mine, me, salt);
                        send = Communicator.IN_PLACE;
                    }
                    comm.allgatherv(send, layout.counts()[me], TYPE, recv.body(), layout.counts(), layout.displacements());
                    String what = "allgatherv shift " + shift + (inPlace ? " in place" : "") + " at rank " + me;
                    for (int i = 0; i < ranks; i++) {
                        assertData(recv.body(), layout.displacements()[i] * SIZE, 0, layout.counts()[i] * SIZE, i, salt, what);
                    }
                    GatherScatterTest.assertGapsUnwritten(recv, layout, SIZE, what);
                }
            }
        });
    }

    /** The data rank {@code from} sends to rank {@code to}: bytes of a case keyed by the pair. */
    private static long pairSalt(long salt, int from, int to, int ranks) {
        return salt * 1_000_003L + (long) from * ranks + to;
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void alltoallDeliversBlockJOfRankIAsBlockIOfRankJ(int ranks) {
        for (AlltoallAlgorithm algorithm : AlltoallAlgorithm.values()) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.alltoall(algorithm), comm -> {
                int me = comm.rank();
                long salt = 0;
                for (long count : counts(ranks)) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        salt++;
                        long block = count * SIZE;
                        Guarded recv = Guarded.of(ranks * block);
                        MemorySegment send = MemorySegment.ofArray(new byte[(int) (ranks * block)]);
                        MemorySegment source = inPlace ? recv.body() : send;
                        for (int to = 0; to < ranks; to++) {
                            fill(source, to * block, block, me, pairSalt(salt, me, to, ranks));
                        }
                        comm.alltoall(inPlace ? Communicator.IN_PLACE : send.asReadOnly(), count, TYPE, recv.body());
                        String what = algorithm + " alltoall of " + count + (inPlace ? " in place" : "") + " at rank " + me;
                        for (int from = 0; from < ranks; from++) {
                            assertData(recv.body(), from * block, 0, block, from, pairSalt(salt, from, me, ranks), what);
                        }
                        recv.assertGuards(what);
                    }
                }
            });
        }
    }

    /** Elements rank {@code from} sends to rank {@code to}: unequal, often zero, the same on both sides. */
    private static long pairCount(int from, int to, int shift) {
        return (from * 3L + to * 5L + shift) % 4;
    }

    private static long symmetricPairCount(int a, int b, int shift) {
        return ((long) a * b + a + b + shift) % 4;
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void alltoallvDeliversUnequalBlocksBetweenScatteredDisplacements(int ranks) {
        for (AlltoallAlgorithm algorithm : new AlltoallAlgorithm[] {AlltoallAlgorithm.ALL_AT_ONCE, AlltoallAlgorithm.PAIRWISE}) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.alltoall(algorithm), comm -> {
                int me = comm.rank();
                long salt = 0;
                for (int shift = 0; shift < 3; shift++) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        salt++;
                        long[] sendCounts = new long[ranks];
                        long[] recvCounts = new long[ranks];
                        long[] sendDispl = new long[ranks];
                        long[] recvDispl = new long[ranks];
                        long sendAt = 2;
                        long recvAt = 1;
                        // receive blocks in reverse order with gaps; send blocks in order, packed
                        for (int j = ranks - 1; j >= 0; j--) {
                            recvCounts[j] = pairCount(j, me, shift);
                            recvDispl[j] = recvAt;
                            recvAt += recvCounts[j] + (j % 2);
                        }
                        for (int j = 0; j < ranks; j++) {
                            sendCounts[j] = pairCount(me, j, shift);
                            sendDispl[j] = sendAt;
                            sendAt += sendCounts[j];
                        }
                        Guarded recv = Guarded.of((recvAt + 1) * SIZE);
                        MemorySegment send = MemorySegment.ofArray(new byte[(int) (sendAt * SIZE)]);
                        if (inPlace) {
                            // in place, a block goes out from where the peer's block arrives: MPI needs symmetric counts
                            for (int j = 0; j < ranks; j++) {
                                recvCounts[j] = symmetricPairCount(me, j, shift);
                            }
                            recvAt = 1;
                            for (int j = ranks - 1; j >= 0; j--) {
                                recvDispl[j] = recvAt;
                                recvAt += recvCounts[j] + (j % 2);
                            }
                            recv = Guarded.of((recvAt + 1) * SIZE);
                            for (int j = 0; j < ranks; j++) {
                                fill(recv.body(), recvDispl[j] * SIZE, recvCounts[j] * SIZE, me, pairSalt(salt, me, j, ranks));
                            }
                        } else {
                            for (int j = 0; j < ranks; j++) {
                                fill(send, sendDispl[j] * SIZE, sendCounts[j] * SIZE, me, pairSalt(salt, me, j, ranks));
                            }
                        }
                        comm.alltoallv(inPlace ? Communicator.IN_PLACE : send, inPlace ? null : sendCounts,
                                inPlace ? null : sendDispl, TYPE, recv.body(), recvCounts, recvDispl);
                        String what = algorithm + " alltoallv shift " + shift + (inPlace ? " in place" : "") + " at rank " + me;
                        for (int from = 0; from < ranks; from++) {
                            assertData(recv.body(), recvDispl[from] * SIZE, 0, recvCounts[from] * SIZE, from,
                                    pairSalt(salt, from, me, ranks), what);
                        }
                        GatherScatterTest.Layout layout = new GatherScatterTest.Layout(recvCounts, recvDispl, recvAt + 1);
                        GatherScatterTest.assertGapsUnwritten(recv, layout, SIZE, what);
                    }
                }
            });
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void ranksMayChooseDifferentAlltoallvAlgorithms(int ranks) {
        // every message of an alltoallv has the same tag, so a rank's choice is its own business
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            long count = 5;
            long block = count * SIZE;
            long[] counts = new long[ranks];
            long[] displ = new long[ranks];
            for (int j = 0; j < ranks; j++) {
                counts[j] = count;
                displ[j] = j * count;
            }
            MemorySegment send = MemorySegment.ofArray(new byte[(int) (ranks * block)]);
            for (int to = 0; to < ranks; to++) {
                fillRange(send, to * block, 0, block, me, pairSalt(1, me, to, ranks));
            }
            MemorySegment recv = MemorySegment.ofArray(new byte[(int) (ranks * block)]);
            ForcedAlgorithms mine = ForcedAlgorithms.alltoall(me % 2 == 0 ? AlltoallAlgorithm.PAIRWISE : AlltoallAlgorithm.ALL_AT_ONCE);
            mine.alltoallv(comm, send, counts, displ, TYPE, recv, counts, displ);
            for (int from = 0; from < ranks; from++) {
                assertData(recv, from * block, 0, block, from, pairSalt(1, from, me, ranks), "mixed alltoallv at " + me);
            }
        });
    }
}
