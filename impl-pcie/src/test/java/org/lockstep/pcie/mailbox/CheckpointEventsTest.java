package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.CheckpointTesting.*;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;

/** Flight Recorder events of the message log: a checkpoint commit and a restart, with their fields, recorded in-process. */
class CheckpointEventsTest {
    private static final int MESSAGES = 12;

    @Test
    void aCommitAndARestartAreRecordedWithTheirRankEpochBytesAndReplayedMessages(@TempDir Path dir) throws IOException {
        Checkpoints.CheckpointResult first;
        Checkpoints.CheckpointResult second;
        long replayed;
        Path file = dir.resolve("checkpoints.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("org.lockstep.CheckpointCommit");
            recording.enable("org.lockstep.Restart");
            recording.start();
            try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2))) {
                Communicator sender = world.communicator(0);
                Communicator receiver = world.communicator(1);
                for (int i = 1; i <= MESSAGES; i++) {
                    sender.isend(new long[] {i, i}, 1, 0);
                }
                MemorySegment state = longs(4);
                receiver.checkpoints().register("state", state);
                receive(receiver, 0, sender);
                first = receiver.checkpoints().checkpoint();
                for (int i = 0; i < 3; i++) {
                    receive(receiver, 0, sender);
                }
                second = receiver.checkpoints().checkpoint();
                receive(receiver, 0, sender); // consumed after the last checkpoint: the restart replays it

                Communicator again = world.restart(1);
                again.checkpoints().register("state", longs(4));
                assertEquals(2, again.checkpoints().restore());
                replayed = endpoint(world, 1).statistics().messagesReplayed;
            }
            recording.stop();
            recording.dump(file);
        }
        long thread = Thread.currentThread().threadId(); // the thread world runs every rank on the test thread
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getThread() != null && e.getThread().getJavaThreadId() == thread)
                .toList();

        List<RecordedEvent> commits = ofType(events, "org.lockstep.CheckpointCommit");
        assertEquals(2, commits.size(), "one event per commit: " + commits);
        for (int k = 0; k < 2; k++) {
            RecordedEvent commit = commits.get(k);
            Checkpoints.CheckpointResult result = k == 0 ? first : second;
            assertEquals(1, commit.getInt("rank"));
            assertEquals(result.epoch(), commit.getLong("epoch"));
            assertEquals(k + 1, commit.getLong("epoch"));
            assertEquals(result.totalBytes(), commit.getLong("bytes"), "the bytes the commit wrote to the device");
            assertTrue(commit.getLong("bytes") > result.stateBytes(), "the slot holds the transport section too: " + commit);
            assertTrue(commit.getDuration().compareTo(Duration.ZERO) > 0, "the commit's duration: " + commit);
        }

        List<RecordedEvent> restarts = ofType(events, "org.lockstep.Restart");
        assertEquals(1, restarts.size(), "the first starts of both ranks are no restarts: " + restarts);
        RecordedEvent restart = restarts.get(0);
        assertEquals(1, restart.getInt("rank"));
        assertEquals(2, restart.getLong("incarnation"));
        assertEquals(2, restart.getLong("epoch"));
        assertEquals(replayed, restart.getLong("messagesReplayed"));
        assertTrue(replayed >= 1, "the message consumed after the checkpoint came from the log: " + replayed);
        assertTrue(restart.getDuration().compareTo(Duration.ZERO) > 0, "the recovery's duration: " + restart);
    }

    private static List<RecordedEvent> ofType(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }
}
