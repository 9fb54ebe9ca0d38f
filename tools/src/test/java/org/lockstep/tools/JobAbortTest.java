package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import org.lockstep.api.Lockstep;

/**
 * {@code MPI_Abort} ends the whole job with its code at once, though the other ranks spin in loops
 * of their own without an MPI call ({@code AbortWhileOthersSpin}): on threads ({@code lockstep run
 * --threads}, the JVM being the job), on processes (the launcher stops the others as soon as the
 * aborting rank tells it, long before the grace period a failure gets), and on EM-BSP both ways.
 */
@Timeout(240)
class JobAbortTest {
    private static final String PROGRAM = "org.lockstep.mpiprograms.AbortWhileOthersSpin";
    private static final Path PROGRAMS = Path.of("target", "test-classes").toAbsolutePath();
    /** Far longer than any run here may take: a job that waits out its grace period fails the test's timeout. */
    private static final Duration GRACE = Duration.ofSeconds(600);
    private static final long BOUND_SECONDS = 120;

    private final List<Process> launchers = new ArrayList<>();

    @AfterEach
    void stopLaunchers() {
        launchers.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
        launchers.forEach(Process::destroyForcibly);
    }

    /** Runs {@code lockstep run --threads} as a JVM of its own, as a user does; its exit status within the bound. */
    private int lockstepRunThreads(Path output, String... extra) throws IOException, InterruptedException {
        List<String> arguments = new ArrayList<>(List.of("run", "--threads", "-n", "2"));
        arguments.addAll(List.of(extra));
        arguments.addAll(List.of("-cp", PROGRAMS.toString(), PROGRAM));
        List<String> command = ProcessLauncher.command(new ProcessLauncher.Job(1, "org.lockstep.tools/" + LockstepCommand.class.getName(),
                arguments, Optional.empty(), Map.of(), List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), List.of(), false,
                Duration.ZERO, false));
        Process launcher = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        launchers.add(launcher);
        assertTrue(launcher.waitFor(BOUND_SECONDS, TimeUnit.SECONDS), "the job still runs after " + BOUND_SECONDS + " s: "
                + Files.readString(output, StandardCharsets.UTF_8));
        return launcher.exitValue();
    }

    @Test
    void anAbortOnThreadsEndsTheJvmWithItsCode(@TempDir Path dir) throws Exception {
        Path output = dir.resolve("out");
        assertEquals(42, lockstepRunThreads(output), Files.readString(output, StandardCharsets.UTF_8));
        assertTrue(Files.readString(output, StandardCharsets.UTF_8).contains("MPI abort: rank 0: MPI_Abort("),
                Files.readString(output, StandardCharsets.UTF_8));
    }

    @Test
    void anAbortOnEmBspThreadsEndsTheJvmWithItsCode(@TempDir Path dir) throws Exception {
        Path output = dir.resolve("out");
        assertEquals(42, lockstepRunThreads(output, "--provider", EmbspCommand.PROVIDER), Files.readString(output, StandardCharsets.UTF_8));
    }

    @Test
    void anAbortOnProcessesStopsTheOthersAtOnceWithItsCode() {
        assertAbortedWith42(Map.of());
    }

    @Test
    void anAbortOnEmBspProcessesStopsTheOthersAtOnceWithItsCode() {
        assertAbortedWith42(Map.of(Lockstep.PROVIDER_PROPERTY, EmbspCommand.PROVIDER));
    }

    private static void assertAbortedWith42(Map<String, String> properties) {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        ProcessLauncher.Job job = new ProcessLauncher.Job(2, PROGRAM, List.of(), Optional.empty(), properties,
                List.of("-Xms64m", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"), List.of(PROGRAMS.toString()),
                false, GRACE, false);
        ProcessLauncher.Outcome outcome;
        try (java.io.PrintStream e = new java.io.PrintStream(err, true, StandardCharsets.UTF_8);
             java.io.PrintStream o = new java.io.PrintStream(java.io.OutputStream.nullOutputStream())) {
            outcome = new ProcessLauncher(o, e).run(job);
        }
        String printed = err.toString(StandardCharsets.UTF_8);
        assertEquals(42, outcome.exitCode(), printed);
        assertEquals(0, outcome.abort().orElseThrow().rank(), printed);
        assertTrue(printed.contains("rank 0 aborted the job with exit code 42"), printed);
    }
}
