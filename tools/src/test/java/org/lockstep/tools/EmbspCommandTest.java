package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.applications.Applications;
import org.lockstep.tools.CommandLineTest.Run;

/** {@code lockstep embsp}: impossible configurations, the closing line, the bench file, its gnuplot script and plot. */
@Timeout(300)
class EmbspCommandTest {
    /** Disks of these tests: a directory of the build (a real filesystem, where O_DIRECT works). */
    static Path diskDir() throws IOException {
        return Files.createDirectories(Path.of("target", "embsp-disks").toAbsolutePath());
    }

    static Map<String, String> closingLine(String out) {
        List<String> lines = out.lines().filter(l -> !l.isBlank()).toList();
        String last = lines.getLast();
        Map<String, String> fields = new HashMap<>();
        for (String field : last.split("\\s+")) {
            int eq = field.indexOf('=');
            assertTrue(eq > 0, "not key=value: '" + field + "' in " + last);
            fields.put(field.substring(0, eq), field.substring(eq + 1));
        }
        return fields;
    }

    @Test
    void partitionsAboveTheMemoryBudgetAreRefusedWithTheirSizes() throws IOException {
        Run r = CommandLineTest.run("embsp", "--vps", "4", "--cores", "2", "--context-size", "8m", "--memory", "12m", "--disks",
                diskDir().toString(), "--", "prefix-sums", "--values", "100");
        assertEquals(EmbspCommand.IMPOSSIBLE, r.exitCode(), r.err());
        assertTrue(r.err().contains("MPI_ERR_NO_MEM") && r.err().contains("memory budget") && r.err().contains("8388608"), r.err());
    }

    @Test
    void aBlockSizeThatIsNotAMultipleOfTheDeviceBlockIsRefused() throws IOException {
        long deviceBlock = Files.getFileStore(diskDir()).getBlockSize();
        // a filesystem of 1-byte blocks accepts every B: nothing to refuse
        Assumptions.assumeTrue(deviceBlock >= 2, "device block of " + deviceBlock + " bytes");
        Run r = CommandLineTest.run("embsp", "--vps", "2", "--cores", "1", "--block-size", Long.toString(deviceBlock / 2),
                "--context-size", "128k", "--disks", diskDir().toString(), "--", "prefix-sums", "--values", "100");
        assertEquals(EmbspCommand.IMPOSSIBLE, r.exitCode(), r.err());
        assertTrue(r.err().contains("MPI_ERR_ARG") && r.err().contains("not a multiple") && r.err().contains(deviceBlock + "-byte"), r.err());
    }

    @Test
    void fewerVirtualProcessorsThanCoresIsRefused() {
        Run r = CommandLineTest.run("embsp", "--vps", "2", "--cores", "3", "--", "sort", "--keys", "100");
        assertEquals(EmbspCommand.IMPOSSIBLE, r.exitCode(), r.err());
        assertTrue(r.err().contains("MPI_ERR_ARG") && r.err().contains("v = 2") && r.err().contains("k = 3"), r.err());
    }

    @Test
    void aDiskWithoutRoomForAllContextsIsRefused() throws IOException {
        Path dir = diskDir();
        long usable = Files.getFileStore(dir).getUsableSpace();
        long mu = 16L << 20;
        int v = (int) Math.min(1 << 20, usable / mu + 64);
        Run r = CommandLineTest.run("embsp", "--vps", Integer.toString(v), "--cores", "1", "--context-size", "16m", "--disks",
                dir.toString(), "--", "prefix-sums", "--values", "100");
        assertEquals(EmbspCommand.IMPOSSIBLE, r.exitCode(), r.err());
        assertTrue(r.err().contains("MPI_ERR_NO_MEM") && r.err().contains("disk space") && r.err().contains(Long.toString(v * mu)), r.err());
        try (var files = Files.list(dir)) {
            assertTrue(files.noneMatch(f -> Files.isRegularFile(f) && sizeOf(f) >= v * mu), "no disk file was made");
        }
    }

    @Test
    void aContextTooSmallForTheApplicationIsRefusedBeforeTheRun() {
        Run r = CommandLineTest.run("embsp", "--vps", "2", "--cores", "1", "--context-size", "64k", "--", "sort", "--keys", "1m");
        assertEquals(EmbspCommand.IMPOSSIBLE, r.exitCode(), r.err());
        assertTrue(r.err().contains("--context-size") && r.err().contains("65536"), r.err());
    }

