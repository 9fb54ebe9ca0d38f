package org.lockstep.conformance.internal;

import static org.lockstep.api.Communicator.ANY_SOURCE;
import static org.lockstep.api.Communicator.ANY_TAG;
import static org.lockstep.conformance.Group.COLL;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.PayloadPattern;
import org.lockstep.conformance.Rule;

/**
 * The collective rules: properties of MPICH's {@code test/mpi/coll} and {@code test/mpi/comm}
 * suites re-expressed as checks on every rank — synchronisation, delivery to every rank from every
 * root, rank order of non-commutative reductions whatever the root, one result for all ranks, and
 * communicators from {@code split} that keep their own context and order their ranks by key.
 */
final class CollectiveRules {
    private CollectiveRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(COLL, 1, REQUIRED, "barrierWaitsForEveryRank",
                        "No rank returns from a barrier before every rank of the communicator has entered it.",
                        List.of(standard("§6.3 barrier synchronization"), mpich("coll/nonblocking.c")), CollectiveRules::barrierWaitsForEveryRank),
                messaging(COLL, 2, REQUIRED, "bcastReachesEveryRankFromEveryRoot",
                        "A broadcast from every root, of sizes from one byte to well past the indirection threshold, leaves the root's bytes on every rank and nothing past the count.",
                        List.of(mpich("coll/bcasttest.c"), mpich("coll/bcast2.c")), CollectiveRules::bcastReachesEveryRank),
                messaging(COLL, 3, REQUIRED, "nonCommutativeReductionsInRankOrder",
                        "reduce (every root), allreduce and scan with a non-commutative operation give the product in rank order, x0 op x1 op ... op x(p-1).",
                        List.of(mpich("coll/allred3.c"), mpich("coll/red4.c"), standard("§6.9.1 reduce")), CollectiveRules::nonCommutativeInRankOrder),
                messaging(COLL, 4, REQUIRED, "allreduceSameBitsOnEveryRank",
                        "An allreduce of doubles whose sum depends on the order of the additions gives the same bits on every rank.",
                        List.of(standard("§6.9.6 allreduce: the result is the same on all processes"), mpich("coll/allred.c")),
                        CollectiveRules::allreduceSameBits),
                messaging(COLL, 5, REQUIRED, "splitKeepsItsOwnContext",
                        "A communicator from split orders its ranks by key and its messages never match a wildcard receive on the parent, nor the parent's its receives.",
                        List.of(mpich("comm/cmsplit.c"), mpich("comm/ctxsplit.c"), standard("§7.4.2 communicator constructors")),
                        CollectiveRules::splitKeepsItsOwnContext),
                messaging(COLL, 6, REQUIRED, "alltoallBlocksGoWhereAddressed",
                        "In an alltoall, block j of rank i arrives as block i of rank j, for small blocks and blocks past the indirection threshold.",
                        List.of(mpich("coll/alltoall1.c"), standard("§6.8 all-to-all scatter/gather")), CollectiveRules::alltoallBlocks),
                messaging(COLL, 7, REQUIRED, "collectivesOnAllocatedMemory",
                        "Over memory from allocate (MPI_Alloc_mem), which a provider may let other ranks read in place, bcast from every root,"
                                + " allreduce (sums, in place, the rank order of a non-commutative operation) and alltoall of 40 KiB (and bcast of 64 KiB) give what"
                                + " they give over any memory, and leave the bytes past the count alone.",
                        List.of(standard("§9.2 memory allocation"), mpich("coll/bcasttest.c"), mpich("coll/allred3.c"),
                                mpich("coll/alltoall1.c")), CollectiveRules::collectivesOnAllocatedMemory));
    }

    /** Bytes of each collective of {@link #collectivesOnAllocatedMemory}: past any data area, within a small heap. */
    private static final int ALLOCATED_BYTES = 40 << 10;
    /** A broadcast large enough for a provider to share its copying out (the kit's heap holds one such buffer). */
    private static final int BCAST_LARGE_BYTES = (64 << 10) + 13;
    private static final int GUARD_BYTES = 64;

    /** Left projection, {@code a op b = a}: associative, not commutative; over ranks 0..p−1 in order it gives rank 0's value. */
    static final Op FIRST = Op.create((in, inout, count, type) -> MemorySegment.copy(in, 0, inout, 0, count * type.size()), false);

    private static void collectivesOnAllocatedMemory(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 8)) {
            c.runClean(n, "collectives on allocated memory", rank -> {
                Communicator w = rank.comm();
                int me = w.rank();
                for (int bytes : new int[] {ALLOCATED_BYTES, BCAST_LARGE_BYTES}) {
                    MemorySegment m = w.allocate(bytes + GUARD_BYTES);
                    try {
                        for (int root = 0; root < w.size(); root++) {
                            long seed = 7000L + root + bytes;
                            m.fill((byte) 0);
                            if (me == root) {
                                MemorySegment.copy(PayloadPattern.of(seed, bytes), 0, m, 0, bytes);
                            }
                            w.bcast(m, bytes, Datatype.BYTE, root);
                            check(PayloadPattern.matches(m.asSlice(0, bytes), seed, bytes), "rank " + me + " did not get the " + bytes
                                    + " bytes broadcast from root " + root + " through allocated memory");
                            checkGuard(m, bytes, "bcast from " + root + " on rank " + me);
                        }
                    } finally {
                        w.free(m);
                    }
                }
                MemorySegment a = w.allocate(ALLOCATED_BYTES + GUARD_BYTES);
                MemorySegment b = w.allocate(ALLOCATED_BYTES + GUARD_BYTES);
                try {
                    int longs = ALLOCATED_BYTES / Long.BYTES;
                    for (int i = 0; i < longs; i++) {
                        a.setAtIndex(ValueLayout.JAVA_LONG, i, (me + 1L) * (i + 1L));
                    }
                    b.fill((byte) 0);
                    w.allreduce(a, b, longs, Datatype.LONG, Op.SUM);
                    long ranks = w.size();
                    for (int i = 0; i < longs; i++) {
                        checkEquals(ranks * (ranks + 1) / 2 * (i + 1L), b.getAtIndex(ValueLayout.JAVA_LONG, i),
                                "allreduce sum, element " + i + " on rank " + me);
                    }
                    checkGuard(b, ALLOCATED_BYTES, "allreduce on rank " + me);
                    w.allreduce(Communicator.IN_PLACE, a, longs, Datatype.LONG, FIRST);
                    for (int i = 0; i < longs; i++) {
                        checkEquals(i + 1L, a.getAtIndex(ValueLayout.JAVA_LONG, i), "in-place allreduce of a non-commutative operation,"
                                + " element " + i + " on rank " + me + " is not rank 0's (the rank order)");
                    }
                    int block = ALLOCATED_BYTES / w.size() & -8;
                    for (int j = 0; j < w.size(); j++) {
                        MemorySegment.copy(PayloadPattern.of(me * 100L + j, block), 0, a, (long) j * block, block);
                    }
                    b.fill((byte) 0);
                    w.alltoall(a, block, Datatype.BYTE, b);
                    for (int i = 0; i < w.size(); i++) {
                        check(PayloadPattern.matches(b.asSlice((long) i * block, block), i * 100L + me, block),
                                "alltoall through allocated memory: block " + i + " on rank " + me + " is not block " + me + " of rank " + i);
                    }
                } finally {
                    w.free(a);
                    w.free(b);
                }
            });
        }
    }

    private static void checkGuard(MemorySegment s, long count, String what) {
        for (long i = count; i < s.byteSize(); i++) {
            checkEquals((byte) 0, s.get(ValueLayout.JAVA_BYTE, i), what + ": byte " + i + " past the count was written");
        }
    }

    private static void barrierWaitsForEveryRank(MessagingRuleContext c) {
        int rounds = 20;
        int entryTag = 5;
        for (int n : c.rankCounts(2, 8)) {
            c.runClean(n, "barriers with a late rank 0", rank -> {
                Communicator w = rank.comm();
                for (int k = 1; k <= rounds; k++) {
                    // rank 0 enters only after the last rank is already waiting: an early return shows. When it
                    // entered goes to the others on the host's one clock (the ranks may be separate processes).
                    List<Request> entries = new ArrayList<>();
                    if (w.rank() == 0) {
                        rank.awaitSignal("entered " + k);
                        long[] entered = {System.nanoTime()};
                        for (int r = 1; r < w.size(); r++) {
                            entries.add(w.isend(MemorySegment.ofArray(entered), 1, Datatype.LONG, r, entryTag));
                        }
                    }
                    if (w.rank() == w.size() - 1) {
                        rank.signal("entered " + k);
                    }
                    w.barrier();
                    long left = System.nanoTime();
                    if (w.rank() != 0) {
                        long[] entered = new long[1];
                        w.recv(MemorySegment.ofArray(entered), 1, Datatype.LONG, 0, entryTag);
                        check(left >= entered[0], "rank " + w.rank() + " left barrier " + k + " before rank 0 had entered it");
                    }
                    Request.waitAll(entries.toArray(Request[]::new));
                    w.barrier(); // nobody enters round k + 1 before every rank has checked round k
                }
            });
        }
    }

    private static void bcastReachesEveryRank(MessagingRuleContext c) {
        int t = c.threshold();
        long[] sizes = {1, 8, 100, t + 1L, 4L * t + 3, 70_000};
        for (int n : c.rankCounts(2, 8)) {
            c.runClean(n, "bcast from every root", rank -> {
                Communicator w = rank.comm();
                for (long size : sizes) {
                    for (int root = 0; root < w.size(); root++) {
                        long seed = size * 131 + root;
                        // the root's bytes past the count are pattern too, so a bcast that sends more than asked shows
                        MemorySegment b = w.rank() == root ? PayloadPattern.of(seed, (int) size + 8)
                                : MemorySegment.ofArray(new byte[(int) size + 8]);
                        w.bcast(b, size, Datatype.BYTE, root);
                        check(PayloadPattern.matches(b, seed, size), "rank " + w.rank() + " did not get the " + size
                                + " bytes broadcast from root " + root);
                        for (long i = size; i < size + 8 && w.rank() != root; i++) {
                            checkEquals((byte) 0, b.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " past a bcast of " + size
                                    + " bytes from root " + root + " on rank " + w.rank());
                        }
                    }
                }
            });
        }
    }

    /** 2×2 integer matrices multiplied (mod 2^64): associative, not commutative. Four longs each. */
    static final Op MATRIX_PRODUCT = Op.create((in, inout, count, type) -> {
        for (long m = 0; m < count / 4; m++) {
            long[] a = new long[4];
            long[] b = new long[4];
            MemorySegment.copy(in, ValueLayout.JAVA_LONG_UNALIGNED, m * 32, a, 0, 4);
            MemorySegment.copy(inout, ValueLayout.JAVA_LONG_UNALIGNED, m * 32, b, 0, 4);
            MemorySegment.copy(multiply(a, b), 0, inout, ValueLayout.JAVA_LONG_UNALIGNED, m * 32, 4);
        }
    }, false);

    private static long[] multiply(long[] a, long[] b) {
        return new long[] {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    }

    private static long[] matrices(int rank, int count) {
        long[] v = new long[4 * count];
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.floorMod((rank + 3L) * 2_654_435_761L + i * 40_503L, 5) + (i % 4 == 0 ? 1 : 0);
        }
        return v;
    }

    /** The rank-order product of ranks {@code 0..last} of the generated matrices. */
    private static long[] product(int last, int count) {
        long[] acc = matrices(0, count);
        for (int r = 1; r <= last; r++) {
            long[] next = matrices(r, count);
            for (int m = 0; m < count; m++) {
                long[] p = multiply(Arrays.copyOfRange(acc, 4 * m, 4 * m + 4), Arrays.copyOfRange(next, 4 * m, 4 * m + 4));
                System.arraycopy(p, 0, acc, 4 * m, 4);
            }
        }
        return acc;
    }

    private static void nonCommutativeInRankOrder(MessagingRuleContext c) {
        int count = 20;
        for (int n : c.rankCounts(2, 8)) {
            c.runClean(n, "non-commutative reductions", rank -> {
                Communicator w = rank.comm();
                long[] mine = matrices(w.rank(), count);
                long[] all = product(w.size() - 1, count);
                for (int root = 0; root < w.size(); root++) {
                    long[] out = new long[4 * count];
                    w.reduce(MemorySegment.ofArray(mine), MemorySegment.ofArray(out), 4L * count, Datatype.LONG, MATRIX_PRODUCT, root);
                    if (w.rank() == root) {
                        check(Arrays.equals(all, out), "reduce to root " + root + " is not the product in rank order");
                    }
                }
                long[] out = new long[4 * count];
                w.allreduce(MemorySegment.ofArray(mine), MemorySegment.ofArray(out), 4L * count, Datatype.LONG, MATRIX_PRODUCT);
                check(Arrays.equals(all, out), "allreduce on rank " + w.rank() + " is not the product in rank order");
                long[] prefix = new long[4 * count];
                w.scan(MemorySegment.ofArray(mine), MemorySegment.ofArray(prefix), 4L * count, Datatype.LONG, MATRIX_PRODUCT);
                check(Arrays.equals(product(w.rank(), count), prefix), "scan on rank " + w.rank() + " is not the product of ranks 0.."
                        + w.rank() + " in order");
            });
        }
    }

    private static void allreduceSameBits(MessagingRuleContext c) {
        int count = 513;
        for (int n : c.rankCounts(2, 8)) {
            c.runClean(n, "allreduce of order-sensitive doubles", rank -> {
                Communicator w = rank.comm();
                double[] mine = new double[count];
                for (int i = 0; i < count; i++) {
                    // magnitudes 1e-8 .. 1e8: the rounding of a sum depends on the order of its terms
                    mine[i] = Math.scalb(1.0 + ((w.rank() * 7 + i * 13) % 97) / 97.0, ((w.rank() * 11 + i) % 53) - 26);
                }
                double[] sum = new double[count];
                w.allreduce(MemorySegment.ofArray(mine), MemorySegment.ofArray(sum), count, Datatype.DOUBLE, Op.SUM);
                long[] bits = new long[count];
                for (int i = 0; i < count; i++) {
                    bits[i] = Double.doubleToRawLongBits(sum[i]);
                }
                long[][] all = Definitions.atRankZero(w, bits);
                for (int r = 1; all != null && r < w.size(); r++) {
                    for (int i = 0; i < count; i++) {
                        check(all[0][i] == all[r][i], w.size() + " ranks: element " + i + " is " + Double.longBitsToDouble(all[0][i])
                                + " on rank 0 but " + Double.longBitsToDouble(all[r][i]) + " on rank " + r);
                    }
                }
            });
        }
    }

    private static void splitKeepsItsOwnContext(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 8)) {
            c.runClean(n, "split beside its parent", rank -> {
                Communicator w = rank.comm();
                int color = w.rank() % 2;
                // keys reverse the order: the highest world rank of a color is its rank 0
                Communicator half = w.split(color, w.size() - w.rank());
                int members = (w.size() - color + 1) / 2;
                checkEquals(members, half.size(), "size of the color-" + color + " communicator");
                checkEquals((members - 1) - w.rank() / 2, half.rank(), "rank of world rank " + w.rank() + " ordered by key");
                int next = (half.rank() + 1) % half.size();
                int previous = (half.rank() + half.size() - 1) % half.size();
                int to = worldOf(color, next, members);
                int from = worldOf(color, previous, members);
                // Both messages go to the same rank, the split's first and on the same tag: were the contexts
                // shared, the parent's wildcard receive would take the split's message (messages do not overtake).
                // non-blocking: with one member a rank sends to itself, which MPI need not buffer
                Request toHalf = half.isend(PayloadPattern.of(1000 + w.rank(), 16), 16, Datatype.BYTE, next, 7);
                Request toParent = w.isend(PayloadPattern.of(2000 + w.rank(), 16), 16, Datatype.BYTE, to, 7);
                MemorySegment b = MemorySegment.ofArray(new byte[16]);
                Status s = w.recv(b, 16, Datatype.BYTE, ANY_SOURCE, ANY_TAG);
                check(PayloadPattern.matches(b, 2000 + from, 16), "a wildcard receive on the parent of rank " + w.rank()
                        + " got a message of the split communicator");
                checkEquals(from, s.source(), "source of the parent's message");
                half.recv(b, 16, Datatype.BYTE, ANY_SOURCE, ANY_TAG);
                check(PayloadPattern.matches(b, 1000 + from, 16), "the split communicator's receive on rank " + w.rank()
                        + " did not get the message of its previous member");
                Request.waitAll(toHalf, toParent);
                half.close();
            });
        }
    }

    /** World rank of rank {@code splitRank} of the color-{@code color} communicator (keys reversed). */
    private static int worldOf(int color, int splitRank, int members) {
        return 2 * (members - 1 - splitRank) + color;
    }

    private static void alltoallBlocks(MessagingRuleContext c) {
        int t = c.threshold();
        for (int n : c.rankCounts(2, 8)) {
            for (int block : new int[] {8, t + 5}) {
                c.runClean(n, "alltoall of " + block + "-byte blocks", rank -> {
                    Communicator w = rank.comm();
                    MemorySegment send = MemorySegment.ofArray(new byte[block * w.size()]);
                    for (int j = 0; j < w.size(); j++) {
                        MemorySegment.copy(PayloadPattern.of(w.rank() * 100L + j, block), 0, send, (long) j * block, block);
                    }
                    MemorySegment recv = MemorySegment.ofArray(new byte[block * w.size()]);
                    w.alltoall(send, block, Datatype.BYTE, recv);
                    for (int i = 0; i < w.size(); i++) {
                        check(PayloadPattern.matches(recv.asSlice((long) i * block, block), i * 100L + w.rank(), block),
                                "block " + i + " on rank " + w.rank() + " is not block " + w.rank() + " of rank " + i);
                    }
                });
            }
        }
    }
}
