package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A launched rank's transport counters ({@code lockstep.mailbox.printStatistics}) are a record of the
 * {@code System.Logger} {@code org.lockstep.pcie.mailbox.ProcessWorld} at INFO, not a print: with a
 * logging configuration of the user's (here the JDK's default backend, java.util.logging, told by
 * {@code java.util.logging.config.file} to write level, logger and message), each rank's line comes
 * out in that form.
 */
@Timeout(300)
class LaunchedRankLogTest {
    /** The mailbox transport's option (its module exports nothing). */
    private static final String PRINT_STATISTICS = "lockstep.mailbox.printStatistics";

    @Test
    void eachRanksStatisticsReachItsSystemLogger(@TempDir Path dir) throws IOException {
        Path logging = Files.writeString(dir.resolve("logging.properties"), """
                handlers = java.util.logging.ConsoleHandler
                java.util.logging.ConsoleHandler.level = ALL
                java.util.logging.SimpleFormatter.format = logged %4$s %3$s: %5$s%n
                """);
        ProcessLauncher.Job job = new ProcessLauncher.Job(2, "org.lockstep.launchtest.LaunchedPrograms", List.of("point-to-point"),
                Optional.empty(), Map.of(PRINT_STATISTICS, "true"),
                List.of("-Xms64m", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-Djava.util.logging.config.file=" + logging),
                List.of(Path.of("target", "test-classes").toAbsolutePath().toString()), false, Duration.ofSeconds(10), false);
        CapturedLaunch launch = CapturedLaunch.run(job);
        ProcessLauncher.Outcome outcome = launch.outcome();
        String printed = launch.printed();
        assertEquals(0, outcome.exitCode(), printed);
        for (int rank = 0; rank < 2; rank++) {
            String line = "logged INFO org.lockstep.pcie.mailbox.ProcessWorld: lockstep rank " + rank + ": ";
            assertTrue(printed.contains(line), "rank " + rank + "'s statistics as a log record ('" + line + "'): " + printed);
        }
    }
}