    @Test
    void anUnknownApplicationOrIoDriverIsAnError() {
        Run unknown = CommandLineTest.run("embsp", "--", "shuffle");
        assertEquals(EmbspCommand.IMPOSSIBLE, unknown.exitCode());
        assertTrue(unknown.err().contains("shuffle"), unknown.err());
        Run io = CommandLineTest.run("embsp", "--io", "dma", "--", "sort");
        assertEquals(LockstepCommand.USAGE, io.exitCode());
        assertTrue(io.err().contains("dma"), io.err());
    }

    @Test
    void contextsThatAllFitInTheBudgetAreNeverSwapped() throws IOException {
        Run r = CommandLineTest.run("embsp", "--vps", "6", "--cores", "2", "--memory", "64m", "--disks", diskDir().toString(),
                "--block-size", "4k", "--", "sort", "--keys", "30000");
        assertEquals(0, r.exitCode(), r.err() + r.out());
        Map<String, String> line = closingLine(r.out());
        assertEquals("0", line.get("swap_bytes"), "every context stayed in memory: " + line);
        assertEquals("0", line.get("delivery_bytes"), "every message went memory to memory: " + line);
        assertEquals("ok", line.get("check"));
    }

    @Test
    void theJvmIsSizedFromTheMemoryBudgetAndSaysSo() {
        Run small = CommandLineTest.run("embsp", "--print-jvm-options", "--vps", "128", "--cores", "2", "--memory", "512m", "--",
                "sort", "--keys", "1000");
        assertEquals(0, small.exitCode(), small.err());
        assertEquals("jvm-options: -Xms48m -Xmx48m -Xmn16m -XX:+AlwaysPreTouch -XX:+UseSerialGC -XX:MaxDirectMemorySize=16m"
                + " -XX:+ExitOnOutOfMemoryError", small.out().strip());
        assertTrue(small.err().contains("JVM sized from --memory 512 MiB for 128 VPs") && small.err().contains("keep within 512 MiB"),
                small.err());
        // 16384 VPs of 24 KiB each in the old generation (16 MiB of its own), a young one of 32 MiB: 432 MiB,
        // 384 MiB of them beyond the 48 MiB of the allowance, taken from the budget
        Run many = CommandLineTest.run("embsp", "--print-jvm-options", "--vps", "16384", "--cores", "2", "--memory", "512m", "--",
                "prefix-sums", "--values", "1000");
        assertTrue(many.out().contains("-Xmx432m -Xmn32m"), many.out());
        assertTrue(many.err().contains("keep within 128 MiB"), many.err());
        EmbspCommand command = new EmbspCommand();
        command.vps = 16384;
        command.memory = 512L << 20;
        assertEquals(128L << 20, command.jvm().simulatorBudget(), "what the simulator is given");
        // the sort's ranks hold 9 arrays of p words each (their own and the simulator's copies): 72 KiB more per VP at p = 1024
        Run sort = CommandLineTest.run("embsp", "--print-jvm-options", "--vps", "1024", "--cores", "2", "--memory", "512m", "--",
                "sort", "--keys", "1000");
        assertTrue(sort.out().contains("-Xmx144m"), sort.out());
        // processes: the launching JVM stays small, each processor's JVM is sized for its v/P VPs
        Run launcher = CommandLineTest.run("embsp", "--print-jvm-options", "--processors", "2", "--vps", "128", "--cores", "1",
                "--memory", "256m", "--", "sort", "--keys", "1000");
        assertTrue(launcher.out().contains("-Xmx64m") && launcher.err().contains("processor JVMs: JVM sized from --memory 256 MiB for 64 VPs"),
                launcher.out() + launcher.err());
    }

    @Test
    void aBudgetThatCannotHoldTheVirtualProcessorsHeapIsRefused() throws IOException {
        Run r = CommandLineTest.run("embsp", "--vps", "16384", "--cores", "2", "--memory", "256m", "--disks", diskDir().toString(),
                "--", "prefix-sums", "--values", "16384");
        assertEquals(EmbspCommand.IMPOSSIBLE, r.exitCode(), r.err());
        assertTrue(r.err().contains("MPI_ERR_NO_MEM") && r.err().contains("cannot hold the heap of 16384 VPs"), r.err());
    }

