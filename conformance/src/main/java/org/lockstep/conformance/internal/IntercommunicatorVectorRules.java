package org.lockstep.conformance.internal;

import static org.lockstep.api.Communicator.PROC_NULL;
import static org.lockstep.conformance.Group.COMM;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.expectError;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.Op;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.run.RankContext;

/**
 * COMM.08: the vector collectives and reduce_scatter across an intercommunicator (MPI 4.1
 * §6.2.2), between groups of 2 and 3 ranks, so that a count indexed by the wrong group's ranks
 * moves the wrong number of blocks; displacements run backwards, so that blocks laid one after the
 * other show. Every result is checked after every rank's last collective call: a failed check
 * leaves no rank waiting.
 */
final class IntercommunicatorVectorRules {
    private IntercommunicatorVectorRules() {
    }

    static List<Rule> rules() {
        return List.of(messaging(COMM, 8, REQUIRED, "intercommunicatorVectorCollectives",
                "Across an intercommunicator of 2 and 3 ranks, gatherv, scatterv, allgatherv, alltoallv and alltoallw place each remote"
                        + " rank's block by its count and displacement (indexed by remote rank), reduce_scatter and reduce_scatter_block"
                        + " give each local rank its block of the other group's reduction, and IN_PLACE is a BUFFER error.",
                List.of(standard("§6.2.2 intercommunicator collective operations"), standard("§6.11.2 MPI_Reduce_scatter on an"
                        + " intercommunicator"), mpich("coll/icgatherv.c"), mpich("coll/icscatterv.c"), mpich("coll/icallgatherv.c"),
                        mpich("coll/icalltoallv.c"), mpich("coll/icalltoallw.c"), mpich("coll/icredscat.c")),
                IntercommunicatorVectorRules::vectorCollectives));
    }

    /** Backward displacements of blocks of {@code counts}: the last block first. */
    private static long[] backwards(long[] counts) {
        long[] displacements = new long[counts.length];
        long at = 0;
        for (int j = counts.length - 1; j >= 0; j--) {
            displacements[j] = at;
            at += counts[j];
        }
        return displacements;
    }

    private static long[] counts(int n, java.util.function.IntToLongFunction count) {
        long[] c = new long[n];
        for (int j = 0; j < n; j++) {
            c[j] = count.applyAsLong(j);
        }
        return c;
    }

    private static void vectorCollectives(MessagingRuleContext c) {
        c.runClean(5, "vector collectives across groups of 2 and 3 ranks", IntercommunicatorVectorRules::acrossUnevenGroups);
    }

