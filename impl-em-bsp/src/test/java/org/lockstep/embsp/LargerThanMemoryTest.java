package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A run whose contexts together (v·μ) are at least four times the memory the simulator may use
 * (its partitions, staging and boundary cache, plus the JVM heap limit this test sets) completes
 * and every VP finds all its data again. It runs in a JVM of its own so that the heap limit is
 * real; the disks use O_DIRECT, so the data really leaves memory rather than the page cache.
 */
class LargerThanMemoryTest {
    private static final long HEAP = 40L << 20;
    private static final int V = 32;
    private static final int K = 2;
    private static final long MU = 8L << 20;
    private static final long B = 64L << 10;
    private static final long TIMEOUT_SECONDS = 300;

    @Test
    void contextsFourTimesLargerThanTheProcessMayHoldSurviveEverySwap() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xms" + HEAP, "-Xmx" + HEAP, "-XX:+UseSerialGC",
                "-cp", classPath(), LargerThanMemoryMain.class.getName(), Integer.toString(V), Integer.toString(K),
                Long.toString(MU), Long.toString(B), TestJobs.diskDirectory().toString(), Long.toString(HEAP)));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try (var in = child.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(child.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "child finished");
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("OK"), output);
        Map<String, Long> kv = keyValues(output);
        long simulatorMemory = kv.get("memory_bytes") + kv.get("boundary_cache_bytes") + kv.get("heap_bytes");
        assertTrue(V * MU >= 4 * simulatorMemory, "v·μ = " + V * MU + " is at least 4× the " + simulatorMemory
                + " bytes the simulator may use");
        long state = MU - MU / 8;
        assertTrue(kv.get("swap_bytes") >= 2L * (V - K) * state, "the contexts really went to disk and back: " + output);
        if (kv.get("kernel_write_bytes") >= 0) {
            assertTrue(kv.get("kernel_write_bytes") >= (V - K) * state, "the kernel saw the writes reach the disk: " + output);
        }
    }

    private static Map<String, Long> keyValues(String output) {
        Map<String, Long> kv = new HashMap<>();
        for (String line : output.split("\n")) {
            if (line.startsWith("vps=")) {
                for (String pair : line.trim().split(" ")) {
                    String[] p = pair.split("=", 2);
                    if (p[1].matches("-?[0-9]+")) {
                        kv.put(p[0], Long.parseLong(p[1]));
                    }
                }
            }
        }
        return kv;
    }

    /** This test's classes and the module's, with the API and SPI: everything on a plain class path. */
    private static String classPath() {
        Set<String> entries = new LinkedHashSet<>();
        for (String property : new String[] {"jdk.module.path", "java.class.path"}) {
            String value = System.getProperty(property);
            if (value != null) {
                for (String entry : value.split(File.pathSeparator)) {
                    if (!entry.isBlank()) {
                        entries.add(entry);
                    }
                }
            }
        }
        entries.add(Path.of("target", "test-classes").toAbsolutePath().toString());
        entries.add(Path.of("target", "classes").toAbsolutePath().toString());
        return String.join(File.pathSeparator, entries);
    }
}
