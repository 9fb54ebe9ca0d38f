package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The mailbox transport started by another launcher than ours: it removes its device when the last
 * rank leaves, and refuses, with a message that says why, a job its launcher spread over several hosts.
 */
@Timeout(240)
class ExternalLauncherTest {
    private static final String PROGRAMS = "org.lockstep.launchtest.LaunchedPrograms";

    private static List<String> rankCommand(String... args) {
        ProcessLauncher.Job job = new ProcessLauncher.Job(2, PROGRAMS, List.of(args), Optional.empty(), Map.of(),
                List.of("-Xms64m", "-Xmx64m", "-XX:TieredStopAtLevel=1"),
                List.of(Path.of("target", "test-classes").toAbsolutePath().toString()), false, Duration.ofSeconds(10), false);
        return ProcessLauncher.command(job);
    }

    private record Ended(int exitCode, String output) {
    }

    private static Ended start(List<String> command, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        for (String own : List.of("LOCKSTEP_RANK", "LOCKSTEP_SIZE", "LOCKSTEP_DEVICE", "LOCKSTEP_JOB_KEY")) {
            builder.environment().remove(own);
        }
        builder.environment().putAll(env);
        Process p = builder.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(200, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        return new Ended(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    @Test
    void theLastRankUnderMpirunRemovesTheDevice() throws Exception {
        Assumptions.assumeTrue(MpiEngine.onPath("mpirun.openmpi").isPresent() || "true".equals(System.getenv("CI")),
                "mpirun.openmpi is not installed");
        String key = Long.toHexString(new SecureRandom().nextLong() & Long.MAX_VALUE);
        Path device = Path.of("/dev/shm/lockstep-" + key);
        List<String> command = new ArrayList<>(List.of("mpirun.openmpi", "--oversubscribe", "--allow-run-as-root", "-np", "2",
                "-x", "LOCKSTEP_JOB_KEY"));
        command.addAll(rankCommand("point-to-point"));
        Ended ended = start(command, Map.of("LOCKSTEP_JOB_KEY", key));
        assertEquals(0, ended.exitCode(), ended.output());
        assertTrue(ended.output().contains("point-to-point OK on rank 1 of 2"), ended.output());
        assertFalse(Files.exists(device), "the device " + device + " outlived the job");
    }

    @Test
    void aJobSrunSpreadOverTwoHostsIsRefusedWithTheReason() throws Exception {
        Ended ended = start(rankCommand("point-to-point"), Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "2", "SLURM_JOB_ID", "77",
                "SLURM_STEP_ID", "0", "SLURM_STEP_NUM_NODES", "2"));
        assertNotEquals(0, ended.exitCode(), ended.output());
        assertTrue(ended.output().contains("over 2 hosts") && ended.output().contains("lockstep.provider=hybrid"), ended.output());
    }
}
