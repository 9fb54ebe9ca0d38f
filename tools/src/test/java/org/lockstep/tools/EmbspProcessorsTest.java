package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lockstep.applications.Application;
import org.lockstep.applications.Applications;

/**
 * {@code lockstep embsp --processors P}: P real processors as P launched JVMs, each simulating v/P
 * VPs on its own disk files, talking through the mailbox transport — the applications give the
 * sequential digest, a program of one's own runs, and bad input fails every processor clearly.
 */
@Timeout(600)
class EmbspProcessorsTest {
    private static final String TEST_CLASSES = Path.of("target", "test-classes").toAbsolutePath().toString();

    @ParameterizedTest(name = "{0} P={3} v={4} {5}")
    @CsvSource({"sort, --keys, 40000, 2, 4, direct", "prefix-sums, --values, 30000, 2, 6, direct",
            "list-ranking, --nodes, 2000, 2, 4, direct", "sort, --keys, 40000, 4, 8, direct", "sort, --keys, 40000, 2, 4, indirect",
            "prefix-sums, --values, 30000, 4, 8, direct", "list-ranking, --nodes, 2000, 4, 8, direct"})
    void applicationsGiveTheSequentialDigest(String name, String sizeOption, long size, int processors, int v, String delivery)
            throws IOException {
        Application app = Applications.create(name, List.of(sizeOption, Long.toString(size)));
        CommandLineTest.Run r = CommandLineTest.run("embsp", "--processors", Integer.toString(processors), "--vps", Integer.toString(v),
                "--cores", "1", "--block-size", "4k", "--disks", EmbspCommandTest.diskDir().toString(), "--progress", "0",
                "--jvm-option", "-Xmx128m", "--delivery", delivery, "--", name, sizeOption, Long.toString(size));
        assertEquals(0, r.exitCode(), r.err() + r.out());
        Map<String, String> line = EmbspCommandTest.closingLine(r.out());
        assertEquals(delivery, line.get("delivery"));
        assertEquals(Long.toString(app.expectedDigest()), line.get("digest"), name + " on " + processors + " processors");
        assertEquals(Integer.toString(processors), line.get("processors"));
        assertEquals("true", line.get("within_bounds"), r.out());
        assertTrue(Long.parseLong(line.get("network_bytes")) > 0, r.out());
        assertEquals(processors, line.get("processor_peak_rss_bytes").split(",").length, "one peak RSS per process");
    }

