package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.applications.Application;
import org.lockstep.applications.Applications;

/**
 * The applications give the same digest — the one computed sequentially — as threads over the
 * mailbox transport, as separate processes started by the launcher ({@code lockstep run -n N --
 * NAME …}) and as virtual processors under EM-BSP ({@code lockstep embsp … -- NAME …}).
 */
@Timeout(300)
class ApplicationsAcrossProvidersTest {
    private static final Pattern DIGEST = Pattern.compile("\\[0\\] app=(\\S+) size=(\\d+) ranks=(\\d+) digest=(-?\\d+) .*check=ok");

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({"sort, --keys, 24000", "prefix-sums, --values, 30000", "list-ranking, --nodes, 3000"})
    void threadsProcessesAndEmBspAgree(String name, String sizeOption, long size) throws Exception {
        List<String> args = List.of(sizeOption, Long.toString(size));
        Application app = Applications.create(name, args);
        long expected = app.expectedDigest();

        // threads of this JVM over the mailbox transport on the emulated device
        ConcurrentHashMap<Integer, Long> threads = new ConcurrentHashMap<>();
        Lockstep.provider("mailbox").runInThreads(JobOptions.ofRanks(3).with(JobSettings.DEVICE_PROPERTY, "emulated"),
                w -> threads.put(w.rank(), app.run(w)));
        assertEquals(3, threads.size());
        threads.values().forEach(d -> assertEquals(expected, d, name + " on threads"));

        // separate processes through a /dev/shm device, started as `lockstep run -n 3 -- NAME ARGS` starts them
        RunCommand.Program program = RunCommand.program(name, args);
        assertEquals(RunCommand.APPLICATION_MAIN, program.main());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ProcessLauncher.Outcome outcome;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            outcome = new ProcessLauncher(o, e).run(new ProcessLauncher.Job(3, program.main(), program.arguments(), Optional.empty(),
                    Map.of(), List.of("-Xms64m", "-Xmx64m", "-XX:TieredStopAtLevel=1"), List.of(), false, Duration.ofSeconds(10), false));
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, outcome.exitCode(), err.toString(StandardCharsets.UTF_8) + printed);
        Matcher m = DIGEST.matcher(printed);
        assertTrue(m.find(), printed);
        assertEquals(name, m.group(1));
        assertEquals(Long.toString(size), m.group(2));
        assertEquals("3", m.group(3), "the launcher's world size");
        assertEquals(expected, Long.parseLong(m.group(4)), name + " as processes");

        // virtual processors under EM-BSP, through the command
        CommandLineTest.Run r = CommandLineTest.run("embsp", "--vps", "5", "--cores", "2", "--block-size", "4k", "--disks",
                EmbspCommandTest.diskDir().toString(), "--progress", "0", "--", name, sizeOption, Long.toString(size));
        assertEquals(0, r.exitCode(), r.err() + r.out());
        assertEquals(Long.toString(expected), EmbspCommandTest.closingLine(r.out()).get("digest"), name + " under EM-BSP");
    }

    @Test
    void aMainClassIsLaunchedAsGivenAndAnApplicationNameIsMapped() {
        RunCommand.Program plain = RunCommand.program("com.example.Main", List.of("x"));
        assertEquals("com.example.Main", plain.main());
        assertEquals(List.of("x"), plain.arguments());
        RunCommand.Program app = RunCommand.program("list-ranking", List.of("--nodes", "9"));
        assertEquals(List.of("list-ranking", "--nodes", "9"), app.arguments());
    }
}
