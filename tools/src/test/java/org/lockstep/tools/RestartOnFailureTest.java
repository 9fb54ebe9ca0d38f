package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's {@code --restart-on-failure}: a rank that dies is started again as its next
 * incarnation while the other ranks go on running; the job fails once the restarts are used up.
 * The program ({@code die-until} of {@code LaunchedPrograms}) needs no transport.
 */
@Timeout(120)
class RestartOnFailureTest {
    private static final String PROGRAMS = "org.lockstep.launchtest.LaunchedPrograms";

    record Launch(ProcessLauncher.Outcome outcome, String out, String err, Map<String, Long> pids) {
    }

    private static Launch launch(int ranks, int maxRestarts, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ProcessLauncher.Job job = new ProcessLauncher.Job(ranks, PROGRAMS, List.of(args), Optional.empty(), Map.of(),
                List.of("-Xms32m", "-Xmx32m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"),
                List.of(Path.of("target", "test-classes").toAbsolutePath().toString()), false, Duration.ofSeconds(5), false)
                .withRestarts(maxRestarts);
        ConcurrentMap<String, Long> pids = new ConcurrentHashMap<>();
        ProcessLauncher.Outcome outcome;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            outcome = new ProcessLauncher(o, e).run(job, (rank, incarnation, process) -> pids.put(rank + "." + incarnation, process.pid()));
        }
        return new Launch(outcome, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), Map.copyOf(pids));
    }

    @Test
    void aKilledRankIsRestartedAsItsNextIncarnationWhileTheOthersKeepRunning(@TempDir Path dir) {
        Path marker = dir.resolve("back");
        Launch l = launch(3, 3, "die-until", "1", "3", marker.toString());
        assertEquals(0, l.outcome().exitCode(), l.err() + l.out());
        assertEquals(List.of(1, 1), l.outcome().restarts().stream().map(ProcessLauncher.Restart::rank).toList());
        assertEquals(List.of(2, 3), l.outcome().restarts().stream().map(ProcessLauncher.Restart::incarnation).toList());
        assertTrue(l.outcome().restarts().stream().allMatch(r -> r.exitCode() == 137), l.outcome().restarts().toString());
        // Ranks 0 and 2 were started once and saw rank 1 come back: no global restart.
        assertEquals(Map.of("0.1", 1, "2.1", 1, "1.1", 1, "1.2", 1, "1.3", 1),
                Map.copyOf(l.pids().keySet().stream().collect(java.util.stream.Collectors.toMap(k -> k, k -> 1))));
        for (int survivor : new int[] {0, 2}) {
            assertTrue(l.out().contains("[" + survivor + "] rank " + survivor + " incarnation 1 pid " + l.pids().get(survivor + ".1")), l.out());
            assertTrue(l.out().contains("[" + survivor + "] rank " + survivor + " saw rank 1 back"), l.out());
        }
        assertTrue(l.out().contains("[1] rank 1 incarnation 3 pid"), l.out());
        assertTrue(l.err().contains("rank 1 was killed by signal 9 (exit code 137); restarting it as incarnation 2 (restart 1 of at most 3)"), l.err());
        assertTrue(l.err().contains("restarting it as incarnation 3 (restart 2 of at most 3)"), l.err());
        assertTrue(Files.exists(marker));
    }

    @Test
    void theJobFailsWhenTheRestartsAreUsedUp(@TempDir Path dir) {
        Path marker = dir.resolve("back");
        Launch l = launch(2, 1, "die-until", "1", "5", marker.toString());
        assertEquals(1, l.outcome().firstFailedRank(), l.err() + l.out());
        assertEquals(137, l.outcome().exitCode());
        assertEquals(1, l.outcome().restarts().size());
        assertTrue(l.err().contains("rank 1 was killed by signal 9 (exit code 137) and all 1 restarts are used"), l.err());
        // Rank 0 would wait for the marker forever: it is stopped after the grace period.
        assertTrue(l.err().contains("stopping rank 0 after the grace period"), l.err());
    }

    @Test
    void withoutRestartsAFailedRankFailsTheJob(@TempDir Path dir) {
        Launch l = launch(2, 0, "die-until", "0", "2", dir.resolve("back").toString());
        assertEquals(0, l.outcome().firstFailedRank(), l.err());
        assertTrue(l.outcome().restarts().isEmpty());
        assertTrue(l.err().contains("rank 0 was killed by signal 9 (exit code 137); the other ranks have 5 s to end"), l.err());
    }
}
