package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Jobs of separate JVM processes started by the launcher, passing messages through a device file
 * in {@code /dev/shm}. The programs are {@code org.lockstep.launchtest.LaunchedPrograms}.
 */
@Timeout(180)
class LaunchedJobTest {
    private static final String PROGRAMS = "org.lockstep.launchtest.LaunchedPrograms";

    /** What one launch printed and how it ended. */
    record Launch(ProcessLauncher.Outcome outcome, String out, String err) {
    }

    static Launch launch(int ranks, Optional<Path> device, boolean keepDevice, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ProcessLauncher.Job job = new ProcessLauncher.Job(ranks, PROGRAMS, List.of(args), device, Map.of(),
                List.of("-Xms64m", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"),
                List.of(Path.of("target", "test-classes").toAbsolutePath().toString()), keepDevice, Duration.ofSeconds(10), false);
        ProcessLauncher.Outcome outcome;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            outcome = new ProcessLauncher(o, e).run(job);
        }
        return new Launch(outcome, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = {2, 4, 8})
    void pointToPointPromisesHoldAcrossProcesses(int ranks) {
        Launch l = launch(ranks, Optional.empty(), false, "point-to-point");
        assertEquals(0, l.outcome().exitCode(), l.err() + l.out());
        for (int r = 0; r < ranks; r++) {
            assertTrue(l.out().contains("[" + r + "] point-to-point OK on rank " + r + " of " + ranks), l.out());
        }
        assertTrue(l.outcome().deviceRemoved(), "the launcher removes the device it created");
        assertFalse(Files.exists(l.outcome().device()));
    }

    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = {2, 3, 4})
    void collectivesGiveTheReferenceResultsAcrossProcesses(int ranks) {
        Launch l = launch(ranks, Optional.empty(), false, "collectives");
        assertEquals(0, l.outcome().exitCode(), l.err() + l.out());
        for (int r = 0; r < ranks; r++) {
            assertTrue(l.out().contains("[" + r + "] collectives OK on rank " + r + " of " + ranks), l.out());
        }
    }

    @Test
    void aKilledRankIsReportedAndTheOthersGetProcessFailedWithinTheBound() {
        Launch l = launch(3, Optional.empty(), false, "kill-rank-1");
        assertEquals(1, l.outcome().firstFailedRank(), l.err() + l.out());
        assertEquals(137, l.outcome().exitCodes()[1]);
        assertEquals(0, l.outcome().exitCodes()[0], l.err());
        assertEquals(0, l.outcome().exitCodes()[2], l.err());
        assertTrue(l.err().contains("rank 1 was killed by signal 9"), l.err());
        Matcher death = Pattern.compile("rank 1 dies at (\\d+)").matcher(l.out());
        assertTrue(death.find(), l.out());
        long diedAt = Long.parseLong(death.group(1));
        for (int survivor : new int[] {0, 2}) {
            Matcher seen = Pattern.compile("rank " + survivor + " saw rank 1 fail at (\\d+)").matcher(l.out());
            assertTrue(seen.find(), l.out());
            // The lease is 0.7 s; a generous bound keeps a loaded CI machine from failing the test.
            long detection = Long.parseLong(seen.group(1)) - diedAt;
            assertTrue(detection < Duration.ofSeconds(5).toNanos(), "rank " + survivor + " took " + detection / 1e6 + " ms");
        }
        assertFalse(Files.exists(l.outcome().device()), "the device is removed after a failed job too");
    }

    @Test
    void twoJobsOnOneMachineNeverSeeEachOthersMessages() {
        CompletableFuture<Launch> first = CompletableFuture.supplyAsync(() -> launch(2, Optional.empty(), false, "job-ring", "111"));
        CompletableFuture<Launch> second = CompletableFuture.supplyAsync(() -> launch(2, Optional.empty(), false, "job-ring", "222"));
        for (Launch l : List.of(first.join(), second.join())) {
            assertEquals(0, l.outcome().exitCode(), l.err() + l.out());
        }
        assertTrue(first.join().out().contains("job 111 rank 1 OK"));
        assertTrue(second.join().out().contains("job 222 rank 0 OK"));
        assertFalse(first.join().outcome().device().equals(second.join().outcome().device()));
    }

    @Test
    void aDeviceFileHoldingOtherDataIsRefusedAndKept() throws Exception {
        Path device = Path.of("/dev/shm", "lockstep-test-garbage-" + Long.toHexString(new SecureRandom().nextLong()));
        byte[] garbage = new byte[4 << 20];
        new SecureRandom().nextBytes(garbage);
        Files.write(device, garbage);
        Files.setPosixFilePermissions(device, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        try {
            Launch l = launch(2, Optional.of(device), false, "job-ring", "1");
            assertTrue(l.outcome().exitCode() != 0, l.out());
            assertTrue(l.err().contains("not a Lockstep device") || l.err().contains("refusing to format"), l.err());
            assertTrue(Files.exists(device), "a file the launcher did not create is not removed");
            assertEquals(garbage.length, Files.size(device));
        } finally {
            Files.deleteIfExists(device);
        }
    }

    @Test
    void aDeviceOfAnotherJobIsRefused() throws Exception {
        Path device = Path.of("/dev/shm", "lockstep-test-kept-" + Long.toHexString(new SecureRandom().nextLong()));
        try {
            Launch kept = launch(2, Optional.of(device), true, "job-ring", "5");
            assertEquals(0, kept.outcome().exitCode(), kept.err());
            assertTrue(Files.exists(device), "--keep-device keeps it");
            Launch other = launch(2, Optional.of(device), false, "job-ring", "6");
            assertTrue(other.outcome().exitCode() != 0, other.out());
            // The kept job has ended: its device is refused with the reason and the way to reuse it.
            assertTrue(other.err().contains("holds job 0x") && other.err().contains("which has ended")
                    && other.err().contains("--reuse-device"), other.err());
            assertTrue(Files.exists(device), "refused, not removed");
        } finally {
            Files.deleteIfExists(device);
        }
    }
}
