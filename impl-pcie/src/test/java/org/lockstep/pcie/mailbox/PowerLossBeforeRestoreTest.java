package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Status;
import org.lockstep.spi.device.CrashInjectable;
import org.lockstep.spi.device.CrashInjectable.PowerLoss;
import org.lockstep.spi.device.DeviceException;

/**
 * A resumed job whose ranks communicate before they restore their checkpoints — as a program that
 * duplicates the world at start does — after power was lost at each access of a send phase that
 * followed the checkpoints: the set-up traffic must neither be dropped as a re-send of what the lost
 * run placed after the checkpoint, nor take its place, and the re-sent phase must arrive once, whole.
 */
class PowerLossBeforeRestoreTest {
    private static final int TAG = 11;
    private static final int MESSAGES = 3;
    private static final long WAIT_SECONDS = 20;

    private static JobOptions options() {
        return CheckpointTesting.options(2);
    }

    private static int size(int i) {
        return i % 2 == 0 ? 200 : 3000;
    }

    private static byte pattern(int message, int at) {
        return (byte) (message * 31 + at * 7 + 1);
    }

    @Test
    void setUpTrafficBeforeRestoreSurvivesPowerLossAtEveryAccessOfTheSendPhase() throws Exception {
        ExecutorService ranks = Executors.newFixedThreadPool(2);
        try {
            long accesses = sendPhase(ranks, 0);
            assertTrue(accesses > MESSAGES, "the send phase made " + accesses + " mutating accesses");
            int crashed = 0;
            for (long at = 1; at <= accesses; at++) {
                if (sendPhase(ranks, at) < 0) {
                    crashed++;
                }
            }
            assertEquals(accesses, crashed, "every crash point falls inside the send phase");
        } finally {
            ranks.shutdownNow();
        }
    }

    /**
     * Both ranks duplicate the world, register, restore and checkpoint; rank 1 sends the numbered
     * messages with power lost at access {@code crashAt} of that phase (none for 0), and the job
     * resumes: both duplicate the world again before they restore, rank 1 sends everything again,
     * rank 0 receives. Returns the phase's mutating accesses, or -1 when the power was lost.
     */
    private static long sendPhase(ExecutorService ranks, long crashAt) throws Exception {
        MailboxThreadWorld world = MailboxThreadWorld.open(options());
        CrashInjectable crash = (CrashInjectable) world.device();
        MailboxThreadWorld resumed = null;
        try {
            both(ranks, "before the power loss", world.communicator(0), world.communicator(1), c -> {
                Communicator control = c.dup();
                c.checkpoints().register("state", CheckpointTesting.longs(4));
                assertEquals(0, c.checkpoints().restore());
                c.checkpoints().checkpoint();
                return control;
            });
            long start = crash.mutatingAccesses();
            if (crashAt > 0) {
                crash.armPowerLoss(crashAt, PowerLoss.WHOLE_LINES);
            }
            try {
                send(world.communicator(1));
            } catch (DeviceException e) {
                assertTrue(crash.poweredOff(), "the send phase failed without a power loss: " + e);
            }
            long accesses = crash.mutatingAccesses() - start;
            if (!crash.poweredOff()) {
                crash.disarm();
                receive(world.communicator(0), "in the fault-free run");
                return accesses;
            }
            crash.powerOn();
            resumed = MailboxThreadWorld.afterPowerLoss(world.device(), options());
            String when = "after power was lost at access " + crashAt + " of the send phase";
            both(ranks, when, resumed.recovered(0), resumed.recovered(1), c -> {
                Communicator control = c.dup(); // before restore(): set-up, not a re-send
                c.checkpoints().register("state", CheckpointTesting.longs(4));
                assertEquals(1, c.checkpoints().restore(), "the epoch rank " + c.rank() + " restarted from, " + when);
                if (c.rank() == 1) {
                    send(c);
                } else {
                    receive(c, when);
                }
                control.barrier(); // the duplicate works after the restore too
                return control;
            });
            for (int r = 0; r < 2; r++) {
                MailboxEndpoint endpoint = CheckpointTesting.endpoint(resumed, r);
                assertEquals(endpoint.statistics().retainedBytes, endpoint.operations().heapBytesInUse(), when + ": rank " + r
                        + "'s heap holds more than its log retains (the block of a set-up message never went back)");
            }
            return -1;
        } finally {
            crash.disarm();
            if (crash.poweredOff()) {
                crash.powerOn();
            }
            if (resumed != null) {
                resumed.close();
            } else {
                world.close();
            }
        }
    }

    private interface RankBody {
        Communicator run(Communicator world) throws Exception;
    }

    /** Runs {@code body} on both ranks at once; the ranks must finish within the wait. */
    private static void both(ExecutorService ranks, String when, Communicator zero, Communicator one, RankBody body) throws Exception {
        Future<Communicator> a = ranks.submit((Callable<Communicator>) () -> body.run(zero));
        Future<Communicator> b = ranks.submit((Callable<Communicator>) () -> body.run(one));
        try {
            a.get(WAIT_SECONDS, TimeUnit.SECONDS);
            b.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            a.cancel(true);
            b.cancel(true);
            fail("the ranks hung " + when + " (rank 0 done: " + a.isDone() + ", rank 1 done: " + b.isDone() + ")");
        }
    }

    private static void send(Communicator rank1) {
        for (int i = 0; i < MESSAGES; i++) {
            byte[] payload = new byte[size(i)];
            for (int k = 0; k < payload.length; k++) {
                payload[k] = pattern(i, k);
            }
            rank1.send(MemorySegment.ofArray(payload), payload.length, Datatype.BYTE, 0, TAG);
        }
    }

    private static void receive(Communicator rank0, String when) {
        MemorySegment buffer = MemorySegment.ofArray(new byte[4096]);
        for (int i = 0; i < MESSAGES; i++) {
            Status s = rank0.recv(buffer, buffer.byteSize(), Datatype.BYTE, 1, TAG);
            assertEquals(size(i), s.byteCount(), when + ": length of message " + i);
            for (int k = 0; k < size(i); k++) {
                assertEquals(pattern(i, k), buffer.get(ValueLayout.JAVA_BYTE, k), when + ": byte " + k + " of message " + i);
            }
        }
        assertTrue(rank0.iprobe(1, TAG).isEmpty(), when + ": a message more than the " + MESSAGES + " sent");
    }
}
