package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.applications.Applications;
import org.lockstep.tools.CommandLineTest.Run;
import org.lockstep.tools.plot.BenchPlot;
import org.lockstep.tools.plot.LinePlot;

/** {@code lockstep embsp}: impossible configurations, the closing line, the bench file and its PNG. */
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
    void aRunEndsWithTheKeyValueLineAndWritesTheBenchDataAndAValidPng(@TempDir Path out) throws Exception {
        Path bench = out.resolve("sort.dat");
        long keys = 30_000;
        Run r = CommandLineTest.run("embsp", "--vps", "6", "--cores", "2", "--disks", diskDir() + "," + diskDir(),
                "--block-size", "4k", "--io", "async", "--threads", "platform", "--alpha", "4", "--bench-out", bench.toString(),
                "--", "sort", "--keys", Long.toString(keys));
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

        // the gnuplot data: one row per superstep, the total in a comment
        List<String> rows = Files.readAllLines(bench).stream().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
        assertEquals(Integer.parseInt(line.get("supersteps")), rows.size());
        assertTrue(Files.readString(bench).contains("# total"));

        Path png = BenchPlot.pngFor(bench);
        assertTrue(Files.exists(png), png + " written");
        Decoded image = decode(Files.readAllBytes(png));
        assertEquals(BenchPlot.plot(BenchPlot.read(bench)).render().width(), image.width());
        // every data point of the plot is drawn in its series' colour, and the colours differ along the line
        BenchPlot.BenchData data = BenchPlot.read(bench);
        LinePlot plot = BenchPlot.plot(data);
        int[] distinct = new int[data.superstep().length];
        for (int i = 0; i < data.superstep().length; i++) {
            int[] timePoint = plot.pixel(0, data.superstep()[i], data.seconds()[i]);
            assertEquals(0x2060C0, image.rgb(timePoint[0], timePoint[1]), "time point " + i);
            int[] swapPoint = plot.pixel(1, data.superstep()[i], data.swapMiB()[i]);
            distinct[i] = swapPoint[1];
            assertNotEquals(0xFFFFFF, image.rgb(swapPoint[0], swapPoint[1]), "swap point " + i);
        }
        assertTrue(Arrays.stream(distinct).distinct().count() > 1, "the swap line is not flat: " + Arrays.toString(distinct));
        int midX = plot.pixel(0, (data.superstep()[0] + data.superstep()[1]) / 2, 0)[0];
        long inkInColumn = java.util.stream.IntStream.range(0, image.height()).filter(y -> image.rgb(midX, y) != 0xFFFFFF).count();
        assertTrue(inkInColumn > 2, "lines between points are drawn");
    }

    @Test
    void theEncoderWritesWhatTheDecoderReads() throws Exception {
        var img = new org.lockstep.tools.plot.PngImage(7, 3, 0x112233);
        img.set(6, 2, 0xABCDEF);
        Decoded d = decode(img.encode());
        assertEquals(7, d.width());
        assertEquals(3, d.height());
        assertEquals(0x112233, d.rgb(0, 0));
        assertEquals(0xABCDEF, d.rgb(6, 2));
    }

    /** A decoded truecolour PNG. */
    record Decoded(int width, int height, byte[] raw) {
        int rgb(int x, int y) {
            int at = y * (1 + 3 * width) + 1 + 3 * x;
            return (raw[at] & 0xFF) << 16 | (raw[at + 1] & 0xFF) << 8 | (raw[at + 2] & 0xFF);
        }
    }

    /** Decodes a PNG of our encoder's kind, checking the signature, every CRC, IHDR first and IEND last. */
    static Decoded decode(byte[] file) throws IOException, DataFormatException {
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(file));
        byte[] signature = new byte[8];
        in.readFully(signature);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, signature);
        int width = -1;
        int height = -1;
        ByteArrayOutputStream idat = new ByteArrayOutputStream();
        boolean ended = false;
        int chunks = 0;
        while (!ended) {
            int length = in.readInt();
            byte[] type = new byte[4];
            in.readFully(type);
            byte[] data = new byte[length];
            in.readFully(data);
            int crc = in.readInt();
            CRC32 check = new CRC32();
            check.update(type);
            check.update(data);
            String name = new String(type, StandardCharsets.US_ASCII);
            assertEquals((int) check.getValue(), crc, "CRC of " + name);
            if (chunks++ == 0) {
                assertEquals("IHDR", name);
                assertEquals(13, length);
                DataInputStream h = new DataInputStream(new java.io.ByteArrayInputStream(data));
                width = h.readInt();
                height = h.readInt();
                assertEquals(8, h.readUnsignedByte(), "bit depth");
                assertEquals(2, h.readUnsignedByte(), "colour type RGB");
                assertEquals(0, h.readUnsignedByte());
                assertEquals(0, h.readUnsignedByte());
                assertEquals(0, h.readUnsignedByte());
            } else if (name.equals("IDAT")) {
                idat.write(data);
            } else if (name.equals("IEND")) {
                assertEquals(0, length);
                ended = true;
            }
        }
        assertEquals(0, in.available(), "nothing after IEND");
        Inflater inflater = new Inflater();
        inflater.setInput(idat.toByteArray());
        byte[] raw = new byte[height * (1 + 3 * width)];
        int n = 0;
        while (n < raw.length && !inflater.finished()) {
            n += inflater.inflate(raw, n, raw.length - n);
        }
        assertEquals(raw.length, n, "scanline bytes");
        assertTrue(inflater.finished(), "the zlib stream ends with the image");
        for (int y = 0; y < height; y++) {
            assertEquals(0, raw[y * (1 + 3 * width)], "filter type of row " + y);
        }
        return new Decoded(width, height, raw);
    }

    private static long sizeOf(Path f) {
        try {
            return Files.size(f);
        } catch (IOException e) {
            return 0;
        }
    }
}
