package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Group.COLL;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.ibm;
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
import org.lockstep.api.Op;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;

/**
 * The collectives the first rules left out: gather(v), scatter(v), allgather(v), alltoallv with
 * their in-place forms, reduce_scatter(_block) and exscan, every non-blocking collective, and the
 * persistent ones (MPI 4.1 §6.5-§6.13). Values are {@code 1000 * source + index}, so a block in
 * the wrong place or from the wrong rank names itself.
 */
final class CollectiveFamilyRules {
    private CollectiveFamilyRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(COLL, 8, REQUIRED, "gatherScatterFamilyPlaceEveryBlock",
                        "gather, gatherv (uneven counts, reversed displacements), scatter, scatterv, allgather, allgatherv and alltoallv"
                                + " put each rank's block where its counts and displacements say, from every root, in place where MPI allows.",
                        List.of(standard("§6.5-§6.8 gather, scatter, gather-to-all, all-to-all"), mpich("coll/gatherv.c"),
                                mpich("coll/scatterv.c"), mpich("coll/allgatherv2.c"), mpich("coll/alltoallv.c"), ibm("collective/gatherv_in_place")),
                        CollectiveFamilyRules::gatherScatterFamily),
                messaging(COLL, 9, REQUIRED, "reduceScatterAndExscan",
                        "reduce_scatter with uneven counts, reduce_scatter_block and exscan (rank 0's buffer untouched) give the sums"
                                + " of the ranks they cover, also in place.",
                        List.of(standard("§6.10 reduce-scatter"), standard("§6.11.2 exclusive scan"), mpich("coll/redscat.c"),
                                mpich("coll/exscan.c")), CollectiveFamilyRules::reduceScatterAndExscan),
                messaging(COLL, 10, REQUIRED, "nonBlockingCollectivesMatchTheBlockingOnes",
                        "Every non-blocking collective (ialltoallw and ireduce_scatter too), started together with the others and completed"
                                + " in reverse order, gives what its blocking form gives.",
                        List.of(standard("§6.12 nonblocking collective operations"), mpich("coll/nonblocking2.c"), mpich("coll/nonblocking3.c")),
                        CollectiveFamilyRules::nonBlocking),
                messaging(COLL, 11, REQUIRED, "persistentCollectivesRestart",
                        "Persistent bcast and allreduce started ten times give each start's inputs' results; starting an active one is a"
                                + " REQUEST error.",
                        List.of(standard("§6.13 persistent collective operations"), mpich("coll/p_bcast.c"), mpich("coll/p_allred.c")),
                        CollectiveFamilyRules::persistent),
                messaging(COLL, 12, REQUIRED, "nonBlockingBarrierBcastAllreduceKeepTheirOrder",
                        "No ibarrier completes before its last rank has started it, no ibcast before its root has; ibcast (8 B and past two"
                                + " 64 KiB chunks, from changing roots), iallreduce (a non-commutative operation and a sum) and ibarrier in"
                                + " flight together beside point-to-point, completed in reverse order on some ranks and by tests alone on"
                                + " others, give the blocking results.",
                        List.of(standard("§6.12 nonblocking collective operations: ordered per communicator, progress"),
                                mpich("coll/nonblocking3.c"), mpich("coll/ibarrier.c"), mpich("coll/icbarrier.c")),
                        NonBlockingOrder::run));
    }

    private static long[] blockOf(int source, int length) {
        long[] b = new long[length];
        for (int i = 0; i < length; i++) {
            b[i] = 1000L * source + i;
        }
        return b;
    }

    private static void gatherScatterFamily(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 5)) {
            c.runClean(n, "gather and scatter families", rank -> {
                Communicator w = rank.comm();
                int p = w.size();
                int me = w.rank();
                int block = 3;
                long[] counts = new long[p];
                long[] displs = new long[p];
                long total = 0;
                for (int r = 0; r < p; r++) {
                    counts[r] = r + 1; // uneven
                    total += counts[r];
                }
                long at = total;
                for (int r = 0; r < p; r++) { // reversed: rank 0's block last
                    at -= counts[r];
                    displs[r] = at;
                }
                for (int root = 0; root < p; root++) {
                    long[] all = new long[block * p];
                    w.gather(MemorySegment.ofArray(blockOf(me, block)), block, Datatype.LONG, MemorySegment.ofArray(all), root);
                    if (me == root) {
                        for (int r = 0; r < p; r++) {
                            checkEquals(Arrays.toString(blockOf(r, block)), Arrays.toString(Arrays.copyOfRange(all, r * block, (r + 1) * block)),
                                    "gather to " + root + ", block " + r);
                        }
                        // in place: the root's block is already in its receive buffer
                        Arrays.fill(all, -1);
                        System.arraycopy(blockOf(me, block), 0, all, me * block, block);
                    }
                    w.gather(me == root ? Communicator.IN_PLACE : MemorySegment.ofArray(blockOf(me, block)), block, Datatype.LONG,
                            MemorySegment.ofArray(all), root);
                    if (me == root) {
                        for (int r = 0; r < p; r++) {
                            checkEquals(1000L * r, all[r * block], "in-place gather to " + root + ", block " + r);
                        }
                    }
                    long[] v = new long[(int) total];
                    w.gatherv(MemorySegment.ofArray(blockOf(me, me + 1)), me + 1, Datatype.LONG, MemorySegment.ofArray(v), counts, displs, root);
                    if (me == root) {
                        for (int r = 0; r < p; r++) {
                            for (int i = 0; i <= r; i++) {
                                checkEquals(1000L * r + i, v[(int) displs[r] + i], "gatherv to " + root + ", rank " + r + " element " + i);
                            }
                        }
                    }
                    long[] src = new long[(int) total];
                    for (int r = 0; r < p; r++) {
                        System.arraycopy(blockOf(r, r + 1), 0, src, (int) displs[r], r + 1);
                    }
                    long[] mine = new long[me + 1];
                    w.scatterv(MemorySegment.ofArray(src), counts, displs, Datatype.LONG, MemorySegment.ofArray(mine), me + 1, root);
                    checkEquals(Arrays.toString(blockOf(me, me + 1)), Arrays.toString(mine), "scatterv from " + root + " to " + me);
                    long[] scat = new long[block];
                    long[] whole = new long[block * p];
                    for (int r = 0; r < p; r++) {
                        System.arraycopy(blockOf(r, block), 0, whole, r * block, block);
                    }
                    w.scatter(MemorySegment.ofArray(whole), block, Datatype.LONG, MemorySegment.ofArray(scat), root);
                    checkEquals(Arrays.toString(blockOf(me, block)), Arrays.toString(scat), "scatter from " + root + " to " + me);
                }
                long[] ag = new long[(int) total];
                System.arraycopy(blockOf(me, me + 1), 0, ag, (int) displs[me], me + 1);
                w.allgatherv(Communicator.IN_PLACE, 0, Datatype.LONG, MemorySegment.ofArray(ag), counts, displs);
                for (int r = 0; r < p; r++) {
                    checkEquals(1000L * r + r, ag[(int) displs[r] + r], "in-place allgatherv, rank " + r + "'s last element on " + me);
                }
                long[] a2 = new long[block * p];
                w.allgather(MemorySegment.ofArray(blockOf(me, block)), block, Datatype.LONG, MemorySegment.ofArray(a2));
                for (int r = 0; r < p; r++) {
                    checkEquals(1000L * r + 2, a2[r * block + 2], "allgather, block " + r + " on " + me);
                }
                // alltoallv: rank i sends j + 1 elements to rank j
                long[] sc = new long[p];
                long[] sd = new long[p];
                long[] rc = new long[p];
                long[] rd = new long[p];
                long sAt = 0;
                long rAt = 0;
                for (int j = 0; j < p; j++) {
                    sc[j] = j + 1;
                    sd[j] = sAt;
                    sAt += sc[j];
                    rc[j] = me + 1;
                    rd[j] = rAt;
                    rAt += rc[j];
                }
                long[] out = new long[(int) sAt];
                for (int j = 0; j < p; j++) {
                    for (int i = 0; i <= j; i++) {
                        out[(int) sd[j] + i] = 1000L * me + 10 * j + i;
                    }
                }
                long[] in = new long[(int) rAt];
                w.alltoallv(MemorySegment.ofArray(out), sc, sd, Datatype.LONG, MemorySegment.ofArray(in), rc, rd);
                for (int j = 0; j < p; j++) {
                    for (int i = 0; i <= me; i++) {
                        checkEquals(1000L * j + 10 * me + i, in[(int) rd[j] + i], "alltoallv on " + me + ", from " + j + " element " + i);
                    }
                }
            });
        }
    }

    private static void reduceScatterAndExscan(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 5)) {
            c.runClean(n, "reduce_scatter and exscan", rank -> {
                Communicator w = rank.comm();
                int p = w.size();
                int me = w.rank();
                long[] counts = new long[p];
                int total = 0;
                for (int r = 0; r < p; r++) {
                    counts[r] = r + 1;
                    total += r + 1;
                }
                long[] in = new long[total];
                for (int i = 0; i < total; i++) {
                    in[i] = (me + 1) * 100L + i;
                }
                long sumOfRanks = (long) p * (p + 1) / 2;
                long[] out = new long[me + 1];
                w.reduceScatter(MemorySegment.ofArray(in), MemorySegment.ofArray(out), counts, Datatype.LONG, Op.SUM);
                int first = me * (me + 1) / 2;
                for (int i = 0; i <= me; i++) {
                    checkEquals(sumOfRanks * 100 + (long) p * (first + i), out[i], "reduce_scatter on " + me + " element " + i);
                }
                long[] inPlace = in.clone();
                w.reduceScatter(Communicator.IN_PLACE, MemorySegment.ofArray(inPlace), counts, Datatype.LONG, Op.SUM);
                checkEquals(sumOfRanks * 100 + (long) p * first, inPlace[0], "in-place reduce_scatter on " + me);
                long[] blocks = new long[2 * p];
                for (int i = 0; i < 2 * p; i++) {
                    blocks[i] = me + i;
                }
                long[] two = new long[2];
                w.reduceScatterBlock(MemorySegment.ofArray(blocks), MemorySegment.ofArray(two), 2, Datatype.LONG, Op.SUM);
                checkEquals((long) p * (p - 1) / 2 + (long) p * 2 * me, two[0], "reduce_scatter_block on " + me);
                long[] ex = {-7};
                w.exscan(MemorySegment.ofArray(new long[] {me + 1}), MemorySegment.ofArray(ex), 1, Datatype.LONG, Op.SUM);
                checkEquals(me == 0 ? -7L : (long) me * (me + 1) / 2, ex[0], "exscan on " + me + " (rank 0's is left alone)");
                long[] exIn = {me + 1};
                w.exscan(Communicator.IN_PLACE, MemorySegment.ofArray(exIn), 1, Datatype.LONG, Op.SUM);
                if (me > 0) {
                    checkEquals((long) me * (me + 1) / 2, exIn[0], "in-place exscan on " + me);
                }
            });
        }
    }

    private static void nonBlocking(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 5)) {
            c.runClean(n, "every non-blocking collective at once", rank -> {
                Communicator w = rank.comm();
                int p = w.size();
                int me = w.rank();
                int b = 4;
                long[] mine = blockOf(me, b);
                long[] all = new long[b * p];
                for (int r = 0; r < p; r++) {
                    System.arraycopy(blockOf(r, b), 0, all, r * b, b);
                }
                long[] counts = new long[p];
                long[] displs = new long[p];
                Arrays.fill(counts, b);
                long[] byteDispls = new long[p];
                Datatype[] types = new Datatype[p];
                Arrays.fill(types, Datatype.LONG);
                for (int r = 0; r < p; r++) {
                    displs[r] = (long) r * b;
                    byteDispls[r] = (long) r * b * Long.BYTES;
                }
                long[][] got = new long[14][];
                for (int i = 0; i < got.length; i++) {
                    got[i] = new long[b * p];
                }
                long[] myAlltoall = new long[b * p];
                for (int j = 0; j < p; j++) {
                    for (int i = 0; i < b; i++) {
                        myAlltoall[j * b + i] = 1000L * me + 10 * j + i;
                    }
                }
                Request[] r = {
                    w.igather(MemorySegment.ofArray(mine), b, Datatype.LONG, MemorySegment.ofArray(got[0]), 0),
                    w.igatherv(MemorySegment.ofArray(mine), b, Datatype.LONG, MemorySegment.ofArray(got[1]), counts, displs, p - 1),
                    w.iscatter(MemorySegment.ofArray(all), b, Datatype.LONG, MemorySegment.ofArray(got[2]), 0),
                    w.iscatterv(MemorySegment.ofArray(all), counts, displs, Datatype.LONG, MemorySegment.ofArray(got[3]), b, p - 1),
                    w.iallgather(MemorySegment.ofArray(mine), b, Datatype.LONG, MemorySegment.ofArray(got[4])),
                    w.iallgatherv(MemorySegment.ofArray(mine), b, Datatype.LONG, MemorySegment.ofArray(got[5]), counts, displs),
                    w.ialltoall(MemorySegment.ofArray(myAlltoall), b, Datatype.LONG, MemorySegment.ofArray(got[6])),
                    w.ialltoallv(MemorySegment.ofArray(myAlltoall), counts, displs, Datatype.LONG, MemorySegment.ofArray(got[7]), counts, displs),
                    w.ireduce(MemorySegment.ofArray(mine), MemorySegment.ofArray(got[8]), b, Datatype.LONG, Op.SUM, 0),
                    w.ireduceScatterBlock(MemorySegment.ofArray(all), MemorySegment.ofArray(got[9]), b, Datatype.LONG, Op.SUM),
                    w.iscan(MemorySegment.ofArray(mine), MemorySegment.ofArray(got[10]), b, Datatype.LONG, Op.SUM),
                    w.iexscan(MemorySegment.ofArray(mine), MemorySegment.ofArray(got[11]), b, Datatype.LONG, Op.SUM),
                    w.ialltoallw(MemorySegment.ofArray(myAlltoall), counts, byteDispls, types, MemorySegment.ofArray(got[12]), counts,
                            byteDispls, types),
                    w.ireduceScatter(MemorySegment.ofArray(all), MemorySegment.ofArray(got[13]), counts, Datatype.LONG, Op.SUM),
                    w.ibarrier()};
                for (int i = r.length - 1; i >= 0; i--) {
                    r[i].await();
                }
                long[][] want = new long[14][];
                for (int i = 0; i < want.length; i++) {
                    want[i] = new long[b * p];
                }
                w.gather(MemorySegment.ofArray(mine), b, Datatype.LONG, MemorySegment.ofArray(want[0]), 0);
                w.gatherv(MemorySegment.ofArray(mine), b, Datatype.LONG, MemorySegment.ofArray(want[1]), counts, displs, p - 1);
                w.scatter(MemorySegment.ofArray(all), b, Datatype.LONG, MemorySegment.ofArray(want[2]), 0);
                w.scatterv(MemorySegment.ofArray(all), counts, displs, Datatype.LONG, MemorySegment.ofArray(want[3]), b, p - 1);
                w.allgather(MemorySegment.ofArray(mine), b, Datatype.LONG, MemorySegment.ofArray(want[4]));
                w.allgatherv(MemorySegment.ofArray(mine), b, Datatype.LONG, MemorySegment.ofArray(want[5]), counts, displs);
                w.alltoall(MemorySegment.ofArray(myAlltoall), b, Datatype.LONG, MemorySegment.ofArray(want[6]));
                w.alltoallv(MemorySegment.ofArray(myAlltoall), counts, displs, Datatype.LONG, MemorySegment.ofArray(want[7]), counts, displs);
                w.reduce(MemorySegment.ofArray(mine), MemorySegment.ofArray(want[8]), b, Datatype.LONG, Op.SUM, 0);
                w.reduceScatterBlock(MemorySegment.ofArray(all), MemorySegment.ofArray(want[9]), b, Datatype.LONG, Op.SUM);
                w.scan(MemorySegment.ofArray(mine), MemorySegment.ofArray(want[10]), b, Datatype.LONG, Op.SUM);
                w.exscan(MemorySegment.ofArray(mine), MemorySegment.ofArray(want[11]), b, Datatype.LONG, Op.SUM);
                w.alltoallw(MemorySegment.ofArray(myAlltoall), counts, byteDispls, types, MemorySegment.ofArray(want[12]), counts,
                        byteDispls, types);
                w.reduceScatter(MemorySegment.ofArray(all), MemorySegment.ofArray(want[13]), counts, Datatype.LONG, Op.SUM);
                String[] names = {"igather", "igatherv", "iscatter", "iscatterv", "iallgather", "iallgatherv", "ialltoall", "ialltoallv",
                    "ireduce", "ireduce_scatter_block", "iscan", "iexscan", "ialltoallw", "ireduce_scatter"};
                for (int i = 0; i < want.length; i++) {
                    checkEquals(Arrays.toString(want[i]), Arrays.toString(got[i]), names[i] + " on rank " + me);
                }
                // the blocking results themselves: the alltoall's block j is rank j's block for me
                for (int j = 0; j < p; j++) {
                    checkEquals(1000L * j + 10 * me, want[6][j * b], "alltoall on " + me + ", block " + j);
                }
            });
        }
    }

    private static void persistent(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 4)) {
            c.runClean(n, "persistent bcast and allreduce", rank -> {
                Communicator w = rank.comm();
                int me = w.rank();
                long[] data = new long[4];
                long[] sum = new long[4];
                long[] value = new long[4];
                PersistentRequest bcast = w.bcastInit(MemorySegment.ofArray(data), 4, Datatype.LONG, 0);
                PersistentRequest allreduce = w.allreduceInit(MemorySegment.ofArray(value), MemorySegment.ofArray(sum), 4, Datatype.LONG,
                        Op.SUM);
                for (int k = 0; k < 10; k++) {
                    if (me == 0) {
                        Arrays.fill(data, 7L * k);
                    }
                    Arrays.fill(value, (long) k * (me + 1));
                    bcast.start();
                    allreduce.start();
                    if (k == 2) {
                        expectError(ErrorClass.REQUEST, "starting an active persistent bcast", bcast::start);
                    }
                    allreduce.await();
                    bcast.await();
                    checkEquals(7L * k, data[3], "persistent bcast start " + k + " on " + me);
                    checkEquals((long) k * w.size() * (w.size() + 1) / 2, sum[0], "persistent allreduce start " + k + " on " + me);
                }
                bcast.free();
                allreduce.free();
            });
        }
    }
}