    @Test
    void aRunEndsWithTheKeyValueLineAndWritesTheBenchDataItsScriptAndPlot(@TempDir Path out) throws Exception {
        Path bench = out.resolve("sort.dat");
        long keys = 30_000;
        Run r = CommandLineTest.run("embsp", "--vps", "6", "--cores", "2", "--disks", diskDir() + "," + diskDir(),
                "--block-size", "4k", "--io", "async", "--threads", "platform", "--alpha", "4", "--bench-out", bench.toString(),
                "-o", "lockstep.embsp.keepResident=false", "--", "sort", "--keys", Long.toString(keys));
        assertEquals(0, r.exitCode(), r.err() + r.out());
        Map<String, String> line = closingLine(r.out());
        assertTrue(r.out().strip().lines().toList().getLast().startsWith("vps=6 cores=2 supersteps="), r.out());
        for (String key : List.of("vps", "cores", "supersteps", "seconds", "swap_bytes", "delivery_bytes", "bound_bytes", "digest")) {
            assertTrue(line.containsKey(key), key + " in " + line);
        }
        assertEquals(Long.toString(Applications.create("sort", List.of("--keys", Long.toString(keys))).expectedDigest()), line.get("digest"));
        assertEquals("async", line.get("io"));
        assertEquals("platform", line.get("threads"));
        assertEquals("2", line.get("disks"));
        long moved = Long.parseLong(line.get("swap_bytes")) + Long.parseLong(line.get("delivery_bytes"));
        assertTrue(Long.parseLong(line.get("swap_bytes")) > 0, "contexts were swapped: " + line);
        assertTrue(moved <= Long.parseLong(line.get("bound_bytes")), "counted I/O within the bound: " + line);
        assertEquals("true", line.get("within_bounds"), "every call within its bound");
        double input = 8.0 * keys;
        assertEquals(moved / input, Double.parseDouble(line.get("io_per_input")), 0.01, "counted I/O over the input: " + line);
        assertEquals(Long.parseLong(line.get("bound_bytes")) / input, Double.parseDouble(line.get("bound_per_input")), 0.01);
        assertTrue(line.get("io_per_input_by_operation").matches("allgather:[0-9.]+/[0-9.]+,alltoall:[0-9.]+/[0-9.]+,alltoallv:[0-9.]+/[0-9.]+"),
                "each operation's I/O next to its bound: " + line);

        // the gnuplot data: one row per superstep, the total in a comment
        List<String> rows = Files.readAllLines(bench).stream().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
        assertEquals(Integer.parseInt(line.get("supersteps")), rows.size());
        assertTrue(Files.readString(bench).contains("# total"));

        Path script = bench.resolveSibling(bench.getFileName() + ".gp");
        assertTrue(Files.readString(script).contains("plot '" + bench.getFileName() + "'"), "the script plots the data");
        Path png = EmbspCommand.pngFor(bench);
        if (gnuplotInstalled()) {
            assertTrue(r.err().contains("plot " + png), r.err());
            byte[] image = Files.readAllBytes(png);
            assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(image, PNG_SIGNATURE.length), "a PNG");
            ByteBuffer header = ByteBuffer.wrap(image, 16, 8);
            assertEquals(1000, header.getInt(), "width the script sets");
            assertEquals(600, header.getInt(), "height the script sets");
        } else {
            assertTrue(r.err().contains("draw it with: cd "), r.err());
        }
    }

    @Test
    void withoutGnuplotTheDataAndScriptStayAndTheMessageSaysHowToDraw(@TempDir Path dir) throws IOException {
        Path script = Files.writeString(dir.resolve("run.dat.gp"), "set terminal png\nset output 'run.png'\nplot x\n");
        Gnuplot.Outcome outcome = new Gnuplot("lockstep-test-no-such-gnuplot").draw(script, dir.resolve("run.png"));
        assertFalse(outcome.drawn());
        assertEquals("gnuplot (lockstep-test-no-such-gnuplot) is not installed; draw it with: cd " + dir.toAbsolutePath()
                + " && gnuplot run.dat.gp", outcome.message());
        assertFalse(Files.exists(dir.resolve("run.png")));
    }

    /** CI installs gnuplot (.ci/run), so there the plot must be drawn; elsewhere it is drawn when gnuplot is there. */
    static boolean gnuplotInstalled() {
        if ("true".equals(System.getenv("CI"))) {
            return true;
        }
        return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, "gnuplot")));
    }

    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};

    private static long sizeOf(Path f) {
        try {
            return Files.size(f);
        } catch (IOException e) {
            return 0;
        }
    }
}
