package org.lockstep.conformance.internal;

import static org.lockstep.api.Communicator.ANY_SOURCE;
import static org.lockstep.api.Communicator.ANY_TAG;
import static org.lockstep.api.Communicator.PROC_NULL;
import static org.lockstep.conformance.Group.TOPO;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.messaging;
import static org.lockstep.conformance.internal.TopologyRules.text;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.DistGraphCommunicator;
import org.lockstep.api.Info;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;

/**
 * The neighbourhood collectives (MPI 4.1 §8.6) on Cartesian grids — where a block sent in one
 * direction is the neighbour's block from the opposite one, also when both neighbours are one rank
 * (a periodic dimension of 1 or 2), and a PROC_NULL neighbour's block stays untouched — and on
 * distributed graphs with repeated edges, blocking and non-blocking, beside the user's own traffic.
 * Every block a rank sends carries {@code 100 * rank + block}, so a misplaced block shows.
 */
final class NeighborhoodRules {
    /** What a receive block holds until something is written there. */
    private static final int UNTOUCHED = -1;

    private NeighborhoodRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(TOPO, 6, REQUIRED, "neighborhoodCollectivesFollowTheTopology",
                        "neighborAllgather, neighborAllgatherv, neighborAlltoall, neighborAlltoallv and neighborAlltoallw deliver"
                                + " block i from the i-th source neighbour: on a grid the negative then the positive neighbour of each"
                                + " dimension, a block sent in one direction landing in the neighbour's block of the opposite one"
                                + " (also in periodic dimensions of 1 and 2), PROC_NULL blocks untouched; on a graph in edge order,"
                                + " repeated edges pairing in order; derived datatypes on either side.",
                        List.of(standard("§8.6 neighborhood collective communication, Example 8.10"), mpich("coll/neighb_coll.c"),
                                mpich("coll/neighb_dup_edges.c")), NeighborhoodRules::blocking),
                messaging(TOPO, 7, REQUIRED, "nonBlockingNeighborhoodCollectivesOverlap",
                        "ineighborAllgather, ineighborAllgatherv, ineighborAlltoall, ineighborAlltoallv and ineighborAlltoallw"
                                + " started together, beside a wildcard receive and a user message on the same communicator, complete"
                                + " in any order with the blocking forms' results; the wildcard receive gets the user message only;"
                                + " a persistent neighborAlltoall sends at each start what its buffer holds then.",
                        List.of(standard("§8.7 nonblocking neighborhood communication, §8.8 persistent neighborhood communication"),
                                mpich("coll/nonblocking3.c")),
                        NeighborhoodRules::nonBlocking));
    }

    /** The grids every run checks: a plain 2-D one, and one whose periodic dimensions of 1 or 2 make self and double neighbours. */
    private static List<CartesianCommunicator> grids(Communicator w) {
        int n = w.size();
        CartesianCommunicator plain = w.createCart(CartesianCommunicator.dimsCreate(n, new int[2]), new boolean[] {true, false}, false);
        int[] degenerate = n % 2 == 0 ? new int[] {2, n / 2, 1} : new int[] {1, n, 1};
        CartesianCommunicator wrapped = w.createCart(degenerate, new boolean[] {true, false, true}, false);
        return List.of(plain, wrapped);
    }

    /** The source neighbours of a grid rank in block order: negative, then positive, for each dimension. */
    private static int[] gridSources(CartesianCommunicator cart) {
        int[] sources = new int[2 * cart.dimensions()];
        for (int d = 0; d < cart.dimensions(); d++) {
            CartesianCommunicator.Shift s = cart.shift(d, 1);
            sources[2 * d] = s.source();
            sources[2 * d + 1] = s.destination();
        }
        return sources;
    }

    /** On a grid the block arriving as i was sent as i ^ 1; on a graph as the k-th edge between the pair. */
    private record Hood(int[] sources, int[] sentAs) {
        static Hood of(CartesianCommunicator cart) {
            int[] sources = gridSources(cart);
            int[] sentAs = new int[sources.length];
            for (int i = 0; i < sources.length; i++) {
                sentAs[i] = i ^ 1;
            }
            return new Hood(sources, sentAs);
        }
    }

    /** A graph with repeated edges and a self-loop: sources prev, prev, self; destinations next, next, self. */
    private static DistGraphCommunicator repeatedEdges(Communicator w) {
        int r = w.rank();
        int n = w.size();
        return w.createDistGraphAdjacent(new int[] {(r + n - 1) % n, (r + n - 1) % n, r}, null, new int[] {(r + 1) % n, (r + 1) % n, r},
                null, Info.EMPTY, false);
    }

    private static Hood graphHood(Communicator g) {
        int r = g.rank();
        int n = g.size();
        return new Hood(new int[] {(r + n - 1) % n, (r + n - 1) % n, r}, new int[] {0, 1, 2});
    }

    /** What alltoall's receive block i holds: the source's block sentAs[i], or UNTOUCHED for PROC_NULL. */
    private static int[] expectedAlltoall(Hood h) {
        int[] expected = new int[h.sources().length];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = h.sources()[i] == PROC_NULL ? UNTOUCHED : 100 * h.sources()[i] + h.sentAs()[i];
        }
        return expected;
    }

    private static int[] expectedAllgather(Hood h) {
        int[] expected = new int[h.sources().length];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = h.sources()[i] == PROC_NULL ? UNTOUCHED : 100 * h.sources()[i];
        }
        return expected;
    }

    private static int[] blocks(int rank, int count) {
        int[] send = new int[count];
        for (int j = 0; j < count; j++) {
            send[j] = 100 * rank + j;
        }
        return send;
    }

    private static int[] untouched(int count) {
        int[] a = new int[count];
        Arrays.fill(a, UNTOUCHED);
        return a;
    }

    private static MemorySegment of(int[] a) {
        return MemorySegment.ofArray(a);
    }

    /** What a rule checks on one topology communicator: its neighbourhood, and where it is (for messages). */
    private interface NeighborhoodCheck {
        void check(Communicator comm, Hood h, String where);
    }

    /** Runs {@code check} on each grid of {@link #grids} and on a graph with repeated edges, for each rank count. */
    private static void onEveryTopology(MessagingRuleContext c, String what, NeighborhoodCheck check) {
        for (int n : c.rankCounts(2, 8)) {
            c.runClean(n, what, rank -> {
                Communicator w = rank.comm();
                for (CartesianCommunicator cart : grids(w)) {
                    check.check(cart, Hood.of(cart), "grid " + text(cart.dims()) + " at " + text(cart.coords()));
                    cart.close();
                }
                DistGraphCommunicator g = repeatedEdges(w);
                check.check(g, graphHood(g), "graph with repeated edges at rank " + g.rank());
                g.close();
            });
        }
    }

    private static void blocking(MessagingRuleContext c) {
        onEveryTopology(c, "blocking neighbourhood collectives", NeighborhoodRules::exchangeEveryForm);
    }

    private static void exchangeEveryForm(Communicator comm, Hood h, String where) {
        int k = h.sources().length;
        int me = comm.rank();
        int[] recv = untouched(k);
        comm.neighborAlltoall(of(blocks(me, k)), 1, Datatype.INT, of(recv));
        checkEquals(text(expectedAlltoall(h)), text(recv), "neighborAlltoall on the " + where);
        recv = untouched(k);
        comm.neighborAllgather(of(new int[] {100 * me}), 1, Datatype.INT, of(recv));
        checkEquals(text(expectedAllgather(h)), text(recv), "neighborAllgather on the " + where);
        // v forms: block i at displacement 2 (k - 1 - i), so the blocks lie reversed with a gap after each
        long[] ones = new long[k];
        long[] reversed = new long[k];
        for (int i = 0; i < k; i++) {
            ones[i] = 1;
            reversed[i] = 2L * (k - 1 - i);
        }
        int[] sendSpread = untouched(2 * k);
        for (int j = 0; j < k; j++) {
            sendSpread[(int) reversed[j]] = 100 * me + j;
        }
        int[] spread = untouched(2 * k);
        comm.neighborAlltoallv(of(sendSpread), ones, reversed, Datatype.INT, of(spread), ones, reversed, Datatype.INT);
        checkEquals(text(expectedAlltoall(h)), text(gatherReversed(spread, k)), "neighborAlltoallv on the " + where);
        checkEquals(text(untouched(k)), text(gaps(spread, k)), "gaps between neighborAlltoallv's blocks on the " + where);
        spread = untouched(2 * k);
        comm.neighborAllgatherv(of(new int[] {100 * me}), 1, Datatype.INT, of(spread), ones, reversed, Datatype.INT);
        checkEquals(text(expectedAllgather(h)), text(gatherReversed(spread, k)), "neighborAllgatherv on the " + where);
        // w form: sent as plain ints, received through a vector type that skips every other int
        Datatype everyOther = Datatype.vector(1, 1, 2, Datatype.INT).commit();
        long[] byteDisplacements = new long[k];
        Datatype[] sendTypes = new Datatype[k];
        Datatype[] recvTypes = new Datatype[k];
        for (int i = 0; i < k; i++) {
            byteDisplacements[i] = (long) Integer.BYTES * i;
            sendTypes[i] = Datatype.INT;
            recvTypes[i] = everyOther;
        }
        long[] recvDisplacements = new long[k];
        for (int i = 0; i < k; i++) {
            recvDisplacements[i] = 2L * Integer.BYTES * i;
        }
        spread = untouched(2 * k);
        comm.neighborAlltoallw(of(blocks(me, k)), ones, byteDisplacements, sendTypes, of(spread), ones, recvDisplacements, recvTypes);
        int[] evens = new int[k];
        for (int i = 0; i < k; i++) {
            evens[i] = spread[2 * i];
        }
        checkEquals(text(expectedAlltoall(h)), text(evens), "neighborAlltoallw (vector receive type) on the " + where);
        everyOther.free();
    }

    /** Block i of a buffer laid out by displacement 2 (k - 1 - i). */
    private static int[] gatherReversed(int[] spread, int k) {
        int[] blocks = new int[k];
        for (int i = 0; i < k; i++) {
            blocks[i] = spread[2 * (k - 1 - i)];
        }
        return blocks;
    }

    private static int[] gaps(int[] spread, int k) {
        int[] gaps = new int[k];
        for (int i = 0; i < k; i++) {
            gaps[i] = spread[2 * i + 1];
        }
        return gaps;
    }

    private static void nonBlocking(MessagingRuleContext c) {
        onEveryTopology(c, "non-blocking neighbourhood collectives", NeighborhoodRules::overlapped);
    }

    private static void overlapped(Communicator comm, Hood h, String where) {
        int k = h.sources().length;
        int me = comm.rank();
        int n = comm.size();
        int[] user = {UNTOUCHED};
        Request wildcard = comm.irecv(of(user), 1, Datatype.INT, ANY_SOURCE, ANY_TAG);
        long[] ones = new long[k];
        long[] packed = new long[k];
        long[] bytes = new long[k];
        Datatype[] ints = new Datatype[k];
        for (int i = 0; i < k; i++) {
            ones[i] = 1;
            packed[i] = i;
            bytes[i] = (long) Integer.BYTES * i;
            ints[i] = Datatype.INT;
        }
        int[] alltoall = untouched(k);
        int[] allgather = untouched(k);
        int[] alltoallv = untouched(k);
        int[] allgatherv = untouched(k);
        int[] alltoallw = untouched(k);
        Request[] started = {
                comm.ineighborAlltoall(of(blocks(me, k)), 1, Datatype.INT, of(alltoall), 1, Datatype.INT),
                comm.ineighborAllgather(of(new int[] {100 * me}), 1, Datatype.INT, of(allgather), 1, Datatype.INT),
                comm.ineighborAlltoallv(of(blocks(me, k)), ones, packed, Datatype.INT, of(alltoallv), ones, packed, Datatype.INT),
                comm.ineighborAllgatherv(of(new int[] {100 * me}), 1, Datatype.INT, of(allgatherv), ones, packed, Datatype.INT),
                comm.ineighborAlltoallw(of(blocks(me, k)), ones, bytes, ints, of(alltoallw), ones, bytes, ints)};
        comm.send(new int[] {4242 + me}, (me + 1) % n, 9);
        for (int i = started.length - 1; i >= 0; i--) {
            started[i].await();
        }
        Status got = wildcard.await();
        checkEquals(4242 + (me + n - 1) % n, user[0], "the wildcard receive beside neighbourhood collectives on the " + where);
        checkEquals(9, got.tag(), "tag of the user message");
        checkEquals(text(expectedAlltoall(h)), text(alltoall), "ineighborAlltoall on the " + where);
        checkEquals(text(expectedAllgather(h)), text(allgather), "ineighborAllgather on the " + where);
        checkEquals(text(expectedAlltoall(h)), text(alltoallv), "ineighborAlltoallv on the " + where);
        checkEquals(text(expectedAllgather(h)), text(allgatherv), "ineighborAllgatherv on the " + where);
        checkEquals(text(expectedAlltoall(h)), text(alltoallw), "ineighborAlltoallw on the " + where);
        // persistent: made once, started twice, each start sending what the buffer holds then
        int[] send = blocks(me, k);
        int[] recv = untouched(k);
        org.lockstep.api.PersistentRequest persistent = comm.neighborAlltoallInit(of(send), 1, Datatype.INT, of(recv), 1, Datatype.INT);
        for (int round = 0; round < 2; round++) {
            for (int j = 0; j < k; j++) {
                send[j] = 100 * me + j + 10_000 * round;
            }
            persistent.start();
            persistent.await();
            int[] expected = expectedAlltoall(h);
            for (int i = 0; i < k; i++) {
                expected[i] += expected[i] == UNTOUCHED ? 0 : 10_000 * round;
            }
            checkEquals(text(expected), text(recv), "start " + (round + 1) + " of a persistent neighborAlltoall on the " + where);
        }
        persistent.free();
    }
}
