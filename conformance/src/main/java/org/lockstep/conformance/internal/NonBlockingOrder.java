package org.lockstep.conformance.internal;

import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.PayloadPattern;

/**
 * COLL.12: the non-blocking barrier, broadcast and allreduce — the ones a provider is most likely
 * to run natively rather than as point-to-point schedules — kept in MPI's order. Each round has
 * three phases, each starting with nothing in flight: an ibarrier whose last rank starts late (the
 * others test it meanwhile: none may see it complete; then each tells the late rank by a message),
 * an ibcast past two chunks whose root starts late (likewise), then several of each started together with a point-to-point ring among them
 * and completed in reverse order on even ranks and by {@code testAll} alone on odd ones.
 */
final class NonBlockingOrder {
    private static final int ROUNDS = 3;
    /** Tests a rank makes of a collective that must not complete yet. */
    private static final int EARLY_TESTS = 200;
    /** Past two chunks of 64 KiB: a chunked broadcast's root must wait for its readers. */
    private static final int LARGE = (150 << 10) + 13;
    private static final int SUM_LONGS = 500;
    private static final int RING_TAG = 12;
    /** The tag of the message each other rank sends the late one once it has tested its own collective. */
    private static final int STARTED_TAG = 13;

    private NonBlockingOrder() {
    }

    static void run(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 5)) {
            c.runClean(n, "non-blocking barrier, bcast and allreduce in flight together", rank -> {
                for (int round = 0; round < ROUNDS; round++) {
                    lateLastRank(rank.comm(), round);
                    lateRoot(rank.comm(), round);
                    inFlightTogether(rank.comm(), round);
                }
            });
        }
    }

    /** An ibarrier whose last rank starts it only once every other rank has tested its own and said so. */
    private static void lateLastRank(Communicator w, int round) {
        int late = (w.size() - 1 + round) % w.size();
        if (w.rank() == late) {
            awaitOthers(w, late);
            w.ibarrier().await();
            return;
        }
        Request barrier = w.ibarrier();
        for (int i = 0; i < EARLY_TESTS; i++) {
            check(barrier.test().isEmpty(), "rank " + w.rank() + "'s ibarrier of round " + round + " completed before rank " + late
                    + " started it");
        }
        started(w, late);
        barrier.await();
    }

    /** An ibcast of {@link #LARGE} bytes whose root starts it only once every other rank has tested its own and said so. */
    private static void lateRoot(Communicator w, int round) {
        int root = (1 + round) % w.size();
        long seed = 1200L + round;
        MemorySegment buffer;
        Request bcast;
        if (w.rank() == root) {
            awaitOthers(w, root);
            buffer = PayloadPattern.of(seed, LARGE);
            bcast = w.ibcast(buffer, LARGE, Datatype.BYTE, root);
        } else {
            buffer = MemorySegment.ofArray(new byte[LARGE]);
            bcast = w.ibcast(buffer, LARGE, Datatype.BYTE, root);
            for (int i = 0; i < EARLY_TESTS; i++) {
                check(bcast.test().isEmpty(), "rank " + w.rank() + "'s ibcast of round " + round + " completed before its root "
                        + root + " started it");
            }
            started(w, root);
        }
        bcast.await();
        check(PayloadPattern.matches(buffer, seed, LARGE), "rank " + w.rank() + " did not get the " + LARGE
                + " bytes of round " + round + "'s ibcast from " + root);
    }

    /**
     * The late rank hears from every other that it has started and tested its collective: by a
     * message beside the pending collectives (MPI lets them overlap), so that the rule holds where
     * ranks are processes of a launcher's job or virtual processors of a simulation.
     */
    private static void awaitOthers(Communicator w, int late) {
        for (int r = 0; r < w.size(); r++) {
            if (r != late) {
                w.recv(MemorySegment.ofArray(new int[1]), 1, Datatype.INT, r, STARTED_TAG);
            }
        }
    }

    private static void started(Communicator w, int late) {
        w.send(MemorySegment.ofArray(new int[] {w.rank()}), 1, Datatype.INT, late, STARTED_TAG);
    }

    /** Two ibcasts, two iallreduces and an ibarrier started together with a ring exchange, completed in two orders. */
    private static void inFlightTogether(Communicator w, int round) {
        int p = w.size();
        int me = w.rank();
        int otherRoot = (p - 1 + round) % p;
        MemorySegment small = me == 0 ? PayloadPattern.of(1300L + round, 8) : MemorySegment.ofArray(new byte[8]);
        MemorySegment other = me == otherRoot ? PayloadPattern.of(1400L + round, 8) : MemorySegment.ofArray(new byte[8]);
        long[] firstIn = {10L * me + round, 10L * me + 1, 10L * me + 2};
        long[] firstOut = new long[3];
        long[] sumIn = new long[SUM_LONGS];
        for (int i = 0; i < SUM_LONGS; i++) {
            sumIn[i] = (me + 1L) * (i + round + 1L);
        }
        long[] sumOut = new long[SUM_LONGS];
        long[] ringIn = new long[1];
        List<Request> started = new ArrayList<>(List.of(
                w.ibcast(small, 8, Datatype.BYTE, 0),
                w.iallreduce(MemorySegment.ofArray(firstIn), MemorySegment.ofArray(firstOut), 3, Datatype.LONG, CollectiveRules.FIRST),
                w.isend(MemorySegment.ofArray(new long[] {1000L * me + round}), 1, Datatype.LONG, (me + 1) % p, RING_TAG),
                w.ibarrier(),
                w.irecv(MemorySegment.ofArray(ringIn), 1, Datatype.LONG, (me + p - 1) % p, RING_TAG),
                w.iallreduce(MemorySegment.ofArray(sumIn), MemorySegment.ofArray(sumOut), SUM_LONGS, Datatype.LONG, Op.SUM),
                w.ibcast(other, 8, Datatype.BYTE, otherRoot)));
        Request[] all = started.toArray(Request[]::new);
        if (me % 2 == 0) {
            for (int i = all.length - 1; i >= 0; i--) {
                all[i].await();
            }
        } else {
            while (Request.testAll(all).isEmpty()) {
                Thread.onSpinWait();
            }
        }
        check(PayloadPattern.matches(small, 1300L + round, 8), "rank " + me + ": the 8-byte ibcast from 0, round " + round);
        check(PayloadPattern.matches(other, 1400L + round, 8), "rank " + me + ": the 8-byte ibcast from " + otherRoot + ", round " + round);
        checkEquals(Arrays.toString(new long[] {round, 1, 2}), Arrays.toString(firstOut), "rank " + me + ": an iallreduce of a"
                + " non-commutative operation in rank order gives rank 0's values, round " + round);
        for (int i = 0; i < SUM_LONGS; i++) {
            checkEquals((long) p * (p + 1) / 2 * (i + round + 1L), sumOut[i], "rank " + me + ": iallreduce sum, element " + i
                    + ", round " + round);
        }
        checkEquals(1000L * ((me + p - 1) % p) + round, ringIn[0], "rank " + me + ": the ring message among the collectives, round " + round);
    }
}
