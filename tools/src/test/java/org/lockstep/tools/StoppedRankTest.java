package org.lockstep.tools;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rank stopped with SIGSTOP (alive, but running no code) no longer hangs its job: after the
 * liveness lease its peers get PROC_FAILED naming it, the launcher says which rank stopped, and
 * the job ends.
 */
@Timeout(300)
class StoppedRankTest {
    private static final long LEASE_MILLIS = 2000;
    /** The mailbox transport's heartbeat interval (PeerWatch). */
    private static final long HEARTBEAT_MILLIS = 50;

    /** Output that the test can read while the job runs. */
    private static final class Live extends OutputStream {
        private final StringBuffer text = new StringBuffer();

        @Override
        public void write(int b) {
            text.append((char) b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            text.append(new String(b, off, len, StandardCharsets.UTF_8));
        }

        String text() {
            return text.toString();
        }
    }

    @Test
    void aStoppedRankIsReportedAndItsPeersGetProcessFailedAfterTheLease() throws Exception {
        Live out = new Live();
        Live err = new Live();
        Map<Integer, Process> ranks = new ConcurrentHashMap<>();
        ProcessLauncher.Job job = DeviceOwnershipTest.job(3, Optional.empty(),
                Map.of("lockstep.mailbox.livenessLeaseMillis", Long.toString(LEASE_MILLIS)), "wait-on-rank-1");
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8); PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            CompletableFuture<ProcessLauncher.Outcome> run = CompletableFuture.supplyAsync(() -> new ProcessLauncher(o, e)
                    .run(job, (rank, incarnation, process) -> ranks.put(rank, process)), executor);
            await().atMost(DeviceOwnershipTest.SLOW_MACHINE).until(() -> out.text().lines().filter(l -> l.endsWith(" holding")).count() == 3);
            long stoppedAt = System.nanoTime();
            Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(ranks.get(1).pid())).start();
            assertEquals(0, stop.waitFor());
            ProcessLauncher.Outcome outcome = run.get(DeviceOwnershipTest.SLOW_MACHINE.toSeconds(), TimeUnit.SECONDS);
            assertTrue(outcome.firstFailedRank() == 0 || outcome.firstFailedRank() == 2, err.text());
            assertTrue(err.text().contains("rank 1 (process " + ranks.get(1).pid() + ") is stopped"), err.text());
            for (int survivor : new int[] {0, 2}) {
                Matcher seen = Pattern.compile("\\[" + survivor + "\\] rank " + survivor + " saw rank 1 fail at (\\d+): (.*)")
                        .matcher(out.text());
                assertTrue(seen.find(), out.text() + err.text());
                assertTrue(seen.group(2).contains("stopped responding"), seen.group(2));
                long detection = Long.parseLong(seen.group(1)) - stoppedAt;
                // The lease runs from rank 1's last heartbeat, which may precede the SIGSTOP by up to one interval.
                assertTrue(detection >= Duration.ofMillis(LEASE_MILLIS - HEARTBEAT_MILLIS).toNanos(),
                        "not before the lease: " + detection / 1e6 + " ms");
            }
        } finally {
            executor.shutdownNow();
            ranks.values().forEach(Process::destroyForcibly);
        }
    }
}
