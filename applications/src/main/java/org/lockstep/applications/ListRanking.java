package org.lockstep.applications;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

/**
 * List ranking by pointer jumping, the CGM way: N nodes in blocks over the ranks form one list in
 * the order of a pseudo-random permutation; every node learns its distance to the tail in
 * ⌈log₂ N⌉ rounds, each an Alltoallv of requests ("your rank and successor?") to the owners of
 * the successors and an Alltoallv of their answers. Checks: every rank is N − 1 − (the node's
 * position in the permutation), computed on the side; the digest is the sum of rank·node.
 */
public final class ListRanking implements Application {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final long NIL = -1;

    private final long nodes;
    private final long multiplier;
    private final long inverse;
    private final long increment;

    public ListRanking(long nodes) {
        if (nodes < 1) {
            throw new IllegalArgumentException("a list needs at least one node, got " + nodes);
        }
        this.nodes = nodes;
        long a = (nodes / 3) | 1;
        while (gcd(a, nodes) != 1) {
            a += 2;
        }
        this.multiplier = a % nodes;
        this.inverse = inverse(multiplier, nodes);
        this.increment = nodes / 7;
    }

    @Override
    public String name() {
        return "list-ranking";
    }

    @Override
    public long size() {
        return nodes;
    }

    /**
     * Successor, rank, request, order (8 bytes a node each), answers (16), and per round the asked
     * nodes and the replies (8 + 16 for each node whose predecessor asks: at most one per node,
     * but a block may be asked for one more node than it owns), counts of 8·p twice.
     */
    @Override
    public long contextBytes(int ranks) {
        long mine = nodes / ranks + 2;
        return 8 * (4 * mine + 2 * mine + 3 * mine + 2L * ranks + 1) + SampleSort.ALLOCATION_SLACK;
    }

    /** The request round's five per-rank arrays and the answer round's four, those four once more in the simulator's copy. */
    @Override
    public long heapBytes(int ranks) {
        return 8L * (5 + 4 + 4) * ranks;
    }

    /** The sum over nodes of (distance to the tail) · node. */
    @Override
    public long expectedDigest() {
        long digest = 0;
        for (long node = 0; node < nodes; node++) {
            digest += (nodes - 1 - positionOf(node)) * node;
        }
        return digest;
    }

    /** The node at position j of the list. */
    long nodeAt(long j) {
        return Math.floorMod(mulMod(multiplier, j, nodes) + increment, nodes);
    }

    /** The position of node i in the list. */
    long positionOf(long i) {
        return mulMod(inverse, Math.floorMod(i - increment, nodes), nodes);
    }

