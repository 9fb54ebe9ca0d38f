package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

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
        return PeerProcesses.run("single-copy-" + scenario, SingleCopyPeer.class, new int[] {exit0, exit1},
                (device, rank, jobKey) -> List.of(device.toString(), Integer.toString(rank), jobKey, scenario));
    }

    private static long value(String output, String key) {
        return PeerProcesses.value(output, key);
    }
}
