package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.lockstep.pcie.PeerJvm;

/**
 * Single-copy delivery between two JVM processes over a /dev/shm device: each rank is a
 * {@link SingleCopyPeer} started with this JVM's java and module path.
 */
class SingleCopyProcessTest {
    /** The failure-detection bound of issue 4, with room for a loaded machine. */
    private static final long PROC_FAILED_BOUND_MS = 5_000;

    @Test
    void largeMessagesBetweenProcessesAreCopiedOnceIntoDeviceBuffers() throws Exception {
        List<String> out = runPair("exchange", 0, 0);
        long small = SingleCopyPeer.SIZES.stream().filter(n -> n < SingleCopyPeer.SINGLE_COPY).mapToLong(n -> n).sum();
        long large = SingleCopyPeer.SIZES.stream().filter(n -> n >= SingleCopyPeer.SINGLE_COPY).mapToLong(n -> n).sum();
        for (int rank = 0; rank < 2; rank++) {
            long copied = value(out.get(rank), "copied");
            // Each rank sends and receives every size once: small ones are copied in and out, large ones once.
            long expected = 2 * small + large;
            assertTrue(copied >= expected && copied < expected + 4096,
                    "rank " + rank + " copied " + copied + " bytes, expected " + expected + " (+ the 1-byte signals): " + out.get(rank));
            assertEquals(SingleCopyPeer.SIZES.stream().filter(n -> n >= SingleCopyPeer.SINGLE_COPY).count(),
                    value(out.get(rank), "singleCopies"), out.get(rank));
        }
    }

    @Test
    void aSenderKilledInTheMiddleOfTheCopyFailsTheReceiveWithinTheBound() throws Exception {
        List<String> out = runPair("senderDies", SingleCopyPeer.DIED, 0);
        assertTrue(value(out.get(1), "procFailedMs") < PROC_FAILED_BOUND_MS, out.get(1));
    }

    @Test
    void aReceiverKilledBeforeItAnswersFailsTheSendWithinTheBound() throws Exception {
        List<String> out = runPair("receiverDies", 0, SingleCopyPeer.DIED);
        assertTrue(value(out.get(0), "procFailedMs") < PROC_FAILED_BOUND_MS, out.get(0));
    }

    /** A process whose program threw is published as failed, not as finished: its peers' errors say so. */
    @Test
    void aRankWhoseProgramThrowsIsSeenAsFailedNotFinished() throws Exception {
        List<String> out = runPair("peerThrows", 0, 1);
        assertTrue(out.get(0).contains("rank 1 has failed"), out.get(0));
    }

    /** Runs both ranks of {@code scenario}; checks their exit codes; returns their output. */
    private static List<String> runPair(String scenario, int exit0, int exit1) throws Exception {
        Path device = Path.of("/dev/shm", "lockstep-single-copy-" + ProcessHandle.current().pid() + "-" + scenario);
        String jobKey = Long.toHexString(System.nanoTime() ^ 0x5C0FFEEL);
        List<Process> ranks = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int rank = 0; rank < 2; rank++) {
                Path log = Files.createTempFile("lockstep-single-copy-" + rank, ".log");
                logs.add(log);
                ranks.add(new ProcessBuilder(PeerJvm.command("128m", SingleCopyPeer.class, device.toString(), Integer.toString(rank),
                        jobKey, scenario)).redirectErrorStream(true)
                        .redirectOutput(log.toFile()).start());
            }
            List<String> out = new ArrayList<>();
            int[] expected = {exit0, exit1};
            for (int rank = 0; rank < 2; rank++) {
                Process p = ranks.get(rank);
                int r = rank;
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), () -> "rank " + r + " did not finish: " + read(logs.get(r)));
                out.add(read(logs.get(rank)));
                assertEquals(expected[rank], p.exitValue(), "exit code of rank " + rank + ": " + out.get(rank));
            }
            return out;
        } finally {
            for (Process p : ranks) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            for (Path log : logs) {
                Files.deleteIfExists(log);
            }
            Files.deleteIfExists(device);
            assertFalse(Files.exists(device));
        }
    }

    private static long value(String output, String key) {
        Matcher m = Pattern.compile("\\b" + key + "=(\\d+)").matcher(output);
        assertTrue(m.find(), () -> "no " + key + "= in: " + output);
        return Long.parseLong(m.group(1));
    }

    private static String read(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }
}