    private int owner(long node, int p) {
        // blocks of the same split as firstOf
        int lo = 0;
        int hi = p - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (firstOf(mid, p) <= node) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private long firstOf(int rank, int p) {
        return nodes * rank / p;
    }

    @Override
    public long run(Communicator w) {
        int p = w.size();
        int r = w.rank();
        long first = firstOf(r, p);
        long n = firstOf(r + 1, p) - first;
        MemorySegment succ = w.allocate(8 * Math.max(1, n));
        MemorySegment rank = w.allocate(8 * Math.max(1, n));
        for (long i = 0; i < n; i++) {
            long j = positionOf(first + i);
            succ.setAtIndex(LONG, i, j == nodes - 1 ? NIL : nodeAt(j + 1));
            rank.setAtIndex(LONG, i, j == nodes - 1 ? 0 : 1);
        }
        long[] sendCounts = new long[p];
        long[] sendDispls = new long[p];
        long[] recvCounts = new long[p];
        long[] recvDispls = new long[p];
        MemorySegment requests = w.allocate(8 * Math.max(1, n));
        MemorySegment order = w.allocate(8 * Math.max(1, n));
        MemorySegment answers = w.allocate(16 * Math.max(1, n));
        MemorySegment counts = w.allocate(8L * p);
        MemorySegment incoming = w.allocate(8L * p);
        for (long round = 1; round < nodes; round <<= 1) {
            // requests: for each node with a successor, ask the successor's owner, grouped by owner
            java.util.Arrays.fill(sendCounts, 0);
            for (long i = 0; i < n; i++) {
                long s = succ.getAtIndex(LONG, i);
                if (s != NIL) {
                    sendCounts[owner(s, p)]++;
                }
            }
            long at = 0;
            for (int q = 0; q < p; q++) {
                sendDispls[q] = at;
                at += sendCounts[q];
            }
            long[] fill = sendDispls.clone();
            for (long i = 0; i < n; i++) {
                long s = succ.getAtIndex(LONG, i);
                if (s != NIL) {
                    long slot = fill[owner(s, p)]++;
                    requests.setAtIndex(LONG, slot, s);
                    order.setAtIndex(LONG, slot, i);
                }
            }
            for (int q = 0; q < p; q++) {
                counts.setAtIndex(LONG, q, sendCounts[q]);
            }
            w.alltoall(counts, 1, Datatype.LONG, incoming);
            long totalIn = 0;
            for (int q = 0; q < p; q++) {
                recvCounts[q] = incoming.getAtIndex(LONG, q);
                recvDispls[q] = totalIn;
                totalIn += recvCounts[q];
            }
            MemorySegment asked = w.allocate(8 * Math.max(1, totalIn));
            w.alltoallv(requests, sendCounts, sendDispls, Datatype.LONG, asked, recvCounts, recvDispls);
            // answers: (rank, successor) of each asked node, in the order asked
            MemorySegment replies = w.allocate(16 * Math.max(1, totalIn));
            for (long k = 0; k < totalIn; k++) {
                long local = asked.getAtIndex(LONG, k) - first;
                replies.setAtIndex(LONG, 2 * k, rank.getAtIndex(LONG, local));
                replies.setAtIndex(LONG, 2 * k + 1, succ.getAtIndex(LONG, local));
            }
            long[] replyCounts = new long[p];
            long[] replyDispls = new long[p];
            long[] answerCounts = new long[p];
            long[] answerDispls = new long[p];
            for (int q = 0; q < p; q++) {
                replyCounts[q] = 2 * recvCounts[q];
                replyDispls[q] = 2 * recvDispls[q];
                answerCounts[q] = 2 * sendCounts[q];
                answerDispls[q] = 2 * sendDispls[q];
            }
            w.alltoallv(replies, replyCounts, replyDispls, Datatype.LONG, answers, answerCounts, answerDispls);
            w.free(replies);
            w.free(asked);
            for (long slot = 0; slot < at; slot++) {
                long i = order.getAtIndex(LONG, slot);
                rank.setAtIndex(LONG, i, rank.getAtIndex(LONG, i) + answers.getAtIndex(LONG, 2 * slot));
                succ.setAtIndex(LONG, i, answers.getAtIndex(LONG, 2 * slot + 1));
            }
        }
        long digest = 0;
        for (long i = 0; i < n; i++) {
            long expected = nodes - 1 - positionOf(first + i);
            long got = rank.getAtIndex(LONG, i);
            if (got != expected) {
                throw new AssertionError("list-ranking: node " + (first + i) + " has rank " + got + ", expected " + expected);
            }
            digest += got * (first + i);
        }
        MemorySegment d = w.allocate(8);
        d.set(LONG, 0, digest);
        w.allreduce(Communicator.IN_PLACE, d, 1, Datatype.LONG, Op.SUM);
        long result = d.get(LONG, 0);
        for (MemorySegment s : new MemorySegment[] {d, incoming, counts, answers, order, requests, rank, succ}) {
            w.free(s);
        }
        return result;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /** a·b mod m for 0 ≤ a, b &lt; m, without overflow. */
    private static long mulMod(long a, long b, long m) {
        if (Math.multiplyHigh(a, b) == 0 && a * b >= 0) {
            return a * b % m;
        }
        return java.math.BigInteger.valueOf(a).multiply(java.math.BigInteger.valueOf(b))
                .mod(java.math.BigInteger.valueOf(m)).longValue();
    }

    private static long inverse(long a, long m) {
        if (m == 1) {
            return 0;
        }
        return java.math.BigInteger.valueOf(a).modInverse(java.math.BigInteger.valueOf(m)).longValue();
    }
}
