package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.CheckpointTesting.*;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.spi.device.CrashInjectable;
import org.lockstep.spi.device.CrashInjectable.PowerLoss;
import org.lockstep.spi.device.DeviceException;

/**
 * Emulated power loss at generated crash points (QuickTheories): a point is the n-th mutating
 * device access of the run, so the plans fall during sends, receives, checkpoints, reclamation —
 * and, with a second crash point, during recovery itself.
 */
class PowerLossTrialsTest {
    private static final int MAX_RECOVERIES = 4;

    private static JobOptions options(int ranks) {
        return options(ranks, "64k");
    }

    /** A 4 KiB heap leaves 1 KiB log rings: 8 blocks of the workload's messages, so the rings wrap several times a run. */
    private static JobOptions options(int ranks, String heap) {
        return CheckpointTesting.options(ranks).with(MailboxOptions.HEAP_PER_RANK, heap);
    }

    @Test
    void aCrashAnywhereInACheckpointLeavesThePreviousOrTheNewCheckpointWhole() {
        int crashes = 0;
        for (int torn = 0; torn < 2; torn++) {
            for (long point = 1; ; point++) {
                MailboxThreadWorld world = MailboxThreadWorld.open(options(1));
                CrashInjectable crash = (CrashInjectable) world.device();
                Communicator rank = world.communicator(0);
                MemorySegment state = CheckpointTesting.longs(600);
                rank.checkpoints().register("state", state);
                fill(state, 1);
                rank.checkpoints().checkpoint();
                fill(state, 2);
                crash.armPowerLoss(point, torn == 1 ? PowerLoss.torn(point) : PowerLoss.WHOLE_LINES);
                boolean completed;
                try {
                    rank.checkpoints().checkpoint();
                    completed = true;
                    crash.disarm();
                    crash.powerLoss(PowerLoss.WHOLE_LINES);
                } catch (DeviceException e) {
                    completed = false;
                    crashes++;
                }
                crash.powerOn();
                MailboxThreadWorld after = MailboxThreadWorld.afterPowerLoss(world.device(), options(1));
                Communicator restarted = after.recovered(0);
                MemorySegment restored = CheckpointTesting.longs(600);
                restarted.checkpoints().register("state", restored);
                long epoch = restarted.checkpoints().restore();
                if (completed) {
                    assertEquals(2, epoch, "a checkpoint that returned is durable");
                }
                assertTrue(epoch == 1 || epoch == 2, "epoch " + epoch + " after a crash at access " + point);
                long[] expected = new long[600];
                java.util.Arrays.fill(expected, epoch);
                assertArrayEquals(expected, restored.toArray(ValueLayout.JAVA_LONG),
                        "crash at access " + point + (torn == 1 ? " (torn)" : "") + ": state of epoch " + epoch + " is not whole");
                after.close();
                if (completed) {
                    break;
                }
            }
        }
        assertTrue(crashes > 10, "the crash points must fall inside the checkpoint: " + crashes);
    }

    private static void fill(MemorySegment state, long value) {
        for (int i = 0; i < state.byteSize() / 8; i++) {
            state.setAtIndex(ValueLayout.JAVA_LONG, i, value);
        }
    }

    @Test
    void afterPowerLossAtGeneratedCrashPointsNothingAcknowledgedIsLostNothingIsDeliveredTwiceAndRecoveryRecoversAgain() {
        trials("64k", 100);
    }

    @Test
    void theSameHoldsWhileTheLogRingsWrapAround() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2, "4k"))) {
            PowerLossWorkload workload = new PowerLossWorkload();
            workload.attach(world.communicator(0), world.communicator(1));
            workload.runToEnd();
            long ring = world.layout().logRingLength();
            long logged = CheckpointTesting.endpoint(world, 0).statistics().messagesLogged;
            assertTrue(logged * 2 * org.lockstep.pcie.layout.LayoutConstants.CACHE_LINE > 2 * ring,
                    logged + " logged messages must fill the " + ring + "-byte ring twice over");
        }
        trials("4k", 60);
    }

    private static void trials(String heap, int examples) {
        long accesses = faultFreeAccesses(heap);
        qt().withExamples(examples).forAll(
                        integers().between(1, (int) accesses),
                        booleans().all(),
                        integers().between(0, 400),
                        longs().all())
                .checkAssert((crashAt, torn, recoveryCrashAt, seed) -> trial(heap, crashAt, torn, recoveryCrashAt, seed));
    }

    /** Mutating accesses of a fault-free run, the range the crash points are drawn from. */
    private static long faultFreeAccesses(String heap) {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2, heap))) {
            CrashInjectable crash = (CrashInjectable) world.device();
            long before = crash.mutatingAccesses();
            PowerLossWorkload workload = new PowerLossWorkload();
            workload.attach(world.communicator(0), world.communicator(1));
            workload.runToEnd();
            assertEquals(PowerLossWorkload.expectedHash(), workload.receivedHash());
            return crash.mutatingAccesses() - before;
        }
    }

    /**
     * One trial: crash at the {@code crashAt}-th access, recover (crashing again during recovery
     * at its {@code recoveryCrashAt}-th access if that is not 0), run to the end; the result must
     * equal the fault-free run's.
     */
    private static void trial(String heap, int crashAt, boolean torn, int recoveryCrashAt, long seed) {
        MailboxThreadWorld world = MailboxThreadWorld.open(options(2, heap));
        CrashInjectable crash = (CrashInjectable) world.device();
        PowerLossWorkload workload = new PowerLossWorkload();
        PowerLoss loss = torn ? PowerLoss.torn(seed) : PowerLoss.WHOLE_LINES;
        MailboxThreadWorld current = world;
        try {
            workload.attach(world.communicator(0), world.communicator(1));
            crash.armPowerLoss(crashAt, loss);
            boolean done = run(workload, crash);
            for (int recovery = 0; !done; recovery++) {
                assertTrue(recovery < MAX_RECOVERIES, "recovery does not converge");
                crash.powerOn();
                if (recovery == 0 && recoveryCrashAt > 0) {
                    crash.armPowerLoss(recoveryCrashAt, loss); // a crash during recovery itself
                }
                try {
                    current = MailboxThreadWorld.afterPowerLoss(world.device(), options(2, heap));
                    workload.attach(current.recovered(0), current.recovered(1));
                } catch (DeviceException e) {
                    assertTrue(crash.poweredOff(), "recovery failed without a crash: " + e);
                    continue;
                }
                done = run(workload, crash);
            }
            crash.disarm();
            assertEquals(PowerLossWorkload.MESSAGES, workload.received());
            assertEquals(PowerLossWorkload.expectedHash(), workload.receivedHash(),
                    "heap " + heap + ": crash at " + crashAt + (torn ? " (torn, seed " + seed + ")" : "") + ", recovery crash at " + recoveryCrashAt);
        } finally {
            crash.disarm();
            crash.powerOn();
            current.close();
        }
    }

    /** Runs the workload; false if the power failed (the crash struck), true if it finished. */
    private static boolean run(PowerLossWorkload workload, CrashInjectable crash) {
        try {
            workload.runToEnd();
            return true;
        } catch (DeviceException e) {
            if (!crash.poweredOff()) {
                throw e;
            }
            return false;
        }
    }
}
