package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.CheckpointTesting.*;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.Request;

/**
 * A two-rank workload that can resume from its ranks' restored checkpoints: rank 0 sends values
 * 1..{@link #MESSAGES} and checkpoints every 5, rank 1 receives them, folds them into a hash and
 * checkpoints every 4. Both ranks are stepped from one thread, so a crash can strike anywhere.
 * Every receive checks it got the next value: a lost message stops the run (step budget), a
 * duplicated or reordered one fails it.
 */
final class PowerLossWorkload {
    static final int MESSAGES = 30;
    private static final long STEP_BUDGET = 2_000_000;

    /** Per rank, the highest epoch a checkpoint call returned as durable: a restart must never go back before it. */
    final long[] acknowledgedEpoch = new long[2];
    private Communicator sender;
    private Communicator receiver;
    private MemorySegment senderState;   // next value to send
    private MemorySegment receiverState; // values received, hash
    private Request pending;

    /** Attaches the (restarted) ranks; on a restart each restores its state from its own checkpoint. */
    void attach(Communicator sender, Communicator receiver) {
        this.sender = sender;
        this.receiver = receiver;
        this.pending = null;
        senderState = longs(1);
        receiverState = longs(2);
        set(senderState, 0, 1);
        sender.checkpoints().register("next", senderState);
        receiver.checkpoints().register("received", receiverState);
        long senderEpoch = sender.checkpoints().restore();
        long receiverEpoch = receiver.checkpoints().restore();
        assertTrue(senderEpoch >= acknowledgedEpoch[0], "rank 0 restarted from epoch " + senderEpoch
                + " though epoch " + acknowledgedEpoch[0] + " was acknowledged as durable");
        assertTrue(receiverEpoch >= acknowledgedEpoch[1], "rank 1 restarted from epoch " + receiverEpoch
                + " though epoch " + acknowledgedEpoch[1] + " was acknowledged as durable");
    }

    void runToEnd() {
        long steps = 0;
        while (get(receiverState, 0) < MESSAGES) {
            if (++steps > STEP_BUDGET) {
                throw new AssertionError("lost: rank 1 waits for value " + (get(receiverState, 0) + 1) + " that never comes");
            }
            long next = get(senderState, 0);
            if (next <= MESSAGES && (pending == null || pending.test().isPresent())) {
                pending = sender.isend(new long[] {next, value(next)}, 1, 0);
                set(senderState, 0, next + 1);
                if (next % 5 == 0 && pending.test().isPresent()) {
                    acknowledge(0, sender.checkpoints().checkpoint());
                }
            }
            if (receiver.iprobe(0, 0).isPresent()) {
                long[] m = new long[2];
                receiver.recv(m, 0, 0);
                long count = get(receiverState, 0) + 1;
                assertEquals(count, m[0], "rank 1 expected value " + count + " and got " + m[0] + ": duplicated or out of order");
                assertEquals(value(count), m[1], "payload of value " + count);
                set(receiverState, 0, count);
                set(receiverState, 1, mix(get(receiverState, 1), m[1]));
                if (count % 4 == 0) {
                    acknowledge(1, receiver.checkpoints().checkpoint());
                }
            }
        }
    }

    private void acknowledge(int rank, Checkpoints.CheckpointResult result) {
        assertTrue(result.durable());
        acknowledgedEpoch[rank] = Math.max(acknowledgedEpoch[rank], result.epoch());
    }

    long receivedHash() {
        return get(receiverState, 1);
    }

    long received() {
        return get(receiverState, 0);
    }

    static long expectedHash() {
        long h = 0;
        for (long i = 1; i <= MESSAGES; i++) {
            h = mix(h, value(i));
        }
        return h;
    }

    static long value(long i) {
        return i * 0x9E3779B97F4A7C15L ^ 0x5DEECE66DL;
    }

    private static long mix(long h, long v) {
        return Long.rotateLeft(h * 31 + v, 7);
    }
}