    private static void acrossUnevenGroups(RankContext rank) {
        Communicator w = rank.comm();
        boolean inA = w.rank() < 2;
        Communicator half = w.split(inA ? 0 : 1, w.rank());
        Intercommunicator ic = half.createIntercommunicator(0, w, inA ? 2 : 0, 8);
        int me = ic.rank();
        int remote = ic.remoteSize();
        int[] remoteWorld = inA ? new int[] {2, 3, 4} : new int[] {0, 1};
        // gatherv at A's rank 1: B's rank j sends j + 1 ints, 100 * world + k
        long[] gvCounts = counts(3, j -> j + 1);
        long[] gvDispls = backwards(gvCounts);
        long[] gathered = new long[6];
        long[] mine = new long[me + 1];
        for (int k = 0; k <= me; k++) {
            mine[k] = 100L * w.rank() + k;
        }
        ic.gatherv(MemorySegment.ofArray(mine), me + 1, Datatype.LONG, MemorySegment.ofArray(gathered), gvCounts, gvDispls,
                inA ? (me == 1 ? Intercommunicator.ROOT : PROC_NULL) : 1);
        // scatterv from B's rank 0 to A: A's rank i gets 2 - i ints at backward displacements
        long[] svCounts = counts(2, i -> 2 - i);
        long[] scattered = new long[2];
        ic.scatterv(MemorySegment.ofArray(new long[] {70, 71, 72}), svCounts, backwards(svCounts), Datatype.LONG,
                MemorySegment.ofArray(scattered), inA ? 2 - me : 0, inA ? 0 : me == 0 ? Intercommunicator.ROOT : PROC_NULL);
        // allgatherv: every rank sends me + 1 values; remote rank j's block has j + 1
        long[] agCounts = counts(remote, j -> j + 1);
        long[] allgathered = new long[Arrays.stream(agCounts).mapToInt(Math::toIntExact).sum()];
        ic.allgatherv(MemorySegment.ofArray(mine), me + 1, Datatype.LONG, MemorySegment.ofArray(allgathered), agCounts,
                backwards(agCounts));
        // alltoallv: j + 1 values to remote rank j; me + 1 from every remote rank
        long[] toCounts = counts(remote, j -> j + 1);
        long[] out = new long[(int) Arrays.stream(toCounts).sum()];
        long[] toDispls = backwards(toCounts);
        for (int j = 0; j < remote; j++) {
            for (int k = 0; k <= j; k++) {
                out[(int) toDispls[j] + k] = 1000L * w.rank() + 10L * j + k;
            }
        }
        long[] fromCounts = counts(remote, j -> me + 1);
        long[] fromDispls = backwards(fromCounts);
        long[] in = new long[(me + 1) * remote];
        ic.alltoallv(MemorySegment.ofArray(out), toCounts, toDispls, Datatype.LONG, MemorySegment.ofArray(in), fromCounts, fromDispls);
        // alltoallw: the same blocks, byte displacements
        long[] inW = new long[in.length];
        Datatype[] types = new Datatype[remote];
        Arrays.fill(types, Datatype.LONG);
        ic.alltoallw(MemorySegment.ofArray(out), toCounts, Arrays.stream(toDispls).map(d -> d * Long.BYTES).toArray(), types,
                MemorySegment.ofArray(inW), fromCounts, Arrays.stream(fromDispls).map(d -> d * Long.BYTES).toArray(), types);
        // reduce_scatter: A's counts [1, 2], B's [1, 1, 1]: 3 elements, (world + 1) * (k + 1)
        long[] vector = {w.rank() + 1L, 2L * (w.rank() + 1), 3L * (w.rank() + 1)};
        long[] rsCounts = inA ? new long[] {1, 2} : new long[] {1, 1, 1};
        long[] reduced = new long[2];
        ic.reduceScatter(MemorySegment.ofArray(vector), MemorySegment.ofArray(reduced), rsCounts, Datatype.LONG, Op.SUM);
        // reduce_scatter_block: 6 elements, 3 a rank in A, 2 in B
        long[] six = new long[6];
        for (int k = 0; k < 6; k++) {
            six[k] = (w.rank() + 1L) * (k + 1);
        }
        long[] block = new long[3];
        ic.reduceScatterBlock(MemorySegment.ofArray(six), MemorySegment.ofArray(block), inA ? 3 : 2, Datatype.LONG, Op.SUM);
        expectError(ErrorClass.BUFFER, "allgatherv with IN_PLACE across an intercommunicator", () -> ic.allgatherv(
                Communicator.IN_PLACE, 1, Datatype.LONG, MemorySegment.ofArray(allgathered), agCounts, backwards(agCounts)));
        ic.close();
        half.close();

        if (inA && me == 1) {
            for (int j = 0; j < 3; j++) {
                for (int k = 0; k <= j; k++) {
                    checkEquals(100L * remoteWorld[j] + k, gathered[(int) gvDispls[j] + k], "gatherv: value " + k
                            + " of remote rank " + j + "'s block at displacement " + gvDispls[j]);
                }
            }
        }
        if (inA) {
            long[] expected = me == 0 ? new long[] {71, 72} : new long[] {70};
            checkEquals(Arrays.toString(expected), Arrays.toString(Arrays.copyOf(scattered, 2 - me)), "scatterv block of A's rank " + me);
        }
        long[] agDispls = backwards(agCounts);
        for (int j = 0; j < remote; j++) {
            for (int k = 0; k <= j; k++) {
                checkEquals(100L * remoteWorld[j] + k, allgathered[(int) agDispls[j] + k], "allgatherv at " + (inA ? "A" : "B")
                        + "'s rank " + me + ": value " + k + " of remote rank " + j);
            }
            for (int k = 0; k <= me; k++) {
                long want = 1000L * remoteWorld[j] + 10L * me + k;
                checkEquals(want, in[(int) fromDispls[j] + k], "alltoallv at rank " + me + ": value " + k + " from remote rank " + j);
                checkEquals(want, inW[(int) fromDispls[j] + k], "alltoallw at rank " + me + ": value " + k + " from remote rank " + j);
            }
        }
        // the other group's sum of (world + 1): A sees B's 3 + 4 + 5 = 12, B sees A's 1 + 2 = 3
        long otherSum = inA ? 12 : 3;
        long first = inA ? (me == 0 ? 0 : 1) : me;
        for (int k = 0; k < rsCounts[me]; k++) {
            checkEquals(otherSum * (first + k + 1), reduced[k], "reduce_scatter at rank " + me + ", element " + k);
        }
        int per = inA ? 3 : 2;
        for (int k = 0; k < per; k++) {
            checkEquals(otherSum * (per * me + k + 1), block[k], "reduce_scatter_block at rank " + me + ", element " + k);
        }
    }
}
