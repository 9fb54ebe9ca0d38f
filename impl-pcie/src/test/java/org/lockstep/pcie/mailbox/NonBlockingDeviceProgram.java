package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * What {@link NonBlockingDeviceCollectivesTest} runs on every rank, on threads and in launched
 * processes ({@link NonBlockingDevicePeer}): rounds of ibcast (inline and over several chunks,
 * from different roots), iallreduce (a non-commutative operation and a sum) and ibarrier, started
 * back to back with a point-to-point ring exchange among them, completed in reverse order on even
 * ranks and by tests alone on odd ones. Returns the messages this rank's transport sent; the
 * caller compares them with the ring's.
 */
final class NonBlockingDeviceProgram {
    static final int ROUNDS = 3;
    /** Past two chunks of the collective area's data area (64 KiB for worlds of up to 8 ranks): the root must wait for consumers. */
    static final int LARGE = (150 << 10) + 13;
    private static final int RING_TAG = 77;
    /** Left projection: associative, not commutative; over the ranks in order it gives rank 0's value. */
    static final Op FIRST = Op.create((in, inout, count, type) -> MemorySegment.copy(in, 0, inout, 0, count * type.size()), false);

    private NonBlockingDeviceProgram() {
    }

    static long run(Communicator w) {
        int p = w.size();
        int me = w.rank();
        long before = messagesSent(w);
        for (int round = 0; round < ROUNDS; round++) {
            int largeRoot = (p - 1 + round) % p;
            MemorySegment small = me == 0 ? TestWorlds.pattern(0, 0, round, 8) : MemorySegment.ofArray(new byte[8]);
            MemorySegment large = me == largeRoot ? TestWorlds.pattern(largeRoot, 1, round, LARGE) : MemorySegment.ofArray(new byte[LARGE]);
            MemorySegment other = me == 1 % p ? TestWorlds.pattern(1 % p, 2, round, 8) : MemorySegment.ofArray(new byte[8]);
            long[] firstIn = {10L * me + round, 10L * me + 1, 10L * me + 2};
            long[] firstOut = new long[3];
            int longs = 500;
            long[] sumIn = new long[longs];
            for (int i = 0; i < longs; i++) {
                sumIn[i] = (me + 1L) * (i + round + 1L);
            }
            long[] sumOut = new long[longs];
            long[] ringOut = {1000L * me + round};
            long[] ringIn = new long[1];
            Request[] started = {
                w.ibcast(small, 8, Datatype.BYTE, 0),
                w.iallreduce(MemorySegment.ofArray(firstIn), MemorySegment.ofArray(firstOut), 3, Datatype.LONG, FIRST),
                w.isend(MemorySegment.ofArray(ringOut), 1, Datatype.LONG, (me + 1) % p, RING_TAG),
                w.ibarrier(),
                w.ibcast(large, LARGE, Datatype.BYTE, largeRoot),
                w.irecv(MemorySegment.ofArray(ringIn), 1, Datatype.LONG, (me + p - 1) % p, RING_TAG),
                w.iallreduce(MemorySegment.ofArray(sumIn), MemorySegment.ofArray(sumOut), longs, Datatype.LONG, Op.SUM),
                w.ibcast(other, 8, Datatype.BYTE, 1 % p)};
            if (me % 2 == 0) {
                for (int i = started.length - 1; i >= 0; i--) {
                    started[i].await();
                }
            } else {
                while (Request.testAll(started).isEmpty()) {
                    Thread.onSpinWait();
                }
            }
            check(TestWorlds.firstMismatch(small, 0, 0, round, 8) == -1, "inline ibcast from 0, round " + round);
            check(TestWorlds.firstMismatch(large, largeRoot, 1, round, LARGE) == -1, "chunked ibcast from " + largeRoot + ", round " + round);
            check(TestWorlds.firstMismatch(other, 1 % p, 2, round, 8) == -1, "second inline ibcast, round " + round);
            check(Arrays.equals(firstOut, new long[] {round, 1, 2}), "non-commutative iallreduce in rank order gives rank 0's "
                    + "values, got " + Arrays.toString(firstOut) + ", round " + round);
            for (int i = 0; i < longs; i++) {
                check(sumOut[i] == (long) p * (p + 1) / 2 * (i + round + 1L), "iallreduce sum element " + i + ", round " + round);
            }
            check(ringIn[0] == 1000L * ((me + p - 1) % p) + round, "ring message, round " + round);
        }
        return messagesSent(w) - before;
    }

    static long messagesSent(Communicator world) {
        return ((MailboxCommunicator) world).endpoint().statistics().messagesSent;
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
