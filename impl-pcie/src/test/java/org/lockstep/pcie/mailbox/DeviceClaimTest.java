package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.DeviceFormat;
import org.lockstep.pcie.layout.FormatterProcess;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.RankTableDescriptor;
import org.lockstep.pcie.layout.SuperblockDescriptor;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

/**
 * A rank process's claim on a device: it takes over a format whose formatter died half way, and
 * formats afresh the device of a job that has ended only when asked to; a job that still runs is
 * never touched. Formatters and ranks are real processes (ended or alive) of this host.
 */
@Timeout(120)
class DeviceClaimTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final MailboxConfig OLD_JOB = new MailboxConfig(2, 4, 128, 8, 64 * 1024, 0x01d);
    private static final MailboxConfig NEW_JOB = new MailboxConfig(2, 4, 128, 8, 64 * 1024, 0x2e7);

    private final ExternalMemory device = DeviceProviders.open(DeviceSpec.of("emulated",
            new MailboxLayout(NEW_JOB, DeviceSpec.DEFAULT_BLOCK_SIZE).requiredCapacity()));
    private Process alive;

    @AfterEach
    void close() {
        device.close();
        if (alive != null) {
            alive.destroyForcibly();
        }
    }

    /** A process of this host that has ended, as the superblock would name it. */
    private static FormatterProcess endedProcess() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("true").start();
        long start = p.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
        p.waitFor();
        return new FormatterProcess(p.pid(), start, HostIdentity.CURRENT);
    }

    private FormatterProcess aliveProcess() throws IOException {
        alive = new ProcessBuilder("sleep", "120").start();
        return new FormatterProcess(alive.pid(), alive.info().startInstant().map(Instant::toEpochMilli).orElse(0L), HostIdentity.CURRENT);
    }

    /** Names {@code formatter} in the superblock as a formatter does before it clears anything. */
    private void nameFormatter(FormatterProcess formatter) {
        device.putLongVolatile(SuperblockDescriptor.FORMATTER_HOST_OFFSET, formatter.host());
        device.putLongVolatile(SuperblockDescriptor.FORMATTER_OFFSET, formatter.word());
    }

    /** The old job formatted by {@code formatter}, its ranks in {@code state}, run by {@code rankProcess}. */
    private void oldJob(FormatterProcess formatter, long state, FormatterProcess rankProcess) {
        MailboxLayout layout = DeviceFormat.format(device, OLD_JOB, WAIT, true, formatter);
        for (int r = 0; r < OLD_JOB.worldSize(); r++) {
            long entry = layout.rankEntry(r);
            device.putLong(entry + RankTableDescriptor.PID_OFFSET, rankProcess.pid());
            device.putLong(entry + RankTableDescriptor.PROCESS_START_OFFSET, rankProcess.startMillis());
            device.putLong(entry + RankTableDescriptor.HOST_OFFSET, rankProcess.host());
            device.putLongRelease(entry + RankTableDescriptor.STATE_OFFSET, state);
        }
    }

    private MailboxLayout claim(MailboxConfig config, boolean reuse) {
        return new DeviceClaim(device, config, 0, 1, reuse).claim(WAIT, true);
    }

    @Test
    void aFormatWhoseFormatterDiedHalfWayIsTakenOverAtOnce() throws Exception {
        FormatterProcess dead = endedProcess();
        assertTrue(DeviceFormat.claimBlank(device, true));
        nameFormatter(dead);
        long start = System.nanoTime();
        MailboxLayout layout = claim(NEW_JOB, false);
        assertEquals(NEW_JOB, layout.config());
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "no wait for the full attach timeout");
        assertEquals(ProcessHandle.current().pid(), DeviceFormat.formatter(device).pid());
    }

    @Test
    void theFormatterWordNamesTheProcessAndItsStartTimeTogether() throws Exception {
        FormatterProcess me = HostIdentity.currentProcess();
        assertEquals(me, FormatterProcess.of(me.word(), me.host()), "one word gives back id and start time");
        FormatterProcess justStarted = new FormatterProcess(4_194_303, System.currentTimeMillis() + 5_000, HostIdentity.CURRENT);
        assertEquals(justStarted, FormatterProcess.of(justStarted.word(), justStarted.host()), "a clock a little ahead is no problem");
        assertEquals(new FormatterProcess(77, 0, 5), FormatterProcess.of(new FormatterProcess(77, 0, 5).word(), 5), "start unknown");
        FormatterProcess dead = endedProcess();
        assertTrue(DeviceFormat.claimBlank(device, true));
        nameFormatter(dead);
        assertTrue(DeviceFormat.takeOver(device, dead, me));
        // Whoever reads the formatter now sees the taker's own start time with its id: a rank that
        // read the dead formatter's start beside the taker's id would judge the taker gone and take over too.
        assertEquals(me, DeviceFormat.formatter(device));
        assertTrue(!DeviceFormat.takeOver(device, dead, endedProcess()), "the dead formatter's word no longer matches");
    }

    @Test
    void aFormatWhoseFormatterNeverNamedItselfIsTakenOverAfterTheFormatLease() {
        assertTrue(DeviceFormat.claimBlank(device, true)); // and "dies" before it writes who it is
        long start = System.nanoTime();
        assertEquals(NEW_JOB, claim(NEW_JOB, false).config());
        assertTrue(System.nanoTime() - start >= DeviceClaim.FORMAT_LEASE.toNanos(), "not before the lease");
    }

    @Test
    void aLiveFormatterIsWaitedForNotTakenOver() throws Exception {
        FormatterProcess live = aliveProcess();
        assertTrue(DeviceFormat.claimBlank(device, true));
        nameFormatter(live);
        LockstepException e = assertThrows(LockstepException.class,
                () -> new DeviceClaim(device, NEW_JOB, 0, 1, true).claim(Duration.ofMillis(300), true));
        assertTrue(e.getMessage().contains("is still at it"), e.getMessage());
        assertEquals(live.pid(), DeviceFormat.formatter(device).pid(), "the live formatter keeps it");
    }

    @Test
    void theDeviceOfAnEndedJobIsRefusedWithTheReasonAndReusedOnRequest() throws Exception {
        FormatterProcess dead = endedProcess();
        oldJob(dead, RankTableDescriptor.STATE_FINISHED, dead);
        LockstepException refused = assertThrows(LockstepException.class, () -> claim(NEW_JOB, false));
        assertTrue(refused.getMessage().contains("which has ended") && refused.getMessage().contains("--reuse-device"),
                refused.getMessage());
        assertEquals(OLD_JOB.jobKey(), DeviceFormat.storedJobKey(device), "refused: left as it was");
        MailboxLayout reused = claim(NEW_JOB, true);
        assertEquals(NEW_JOB, reused.config());
        assertEquals(RankTableDescriptor.STATE_ABSENT, device.getLong(reused.rankEntry(1) + RankTableDescriptor.STATE_OFFSET),
                "formatted afresh");
    }

    @Test
    void aRankKilledRunningCountsAsEnded() throws Exception {
        FormatterProcess dead = endedProcess();
        oldJob(dead, RankTableDescriptor.STATE_RUNNING, dead); // kill -9 leaves RUNNING behind
        assertEquals(NEW_JOB, claim(NEW_JOB, true).config());
    }

    @Test
    void aJobThatStillRunsIsNeverTouchedEvenOnRequest() throws Exception {
        FormatterProcess dead = endedProcess();
        oldJob(dead, RankTableDescriptor.STATE_RUNNING, aliveProcess());
        LockstepException e = assertThrows(LockstepException.class, () -> claim(NEW_JOB, true));
        assertTrue(e.getMessage().contains("belongs to job"), e.getMessage());
        assertEquals(OLD_JOB.jobKey(), DeviceFormat.storedJobKey(device));
    }

    @Test
    void anEarlierRunOfTheSameJobIsNamedAsSuchAndReusedOnRequest() throws Exception {
        FormatterProcess dead = endedProcess();
        oldJob(dead, RankTableDescriptor.STATE_FINISHED, dead);
        LockstepException e = assertThrows(LockstepException.class, () -> claim(OLD_JOB, false));
        assertTrue(e.getMessage().contains("an earlier run of this job"), e.getMessage());
        MailboxLayout again = claim(OLD_JOB, true);
        assertEquals(RankTableDescriptor.STATE_ABSENT, device.getLong(again.rankEntry(0) + RankTableDescriptor.STATE_OFFSET));
        // A restarted rank (incarnation 2) of the same job attaches to what is there, as restarts need.
        oldJob(dead, RankTableDescriptor.STATE_FAILED, dead);
        assertEquals(OLD_JOB, new DeviceClaim(device, OLD_JOB, 0, 2, false).claim(WAIT, true).config());
    }
}
