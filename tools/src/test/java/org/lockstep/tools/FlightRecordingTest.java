package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code lockstep run --jfr}: every rank records, the files are joined, and the events say what ran. */
@Timeout(300)
class FlightRecordingTest {
    @Test
    void aLaunchedJobRecordsItsCollectivesWithTheirAlgorithmsAndItsMatches(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("job.jfr");
        List<String> jvm = new ArrayList<>(List.of("-Xms64m", "-Xmx64m", "-XX:TieredStopAtLevel=1"));
        jvm.addAll(FlightRecording.jvmOptions(file));
        ProcessLauncher.Job job = new ProcessLauncher.Job(2, "org.lockstep.launchtest.LaunchedPrograms", List.of("collectives"),
                Optional.empty(), Map.of(), jvm, List.of(Path.of("target", "test-classes").toAbsolutePath().toString()), false,
                Duration.ofSeconds(10), false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ProcessLauncher.Outcome outcome;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            outcome = new ProcessLauncher(o, o).run(job);
        }
        assertEquals(0, outcome.exitCode(), out.toString(StandardCharsets.UTF_8));
        assertFalse(out.toString(StandardCharsets.UTF_8).contains("Started recording"), "JFR's own announcement stays quiet");

        List<Path> parts = FlightRecording.join(file);
        assertEquals(List.of(FlightRecording.rankFile(file.toAbsolutePath(), "0"), FlightRecording.rankFile(file.toAbsolutePath(), "1")),
                parts);
        Set<Integer> ranksSeen = new HashSet<>();
        Set<String> operations = new HashSet<>();
        long matches = 0;
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                switch (event.getEventType().getName()) {
                    case "org.lockstep.Collective" -> {
                        ranksSeen.add(event.getInt("rank"));
                        operations.add(event.getString("operation"));
                        int size = event.getInt("size");
                        assertTrue(size == 2 || size == 1, "the world or one of its halves: " + event);
                        String algorithm = event.getString("algorithm");
                        assertTrue(algorithm.startsWith("device ") || algorithm.startsWith("point-to-point ")
                                        || size == 1 && algorithm.equals("none: one rank"),
                                "the provider named its algorithm: " + event);
                    }
                    case "org.lockstep.Match" -> matches++;
                    default -> {
                    }
                }
            }
        }
        assertEquals(Set.of(0, 1), ranksSeen, "both ranks' recordings are in the joined file");
        assertTrue(operations.containsAll(Set.of("barrier", "bcast", "gather", "reduce", "allreduce")), operations.toString());
        assertTrue(matches > 0, "point-to-point messages were matched");
        assertTrue(FlightRecording.lockstepEventCounts(file).get("org.lockstep.Collective") > 0);
    }
}
