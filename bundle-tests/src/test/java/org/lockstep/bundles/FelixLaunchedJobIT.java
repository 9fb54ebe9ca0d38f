package org.lockstep.bundles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A launched job whose processes each start an OSGi framework: the test plays the launcher (as
 * {@code lockstep run}, {@code mpirun} or Slurm would, through the environment the API reads) and
 * starts three JVMs; each boots Felix with Lockstep's bundles, DS and Configuration Admin
 * ({@link FelixRankMain}) and joins the job through the configured provider's
 * {@code runAttached}, over one device file in {@code /dev/shm}.
 */
class FelixLaunchedJobIT {
    private static final int RANKS = 3;
    /** Three framework starts on a loaded two-core machine: generous. */
    private static final long JOB_SECONDS = 240;

    @Test
    void threeProcessesEachInTheirOwnFrameworkRunTheRingJob() throws Exception {
        Path work = Path.of("target/felix-launched").toAbsolutePath();
        Files.createDirectories(work);
        long jobKey = ThreadLocalRandom.current().nextLong();
        Path device = Path.of("/dev/shm", "lockstep-felix-it-" + Long.toHexString(jobKey));
        List<Process> processes = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int rank = 0; rank < RANKS; rank++) {
                Path log = work.resolve("rank" + rank + ".log");
                logs.add(log);
                ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx256m",
                        "-D" + ReactorJars.RUNTIME_BUNDLES + "=" + System.getProperty(ReactorJars.RUNTIME_BUNDLES),
                        "-cp", System.getProperty("java.class.path"), FelixRankMain.class.getName(),
                        work.resolve("cache-rank" + rank).toString())
                        .redirectErrorStream(true).redirectOutput(log.toFile());
                Map<String, String> env = builder.environment();
                env.put("LOCKSTEP_RANK", Integer.toString(rank));
                env.put("LOCKSTEP_SIZE", Integer.toString(RANKS));
                env.put("LOCKSTEP_DEVICE", device.toString());
                env.put("LOCKSTEP_JOB_KEY", HexFormat.of().toHexDigits(jobKey));
                processes.add(builder.start());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(JOB_SECONDS);
            for (int rank = 0; rank < RANKS; rank++) {
                Process process = processes.get(rank);
                boolean ended = process.waitFor(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertTrue(ended, "rank " + rank + " did not end within " + JOB_SECONDS + " s:\n" + read(logs.get(rank)));
                assertEquals(0, process.exitValue(), "rank " + rank + " failed:\n" + read(logs.get(rank)));
            }
            for (int rank = 0; rank < RANKS; rank++) {
                String expected = "rank " + rank + " of " + RANKS + " in its own framework: received "
                        + RingJob.expectedReceived(rank, RANKS) + ", sum " + RingJob.expectedSum(RANKS);
                String output = read(logs.get(rank));
                assertTrue(output.lines().anyMatch(expected::equals), "rank " + rank + " should say '" + expected + "':\n" + output);
            }
        } finally {
            processes.forEach(Process::destroyForcibly);
            Files.deleteIfExists(device);
        }
    }

    private static String read(Path log) throws IOException {
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "(no output)";
    }
}
