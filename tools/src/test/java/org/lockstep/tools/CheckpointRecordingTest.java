package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.LongStream;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.Checkpoints;

/**
 * {@code lockstep run -n 2 --restart-on-failure --jfr FILE} of a checkpointing program whose rank 1
 * is killed once past its second checkpoint: the recordings, read back, hold each rank's checkpoint
 * commits with consecutive epochs, and the restarted incarnation's file its restart (epoch
 * restored, messages replayed) followed by the commits it made after it.
 */
@Timeout(300)
class CheckpointRecordingTest {
    private static final int STEPS = 40;
    private static final int EVERY = 10;
    /** Three steps past the second checkpoint: the restart replays what was consumed since. */
    private static final int DIE_AFTER = 2 * EVERY + 2;

    @Test
    void aRestartedJobRecordsItsCommitsAndTheRestart(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("ring.jfr");
        List<String> jvm = new ArrayList<>(List.of("-Xms64m", "-Xmx64m", "-XX:TieredStopAtLevel=1"));
        jvm.addAll(FlightRecording.jvmOptions(file));
        // what lockstep run --restart-on-failure --max-restarts 1 asks of the job
        Map<String, String> properties = Map.of(Checkpoints.ENABLED_PROPERTY, "true", Checkpoints.RESTART_ON_FAILURE_PROPERTY, "true");
        ProcessLauncher.Job job = new ProcessLauncher.Job(2, "org.lockstep.launchtest.LaunchedPrograms",
                List.of("checkpoint-ring", Integer.toString(STEPS), Integer.toString(EVERY), Integer.toString(DIE_AFTER)),
                Optional.empty(), properties, jvm, List.of(Path.of("target", "test-classes").toAbsolutePath().toString()), false,
                Duration.ofSeconds(10), false).withRestarts(1);
        CapturedLaunch launch = CapturedLaunch.run(job);
        ProcessLauncher.Outcome outcome = launch.outcome();
        String printed = launch.printed();
        assertEquals(0, outcome.exitCode(), printed);
        assertEquals(1, outcome.restarts().size(), printed);
        assertTrue(printed.contains("[1] checkpoint-ring OK on rank 1 incarnation 2"), printed);

        Path rank0 = FlightRecording.rankFile(file.toAbsolutePath(), "0");
        Path restarted = FlightRecording.rankFile(file.toAbsolutePath(), FlightRecording.rankTag(1, 2));
        assertTrue(FlightRecording.rankFiles(file).containsAll(List.of(rank0, restarted)), FlightRecording.rankFiles(file).toString());

        List<RecordedEvent> first = lockstepEvents(rank0);
        assertEquals(List.of(), ofType(first, "org.lockstep.Restart"), "rank 0 was never restarted");
        assertCommits(ofType(first, "org.lockstep.CheckpointCommit"), 0, 1, STEPS / EVERY);

        List<RecordedEvent> second = lockstepEvents(restarted);
        List<RecordedEvent> restarts = ofType(second, "org.lockstep.Restart");
        assertEquals(1, restarts.size(), second.toString());
        RecordedEvent restart = restarts.get(0);
        assertEquals(1, restart.getInt("rank"));
        assertEquals(2, restart.getLong("incarnation"));
        assertEquals(2, restart.getLong("epoch"), "the last checkpoint before the kill");
        assertTrue(restart.getLong("messagesReplayed") > 0, "messages consumed after the checkpoint come from the log: " + restart);
        assertTrue(restart.getDuration().compareTo(Duration.ZERO) > 0, restart.toString());
        List<RecordedEvent> commits = ofType(second, "org.lockstep.CheckpointCommit");
        assertCommits(commits, 1, 3, STEPS / EVERY);
        assertTrue(commits.get(0).getStartTime().isAfter(restart.getStartTime()), "committed after the restart");

        List<RecordedEvent> receives = ofType(second, "org.lockstep.Receive").stream().filter(e -> !e.getBoolean("collective")).toList();
        assertEquals(STEPS - 2 * EVERY, receives.size(), "the steps after the restored checkpoint, replayed ones included: " + receives.size());
        assertTrue(receives.stream().allMatch(e -> e.getInt("rank") == 1 && e.getInt("source") == 0 && e.getLong("bytes") == Long.BYTES),
                receives.toString());
        List<RecordedEvent> slots = ofType(second, "org.lockstep.SlotPublished").stream().filter(e -> e.getInt("tag") == 1).toList();
        assertTrue(!slots.isEmpty() && slots.stream().allMatch(e -> e.getBoolean("logged") && e.getString("placement").equals("indirect")
                && e.getLong("bytes") == Long.BYTES && e.getInt("dest") == 0), "every message goes through the log: " + slots);
    }

    /** Commits of {@code rank} with epochs {@code from..to} in order, each with the bytes it wrote. */
    private static void assertCommits(List<RecordedEvent> commits, int rank, long from, long to) {
        assertEquals(LongStream.rangeClosed(from, to).boxed().toList(), commits.stream().map(e -> e.getLong("epoch")).toList(),
                commits.toString());
        for (RecordedEvent commit : commits) {
            assertEquals(rank, commit.getInt("rank"));
            assertTrue(commit.getLong("bytes") > 2 * Long.BYTES, "header, transport section and the 16-byte state: " + commit);
        }
    }

    private static List<RecordedEvent> lockstepEvents(Path rankFile) throws IOException {
        return RecordingFile.readAllEvents(rankFile).stream().filter(e -> e.getEventType().getName().startsWith("org.lockstep."))
                .sorted((a, b) -> a.getStartTime().compareTo(b.getStartTime())).toList();
    }

    private static List<RecordedEvent> ofType(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }
}
