package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
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
import org.lockstep.api.Checkpoints;

/** {@code lockstep run --jfr}: every rank records into its own file, and the events say what ran. */
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
        CapturedLaunch launch = CapturedLaunch.run(job);
        ProcessLauncher.Outcome outcome = launch.outcome();
        assertEquals(0, outcome.exitCode(), launch.printed());
        assertFalse(launch.printed().contains("Started recording"), "JFR's own announcement stays quiet");

        List<Path> parts = FlightRecording.rankFiles(file);
        assertEquals(List.of(FlightRecording.rankFile(file.toAbsolutePath(), "0"), FlightRecording.rankFile(file.toAbsolutePath(), "1")),
                parts);
        for (int rank = 0; rank < parts.size(); rank++) {
            Path part = parts.get(rank);
            Set<Integer> ranksSeen = new HashSet<>();
            Set<String> operations = new HashSet<>();
            long matches = 0;
            long sends = 0;
            long receives = 0;
            try (RecordingFile recording = new RecordingFile(part)) {
                while (recording.hasMoreEvents()) {
                    RecordedEvent event = recording.readEvent();
                    switch (event.getEventType().getName()) {
                        case "org.lockstep.Collective" -> {
                            operations.add(event.getString("operation"));
                            int size = event.getInt("size");
                            assertTrue(size == 2 || size == 1, "the world or one of its halves: " + event);
                            if (size == 2) {
                                ranksSeen.add(event.getInt("rank"));
                            }
                            String algorithm = event.getString("algorithm");
                            assertTrue(algorithm.startsWith("device ") || algorithm.startsWith("point-to-point ")
                                            || size == 1 && algorithm.equals("none: one rank"),
                                    "the provider named its algorithm: " + event);
                        }
                        case "org.lockstep.Match" -> matches++;
                        case "org.lockstep.Send" -> sends++;
                        case "org.lockstep.Receive" -> receives++;
                        default -> {
                        }
                    }
                }
            }
            assertEquals(Set.of(rank), ranksSeen, part + " holds the world collectives of rank " + rank + " alone");
            assertTrue(operations.containsAll(Set.of("barrier", "bcast", "gather", "reduce", "allreduce")), part + ": " + operations);
            assertTrue(matches > 0, part + ": point-to-point messages were matched");
            assertTrue(sends > 0 && receives > 0, part + ": every send and receive, not only those over the default threshold");
            assertTrue(FlightRecording.lockstepEventCounts(part).get("org.lockstep.Collective") > 0);
        }
    }

    /**
     * Without {@code --jfr} no rank sets up Flight Recorder, through sends, receives, collectives,
     * checkpoints and a restarted rank's recovery: no event class is initialized (the first would
     * register with Flight Recorder, a fifth of a second or more of a rank's start). Read from the
     * JVMs' class-loading logs: none loads Flight Recorder's event registry.
     */
    @Test
    void aJobWithoutJfrSetsUpNoFlightRecorder(@TempDir Path dir) throws Exception {
        List<String> jvm = List.of("-Xms64m", "-Xmx64m", "-XX:TieredStopAtLevel=1",
                "-Xlog:class+load=info:file=" + dir.resolve("classes-%p.log"));
        List<String> classPath = List.of(Path.of("target", "test-classes").toAbsolutePath().toString());
        ProcessLauncher.Job collectives = new ProcessLauncher.Job(2, "org.lockstep.launchtest.LaunchedPrograms", List.of("collectives"),
                Optional.empty(), Map.of(), jvm, classPath, false, Duration.ofSeconds(10), false);
        CapturedLaunch first = CapturedLaunch.run(collectives);
        assertEquals(0, first.outcome().exitCode(), first.printed());
        // rank 1 killed past its second checkpoint and restarted, as CheckpointRecordingTest's job, without the recording
        ProcessLauncher.Job ring = new ProcessLauncher.Job(2, "org.lockstep.launchtest.LaunchedPrograms",
                List.of("checkpoint-ring", "40", "10", "22"), Optional.empty(),
                Map.of(Checkpoints.ENABLED_PROPERTY, "true", Checkpoints.RESTART_ON_FAILURE_PROPERTY, "true"), jvm, classPath, false,
                Duration.ofSeconds(10), false).withRestarts(1);
        CapturedLaunch second = CapturedLaunch.run(ring);
        assertEquals(0, second.outcome().exitCode(), second.printed());
        assertEquals(1, second.outcome().restarts().size(), second.printed());

        List<Path> logs;
        try (var files = Files.list(dir)) {
            logs = files.filter(p -> p.getFileName().toString().startsWith("classes-")).toList();
        }
        assertEquals(5, logs.size(), "two ranks, then two ranks and a restarted one: " + logs);
        for (Path log : logs) {
            String loaded = Files.readString(log);
            assertTrue(loaded.contains("org.lockstep.spi.events.Events "), log + " ran Lockstep's event checks");
            assertFalse(loaded.contains("jdk.jfr.internal.MetadataRepository "), log + " set up Flight Recorder's event registry");
        }
    }

    @Test
    void rankFilesComeInRankOrderAndAnEarlierRecordingsAreCleared(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("job.jfr");
        for (String tag : List.of("10", "2", "2-incarnation2", "0")) {
            Files.writeString(FlightRecording.rankFile(file, tag), "old");
        }
        Files.writeString(dir.resolve("other-rank0.jfr"), "not this job's");
        assertEquals(List.of("job-rank0.jfr", "job-rank2.jfr", "job-rank2-incarnation2.jfr", "job-rank10.jfr"),
                FlightRecording.rankFiles(file).stream().map(p -> p.getFileName().toString()).toList());
        FlightRecording.clear(file);
        assertEquals(List.of(), FlightRecording.rankFiles(file));
        assertTrue(Files.exists(dir.resolve("other-rank0.jfr")), "another recording's files stay");
    }
}