    /**
     * {@code lockstep run -n 2 --provider embsp -- sort …}: the launcher starts the real processors
     * like any job's ranks (each process simulates v/P VPs); μ is sized for the application as
     * {@code lockstep embsp} sizes it. The application checks its own result (a wrong one fails its
     * process); processor 0 writes the whole run's simulator line.
     */
    @Test
    void theLauncherRunsAnApplicationOnTwoRealProcessors(@TempDir Path dir) throws IOException {
        Path stats = dir.resolve("stats");
        Path device = dir.resolve("network-device");
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = System.out;
        CommandLineTest.Run r;
        System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            r = CommandLineTest.run("run", "-n", "2", "--provider", "embsp", "--device", device.toString(), "-o", "lockstep.embsp.vps=4",
                    "-o", "lockstep.embsp.cores=1",
                    "-o", "lockstep.embsp.blockSize=4096", "-o", "lockstep.embsp.disks=" + EmbspCommandTest.diskDir(),
                    "-o", "lockstep.embsp.statsOut=" + stats, "--jvm-option", "-Xmx128m", "--", "sort", "--keys", "40000");
        } finally {
            System.setOut(out);
        }
        String ranks = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, r.exitCode(), r.err() + ranks);
        Application app = Applications.create("sort", List.of("--keys", "40000"));
        assertTrue(ranks.contains("[0] app=sort size=40000 ranks=4 digest=" + app.expectedDigest() + " "), ranks);
        Map<String, String> line = EmbspCommandTest.closingLine(Files.readString(stats));
        assertEquals("2", line.get("processors"), line.toString());
        assertEquals("4", line.get("vps"));
        assertEquals("true", line.get("within_bounds"), line.toString());
        assertEquals(Long.toString((app.contextBytes(4) + 4095) / 4096 * 4096), line.get("context_size"), "mu sized for the application");
        assertFalse(Files.exists(device), "the launcher removes the processors' network device it made for the job");
    }

    /**
     * Under EM-BSP an application's memory is its VPs' contexts, not the device between the real
     * processors: a problem far beyond memory sizes μ, and leaves the device's partitions alone.
     */
    @Test
    void anApplicationUnderEmBspIsSizedInContextsNotInTheDevice() {
        List<String> args = List.of("--keys", Long.toString(8L << 30 >> 3));
        Map<String, String> embsp = new java.util.LinkedHashMap<>(Map.of("lockstep.provider", "embsp", "lockstep.embsp.vps", "128"));
        RunCommand.sizeForApplication("sort", args, embsp, 2);
        long mu = Long.parseLong(embsp.get("lockstep.embsp.contextSize"));
        Application app = Applications.create("sort", args);
        assertEquals((app.contextBytes(128) + (64 << 10) - 1) / (64 << 10) * (64 << 10), mu);
        assertTrue(!embsp.containsKey(RunCommand.HEAP_PER_RANK_PROPERTY), "the device is not sized for 8 GiB of keys: " + embsp);
        Map<String, String> device = new java.util.LinkedHashMap<>();
        RunCommand.sizeForApplication("sort", List.of("--keys", "1000"), device, 2);
        assertTrue(device.containsKey(RunCommand.HEAP_PER_RANK_PROPERTY), device.toString());
        assertTrue(!device.containsKey("lockstep.embsp.contextSize"), device.toString());
    }

    @ParameterizedTest(name = "{0} processors, {1} VPs")
    @CsvSource({"2, 6", "4, 8"})
    void aProgramOfYourOwnRunsOnSeveralProcessors(int processors, int vps) throws IOException {
        CommandLineTest.Run r = CommandLineTest.run("embsp", "--processors", Integer.toString(processors), "--vps", Integer.toString(vps),
                "--cores", "1", "--context-size", "64k", "--block-size", "4k", "--disks", EmbspCommandTest.diskDir().toString(),
                "--progress", "0", "--jvm-option", "-Xmx128m", "-cp", TEST_CLASSES, "--", "org.lockstep.embsptest.UserProgram", "sum");
        assertEquals(0, r.exitCode(), r.err() + r.out());
        assertTrue(r.out().contains("user program: " + vps + " ranks agree, sum " + vps * (vps - 1) / 2), r.out());
        Map<String, String> line = EmbspCommandTest.closingLine(r.out());
        assertEquals("org.lockstep.embsptest.UserProgram", line.get("program"));
        assertEquals(Integer.toString(vps), line.get("vps"));
        assertEquals(Integer.toString(processors), line.get("processors"), line.toString());
        assertEquals("true", line.get("within_bounds"), r.out());
    }

    @Test
    void vThatPDoesNotDivideIsRefused() {
        CommandLineTest.Run r = CommandLineTest.run("embsp", "--processors", "3", "--vps", "4", "--", "sort", "--keys", "100");
        assertEquals(EmbspCommand.IMPOSSIBLE, r.exitCode(), r.err());
        assertTrue(r.err().contains("MPI_ERR_ARG") && r.err().contains("v = 4") && r.err().contains("P = 3"), r.err());
    }

    @Test
    void aProcessorThatDiesFailsTheOthersWithProcFailed() throws IOException {
        long start = System.nanoTime();
        CommandLineTest.Run r = CommandLineTest.run("embsp", "--processors", "2", "--vps", "4", "--cores", "1", "--context-size", "64k",
                "--block-size", "4k", "--disks", EmbspCommandTest.diskDir().toString(), "--progress", "0", "--jvm-option", "-Xmx128m",
                "-cp", TEST_CLASSES, "--", "org.lockstep.embsptest.UserProgram", "die");
        assertNotEquals(0, r.exitCode(), r.out());
        assertTrue(r.err().contains("real processor 1"), r.err());
        assertTrue((System.nanoTime() - start) / 1e9 < 120, "nothing hung");
    }

    @Test
    void aProcessorThatCannotStartFailsEveryProcessor(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("0"));
        CommandLineTest.Run r = CommandLineTest.run("embsp", "--processors", "2", "--vps", "4", "--cores", "1", "--block-size", "4k",
                "--disks", dir.resolve("{p}").resolve("disk").toString(), "--progress", "0", "--jvm-option", "-Xmx128m", "--", "prefix-sums",
                "--values", "1000");
        assertNotEquals(0, r.exitCode(), r.out());
        assertTrue(r.err().contains("real processor 1 could not start"), r.err());
    }
}
