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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.Op;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.run.RankContext;

/**
 * COMM.10: the non-blocking collectives across an intercommunicator (MPI 4.1 §6.12), between
 * groups of 2 and 3 ranks: every one is started before any is waited on, with a blocking barrier
 * of the same intercommunicator between the starts (MPI lets them overlap so long as every rank
 * calls them in one order); then each result is checked — the broadcast in a vector datatype, the
 * reductions with a non-commutative operation, which shows the remote group's rank order.
 */
final class IntercommunicatorNonBlockingRules {
    private IntercommunicatorNonBlockingRules() {
    }

    static List<Rule> rules() {
        return List.of(messaging(COMM, 10, REQUIRED, "intercommunicatorNonBlockingCollectives",
                "Across an intercommunicator of 2 and 3 ranks, ibarrier, ibcast, igather, iscatter, iallgather(v), ialltoall(v,w),"
                        + " ireduce, iallreduce and ireduce_scatter(_block), all started before any is waited on and around a blocking"
                        + " barrier, give the blocking forms' results (reductions in the remote group's rank order); persistent"
                        + " allreduce and bcast started twice send each start's data; IN_PLACE is a BUFFER error.",
                List.of(standard("§6.12 nonblocking collective operations"), standard("§6.13 persistent collective operations"),
                        standard("§6.2.2 intercommunicator collective operations"), mpich("coll/nonblocking2.c"),
                        mpich("coll/icbcast.c")),
                IntercommunicatorNonBlockingRules::nonBlockingCollectives));
    }

    private static void nonBlockingCollectives(MessagingRuleContext c) {
        c.runClean(5, "non-blocking collectives across groups of 2 and 3 ranks", IntercommunicatorNonBlockingRules::acrossUnevenGroups);
    }

    private static long[] values(int n, long base) {
        long[] v = new long[n];
        for (int k = 0; k < n; k++) {
            v[k] = base + k;
        }
        return v;
    }

    private static MemorySegment of(long[] a) {
        return MemorySegment.ofArray(a);
    }

