package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.tools.CommandLineTest.Run;

/**
 * The JVM {@code lockstep embsp} sizes for itself holds what its VPs really cost: a run of 4 096
 * VPs on virtual threads in a JVM started with exactly the printed options (as the lockstep script
 * starts it) ends with the right result and within budget + allowance. With the former 8 KiB per
 * VP (a 72 MiB heap for these VPs, whose peak live heap was measured at ~100 MiB) it ran out of heap.
 */
@Timeout(300)
class EmbspJvmTest {
    @Test
    void manyVirtualProcessorsRunInTheJvmSizedForThem(@TempDir Path dir) throws IOException, InterruptedException {
        List<String> run = List.of("embsp", "--vps", "4096", "--cores", "2", "--memory", "256m", "--block-size", "4k", "--io", "async",
                "--threads", "virtual", "--disks", EmbspCommandTest.diskDir().toString(), "--progress", "0", "--", "prefix-sums",
                "--values", "4096");
        List<String> question = new ArrayList<>(run);
        question.add(1, "--print-jvm-options");
        Run sized = CommandLineTest.run(question.toArray(String[]::new));
        assertEquals(0, sized.exitCode(), sized.err());
        String options = sized.out().strip().replaceFirst("^jvm-options: ", "");

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(options.split(" ")));
        command.add("--enable-native-access=ALL-UNNAMED,org.lockstep.embsp");
        String modulePath = System.getProperty("jdk.module.path", "");
        if (modulePath.isEmpty()) {
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), LockstepCommand.class.getName()));
        } else {
            command.addAll(List.of("-p", modulePath, "--add-modules", "ALL-MODULE-PATH", "-m",
                    "org.lockstep.tools/" + LockstepCommand.class.getName()));
        }
        command.addAll(run);
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(240, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        String printed = Files.readString(out, StandardCharsets.UTF_8);
        String errors = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), "sized with " + options + ": " + errors + printed);
        Map<String, String> line = EmbspCommandTest.closingLine(printed);
        assertEquals("ok", line.get("check"), printed);
        long peakRss = Long.parseLong(line.get("peak_rss_bytes"));
        assertTrue(peakRss <= (256L << 20) + EmbspJvm.ALLOWANCE, "peak RSS " + (peakRss >> 20) + " MiB, budget 256 MiB + allowance");
    }
}
