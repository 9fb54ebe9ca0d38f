package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The commands that run a job, in-process over the installed provider and the emulated device. */
@Timeout(120)
class JobRunTest {
    @Test
    void exampleOnThreeRanksChecksEveryMessage() {
        CommandLineTest.Run r = CommandLineTest.run("example", "-n", "3", "--threshold", "256");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("3 ranks (threads)"), r.out());
        assertTrue(r.out().contains("device emulated"), r.out());
        List<Long> sizes = ExampleCommand.sizes(256);
        for (int rank = 0; rank < 3; rank++) {
            for (long size : sizes) {
                Pattern received = Pattern.compile("(?m)^rank " + rank + " recv +" + size + " B from rank \\d.* ok$");
                assertEquals(2, received.matcher(r.out()).results().count(),
                        "rank " + rank + " should report two checked receipts of " + size + " B:\n" + r.out());
                Pattern sent = Pattern.compile("(?m)^rank " + rank + " sent +" + size + " B to");
                assertEquals(2, sent.matcher(r.out()).results().count(), r.out());
            }
        }
        assertTrue(r.out().contains("example OK: " + 3 * 2 * sizes.size() + " messages"), r.out());
        assertTrue(!r.out().contains("FAILED"), r.out());
    }

    @Test
    void pingPongSmokeTestHasOneRowPerSize(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("pingpong.csv");
        CommandLineTest.Run r = CommandLineTest.run("bench", "pingpong", "--sizes", "8,4096", "--iterations", "50",
                "--warmup-seconds", "0", "--max-warmup-seconds", "0", "--csv", csv.toString());
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(Pattern.compile("(?m)^\\| 8 \\| 50 \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\|$").matcher(r.out()).find(), r.out());
        assertTrue(Pattern.compile("(?m)^\\| 4096 \\| 50 \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\|$").matcher(r.out()).find(), r.out());
        List<String> lines = Files.readAllLines(csv);
        assertEquals(3, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(1).startsWith("8,50,") && lines.get(2).startsWith("4096,50,"), String.join("\n", lines));
    }

    @Test
    void pingPongOfRanksZeroAndTwoOfThreeProcessesReleasesTheRankOutsideThePair() {
        CommandLineTest.Run r = CommandLineTest.run("bench", "pingpong", "--processes", "3", "--echo-rank", "2", "--sizes", "8",
                "--iterations", "50", "--warmup-seconds", "0", "--max-warmup-seconds", "0");
        // the ranks print to the processes' own output; a rank 1 left waiting would hold the job past the timeout
        assertEquals(0, r.exitCode(), r.out() + r.err());
    }

    @Test
    void pingPongWarmsUpUntilBothJitsAreQuietOrItsLimitAndSaysSoPerSize() {
        CommandLineTest.Run r = CommandLineTest.run("bench", "pingpong", "--sizes", "8,64", "--iterations", "20", "--buffers", "one",
                "--warmup-seconds", "0", "--max-warmup-seconds", "0.6");
        assertEquals(0, r.exitCode(), r.err());
        Matcher warmUp = Pattern.compile("(?m)^WARMUP seconds=([0-9.]+) jit_quiet=(true|false)$").matcher(r.out());
        assertTrue(warmUp.find(), r.out());
        // Past the limit it stops, quiet or not (0.6 s plus a batch and the echo rank's answer).
        assertTrue(Double.parseDouble(warmUp.group(1)) < 5, r.out());
        for (String size : new String[] {"8", "64"}) {
            assertTrue(Pattern.compile("(?m)^WARMUP size=" + size + " seconds=[0-9.]+ jit_quiet=(true|false)$").matcher(r.out()).find(),
                    r.out());
            assertTrue(Pattern.compile("(?m)^PP size=" + size + " iters=20 ").matcher(r.out()).find(), r.out());
        }
    }

    @Test
    void collectivesWarmUpEndsByItsLimitWhenTheJitIsNotQuietAndSaysSo() {
        CommandLineTest.Run r = CommandLineTest.run("bench", "collectives", "-n", "2", "--row", "barrier:0", "--warmup-seconds", "0",
                "--max-warmup-seconds", "0.6", "--row-warmup-seconds", "0", "--budget", "0.01");
        assertEquals(0, r.exitCode(), r.err());
        Matcher warmUp = Pattern.compile("(?m)^WARMUP seconds=([0-9.]+) jit_quiet=(true|false) jvm_uptime_s=[0-9.]+$").matcher(r.out());
        assertTrue(warmUp.find(), r.out());
        // Past the limit it stops, quiet or not: a JIT that never settles must not hold the bench (0.6 s plus a batch).
        assertTrue(Double.parseDouble(warmUp.group(1)) < 5, r.out());
        assertTrue(Pattern.compile("(?m)^COLL op=barrier bytes=0 np=2 iters=\\d+ ").matcher(r.out()).find(), r.out());
    }

    @Test
    void providersListsEveryInstalledProviderAndMarksTheDefault() {
        CommandLineTest.Run r = CommandLineTest.run("providers");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("mailbox") && l.endsWith("(default)")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("embsp")), r.out());
    }
}