    private static void acrossUnevenGroups(RankContext rank) {
        Communicator w = rank.comm();
        boolean inA = w.rank() < 2;
        Communicator half = w.split(inA ? 0 : 1, w.rank());
        Intercommunicator ic = half.createIntercommunicator(0, w, inA ? 2 : 0, 10);
        int me = ic.rank();
        int remote = ic.remoteSize();
        int[] remoteWorld = inA ? new int[] {2, 3, 4} : new int[] {0, 1};
        List<Request> started = new ArrayList<>();
        started.add(ic.ibarrier());
        // ibcast from A's rank 1 of every other element of 6 (a vector type): B gets 10, 12, 14
        Datatype everyOther = Datatype.vector(3, 1, 2, Datatype.LONG).commit();
        long[] bcast = inA && me == 1 ? new long[] {10, -1, 12, -1, 14, -1} : new long[6];
        started.add(ic.ibcast(of(bcast), 1, everyOther, inA ? (me == 1 ? Intercommunicator.ROOT : PROC_NULL) : 1));
        // igather at B's rank 0 of A's two values each; iscatter from A's rank 0 of one value to each of B
        long[] gathered = new long[4];
        started.add(ic.igather(of(values(2, 100L * w.rank())), 2, Datatype.LONG, of(gathered),
                inA ? 0 : me == 0 ? Intercommunicator.ROOT : PROC_NULL));
        long[] scattered = new long[1];
        started.add(ic.iscatter(of(new long[] {7, 8, 9}), 1, Datatype.LONG, of(scattered),
                inA ? (me == 0 ? Intercommunicator.ROOT : PROC_NULL) : 0));
        ic.barrier();
        long[] allgathered = new long[remote];
        started.add(ic.iallgather(of(new long[] {w.rank()}), 1, Datatype.LONG, of(allgathered)));
        long[] counts = new long[remote];
        long[] displacements = new long[remote];
        for (int j = 0; j < remote; j++) {
            counts[j] = j + 1;
            displacements[j] = (long) (remote - 1 - j) * remote; // backwards, room for the longest
        }
        long[] allgatheredV = new long[remote * remote];
        long[] mineV = values(me + 1, 1000L * w.rank());
        started.add(ic.iallgatherv(of(mineV), me + 1, Datatype.LONG, of(allgatheredV), counts, displacements));
        long[] out = new long[remote];
        for (int j = 0; j < remote; j++) {
            out[j] = 10L * w.rank() + j;
        }
        long[] in = new long[remote];
        started.add(ic.ialltoall(of(out), 1, Datatype.LONG, of(in)));
        long[] inV = new long[remote];
        long[] ones = new long[remote];
        Arrays.fill(ones, 1);
        long[] reversed = new long[remote];
        for (int j = 0; j < remote; j++) {
            reversed[j] = remote - 1 - j;
        }
        started.add(ic.ialltoallv(of(out), ones, reversed, Datatype.LONG, of(inV), ones, reversed));
        long[] inW = new long[remote];
        Datatype[] types = new Datatype[remote];
        Arrays.fill(types, Datatype.LONG);
        long[] byteDispls = Arrays.stream(reversed).map(d -> d * Long.BYTES).toArray();
        started.add(ic.ialltoallw(of(out), ones, byteDispls, types, of(inW), ones, byteDispls, types));
        // reductions with FIRST (inout = in): the rank-order result is remote rank 0's vector
        long[] vector = values(3, 100L * (w.rank() + 1));
        long[] reducedAtRoot = new long[3];
        started.add(ic.ireduce(of(vector), of(reducedAtRoot), 3, Datatype.LONG, CollectiveRules.FIRST,
                inA ? 2 : me == 2 ? Intercommunicator.ROOT : PROC_NULL));
        long[] allreduced = new long[3];
        started.add(ic.iallreduce(of(vector), of(allreduced), 3, Datatype.LONG, CollectiveRules.FIRST));
        long[] rsCounts = inA ? new long[] {1, 2} : new long[] {1, 1, 1};
        long[] scatteredSum = new long[2];
        started.add(ic.ireduceScatter(of(vector), of(scatteredSum), rsCounts, Datatype.LONG, Op.SUM));
        long[] six = values(6, w.rank() + 1L);
        long[] block = new long[3];
        started.add(ic.ireduceScatterBlock(of(six), of(block), inA ? 3 : 2, Datatype.LONG, Op.SUM));
        expectError(ErrorClass.BUFFER, "iallgather with IN_PLACE across an intercommunicator",
                () -> ic.iallgather(Communicator.IN_PLACE, 1, Datatype.LONG, of(allgathered)));
        Request.waitAll(started.toArray(Request[]::new));
        // persistent forms, each started twice with new data in between: the second start sends the new values
        long[] one = {w.rank() + 1L};
        long[] sums = new long[2];
        long[] sum = new long[1];
        PersistentRequest allreduce = ic.allreduceInit(of(one), of(sum), 1, Datatype.LONG, Op.SUM);
        long[] root = {inA && me == 0 ? 41 : 0};
        long[] rooted = new long[2];
        PersistentRequest bcastFromA = ic.bcastInit(of(root), 1, Datatype.LONG,
                inA ? (me == 0 ? Intercommunicator.ROOT : PROC_NULL) : 0);
        for (int round = 0; round < 2; round++) {
            allreduce.start();
            bcastFromA.start();
            Request.waitAll(allreduce, bcastFromA);
            sums[round] = sum[0];
            rooted[round] = root[0];
            one[0] *= 10;
            root[0] = inA && me == 0 ? 42 : 0;
        }
        allreduce.free();
        bcastFromA.free();
        everyOther.free();
        int size = ic.size();
        ic.close();
        half.close();

        // the other group's sum of (world + 1): A sees B's 3 + 4 + 5 = 12, B sees A's 1 + 2 = 3; ten times that at the second start
        long otherSum = inA ? 12 : 3;
        checkEquals("[" + otherSum + ", " + 10 * otherSum + "]", Arrays.toString(sums), "persistent allreduce at rank " + me
                + ", two starts");
        if (!inA) {
            checkEquals("[41, 42]", Arrays.toString(rooted), "persistent bcast from A's rank 0 at B's rank " + me + ", two starts");
            checkEquals("[10, 0, 12, 0, 14, 0]", Arrays.toString(bcast), "ibcast of every other element at B's rank " + me);
            if (me == 0) {
                checkEquals("[0, 1, 100, 101]", Arrays.toString(gathered), "igather at B's rank 0");
            }
            checkEquals(7L + me, scattered[0], "iscatter's value at B's rank " + me);
        }
        for (int j = 0; j < remote; j++) {
            int other = remoteWorld[j];
            checkEquals((long) other, allgathered[j], "iallgather at rank " + me + ": block of remote rank " + j);
            for (int k = 0; k <= j; k++) {
                checkEquals(1000L * other + k, allgatheredV[(int) displacements[j] + k], "iallgatherv at rank " + me + ": value " + k
                        + " of remote rank " + j);
            }
            checkEquals(10L * other + me, in[j], "ialltoall at rank " + me + " from remote rank " + j);
            // the v and w forms send remote rank j the block at displacement remoteSize - 1 - j
            long backward = 10L * other + (size - 1 - me);
            checkEquals(backward, inV[(int) reversed[j]], "ialltoallv at rank " + me + " from remote rank " + j);
            checkEquals(backward, inW[(int) reversed[j]], "ialltoallw at rank " + me + " from remote rank " + j);
        }
        long firstRemote = 100L * (remoteWorld[0] + 1);
        if (!inA && me == 2) {
            checkEquals(Arrays.toString(values(3, firstRemote)), Arrays.toString(reducedAtRoot), "ireduce at B's rank 2 (rank order)");
        }
        checkEquals(Arrays.toString(values(3, firstRemote)), Arrays.toString(allreduced), "iallreduce at rank " + me + " (rank order)");
        // sums of the other group's vectors 100 (w + 1) + k: A sees B's (3 + 4 + 5) * 100 + 3k, B sees A's (1 + 2) * 100 + 2k
        long groupSum = inA ? 1200 : 300;
        int members = remote;
        long first = inA ? (me == 0 ? 0 : 1) : me;
        for (int k = 0; k < rsCounts[me]; k++) {
            checkEquals(groupSum + members * (first + k), scatteredSum[k], "ireduce_scatter at rank " + me + ", element " + k);
        }
        int per = inA ? 3 : 2;
        for (int k = 0; k < per; k++) {
            checkEquals(otherSum + members * (long) (per * me + k), block[k], "ireduce_scatter_block at rank " + me + ", element " + k);
        }
    }
}
