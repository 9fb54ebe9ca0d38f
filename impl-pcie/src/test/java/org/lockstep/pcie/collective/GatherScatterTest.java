package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.lockstep.spi.collective.PointToPointCollectives.RootedAlgorithm;

/**
 * Gather, scatter and their v-variants: every algorithm, rank count and root, in place, zero and
 * unequal counts, gaps in the layout (after MPICH coll/coll2–5, gather2, scattern, scatterv).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class GatherScatterTest {
    static final int[] RANK_COUNTS = CollectiveTesting.RANK_COUNTS;
    /** 12-byte elements: displacements and counts are in elements, not bytes. */
    private static final Datatype TYPE = Datatype.DOUBLE_INT;
    private static final long SIZE = TYPE.size();

    private static long[] counts(int ranks) {
        return ranks >= 16 ? new long[] {0, 3} : new long[] {0, 1, 5, 200};
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void gatherCollectsEveryRanksBlockInRankOrderAtEveryRoot(int ranks) {
        for (RootedAlgorithm algorithm : RootedAlgorithm.values()) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.rooted(algorithm), comm -> {
                int me = comm.rank();
                long salt = 0;
                for (int root = 0; root < ranks; root++) {
                    for (long count : counts(ranks)) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            salt++;
                            long block = count * SIZE;
                            Guarded recv = Guarded.of(ranks * block);
                            MemorySegment send = MemorySegment.ofArray(new byte[(int) block]);
                            fill(send, 0, block, me, salt);
                            if (inPlace && me == root) {
                                fill(recv.body(), me * block, block, me, salt);
                                send = Communicator.IN_PLACE;
                            }
                            comm.gather(send, count, TYPE, recv.body(), root);
                            String what = algorithm + " gather of " + count + " to " + root + (inPlace ? " in place" : "")
                                    + " at rank " + me;
                            if (me == root) {
                                for (int i = 0; i < ranks; i++) {
                                    assertData(recv.body(), i * block, 0, block, i, salt, what);
                                }
                                recv.assertGuards(what);
                            } else {
                                recv.assertUntouched(what + " (not the root)");
                            }
                        }
                    }
                }
            });
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void scatterDealsTheRootsBlocksInRankOrderAtEveryRoot(int ranks) {
        for (RootedAlgorithm algorithm : RootedAlgorithm.values()) {
            CollectiveTesting.run(ranks, ForcedAlgorithms.rooted(algorithm), comm -> {
                int me = comm.rank();
                long salt = 0;
                for (int root = 0; root < ranks; root++) {
                    for (long count : counts(ranks)) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            salt++;
                            long block = count * SIZE;
                            MemorySegment send = null;
                            if (me == root) {
                                // block i of the root's buffer is rank i's data
                                MemorySegment writable = MemorySegment.ofArray(new byte[(int) (ranks * block)]);
                                for (int i = 0; i < ranks; i++) {
                                    fill(writable, i * block, block, i, salt);
                                }
                                // scatter only reads the root's buffer
                                send = writable.asReadOnly();
                            }
                            Guarded recv = Guarded.of(block);
                            MemorySegment into = inPlace && me == root ? Communicator.IN_PLACE : recv.body();
                            comm.scatter(send, count, TYPE, into, root);
                            String what = algorithm + " scatter of " + count + " from " + root + (inPlace ? " in place" : "")
                                    + " at rank " + me;
                            if (into == Communicator.IN_PLACE) {
                                recv.assertUntouched(what);
                                for (int i = 0; i < ranks; i++) {
                                    assertData(send, i * block, 0, block, i, salt, what + ": root's send buffer");
                                }
                            } else {
                                assertData(recv.body(), 0, 0, block, me, salt, what);
                                recv.assertGuards(what);
                            }
                        }
                    }
                }
            });
        }
    }

    /**
     * A layout with unequal and zero counts and gaps: rank i's block has (i * 7 + shift) % 5 elements
     * (so some are empty), blocks are placed in reverse rank order with a gap of i % 3 elements.
     */
    record Layout(long[] counts, long[] displacements, long extent) {
        static Layout of(int ranks, int shift) {
            long[] counts = new long[ranks];
            long[] displacements = new long[ranks];
            long at = 1;
            for (int i = ranks - 1; i >= 0; i--) {
                counts[i] = (i * 7L + shift) % 5;
                displacements[i] = at;
                at += counts[i] + i % 3;
            }
            return new Layout(counts, displacements, at + 2);
        }

        /** Whether element e is inside some block. */
        boolean covered(long e) {
            for (int i = 0; i < counts.length; i++) {
                if (e >= displacements[i] && e < displacements[i] + counts[i]) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Fails if an element outside every block was written. */
    static void assertGapsUnwritten(Guarded buffer, Layout layout, long elementSize, String what) {
        for (long e = 0; e < layout.extent(); e++) {
            if (!layout.covered(e)) {
                buffer.assertUnwritten(e * elementSize, (e + 1) * elementSize, what + " (gap element " + e + ")");
            }
        }
        buffer.assertGuards(what);
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void gathervPlacesUnequalBlocksAtTheirDisplacementsAndLeavesTheGaps(int ranks) {
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            long salt = 0;
            for (int root = 0; root < ranks; root++) {
                for (int shift = 0; shift < 2; shift++) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        salt++;
                        Layout layout = Layout.of(ranks, shift + root);
                        long mine = layout.counts()[me] * SIZE;
                        MemorySegment send = MemorySegment.ofArray(new byte[(int) mine]);
                        fill(send, 0, mine, me, salt);
                        Guarded recv = Guarded.of(layout.extent() * SIZE);
                        if (inPlace && me == root) {
                            fill(recv.body(), layout.displacements()[me] * SIZE, mine, me, salt);
                            send = Communicator.IN_PLACE;
                        }
                        boolean isRoot = me == root;
                        comm.gatherv(send, layout.counts()[me], TYPE, recv.body(), isRoot ? layout.counts() : null,
                                isRoot ? layout.displacements() : null, root);
                        String what = "gatherv to " + root + " shift " + shift + (inPlace ? " in place" : "") + " at rank " + me;
                        if (isRoot) {
                            for (int i = 0; i < ranks; i++) {
                                assertData(recv.body(), layout.displacements()[i] * SIZE, 0, layout.counts()[i] * SIZE, i,
                                        salt, what);
                            }
                            assertGapsUnwritten(recv, layout, SIZE, what);
                        } else {
                            recv.assertUntouched(what + " (not the root)");
                        }
                    }
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void scattervDealsUnequalBlocksFromTheirDisplacements(int ranks) {
        CollectiveTesting.run(ranks, comm -> {
            int me = comm.rank();
            long salt = 0;
            for (int root = 0; root < ranks; root++) {
                for (int shift = 0; shift < 2; shift++) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        salt++;
                        Layout layout = Layout.of(ranks, shift + root);
                        boolean isRoot = me == root;
                        MemorySegment send = null;
                        if (isRoot) {
                            send = MemorySegment.ofArray(new byte[(int) (layout.extent() * SIZE)]);
                            for (int i = 0; i < ranks; i++) {
                                fill(send, layout.displacements()[i] * SIZE, layout.counts()[i] * SIZE, i, salt);
                            }
                        }
                        long mine = layout.counts()[me] * SIZE;
                        Guarded recv = Guarded.of(mine + 2 * SIZE);
                        MemorySegment into = inPlace && isRoot ? Communicator.IN_PLACE : recv.body();
                        comm.scatterv(send, isRoot ? layout.counts() : null, isRoot ? layout.displacements() : null, TYPE,
                                into, layout.counts()[me], root);
                        String what = "scatterv from " + root + " shift " + shift + (inPlace ? " in place" : "")
                                + " at rank " + me;
                        if (into == Communicator.IN_PLACE) {
                            recv.assertUntouched(what);
                        } else {
                            assertData(recv.body(), 0, 0, mine, me, salt, what);
                            recv.assertUnwritten(mine, mine + 2 * SIZE, what + " (beyond the count)");
                            recv.assertGuards(what);
                        }
                    }
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @FieldSource("RANK_COUNTS")
    void gatherAfterScatterRestoresTheRootsBuffer(int ranks) {
        // the round trip of MPICH's coll/scattern + gather: scatter then gather returns the same bytes
        CollectiveTesting.run(ranks, comm -> {
            int root = ranks - 1;
            long count = 33;
            long block = count * SIZE;
            MemorySegment original = MemorySegment.ofArray(new byte[(int) (ranks * block)]);
            fillRange(original, 0, 0, ranks * block, root, 99);
            MemorySegment mine = MemorySegment.ofArray(new byte[(int) block]);
            comm.scatter(comm.rank() == root ? original : null, count, TYPE, mine, root);
            MemorySegment back = MemorySegment.ofArray(new byte[(int) (ranks * block)]);
            comm.gather(mine, count, TYPE, comm.rank() == root ? back : null, root);
            if (comm.rank() == root) {
                assertEquals(-1, original.mismatch(back), "scatter then gather changed the data");
            }
        });
    }
}
