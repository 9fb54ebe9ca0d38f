package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

/**
 * Flight Recorder events of the message path on the mailbox transport, recorded in-process with
 * every send and receive (threshold 0): sends, blocking receives and matches with their fields, the
 * messages of a point-to-point collective told apart from the program's, and a device collective
 * with the algorithm it chose.
 */
class MessageEventsTest {
    private static final int BLOCKING_TAG = 5;
    private static final int SYNCHRONOUS_TAG = 6;
    private static final int LONG_TAG = 7;
    /** Longer than the first fragment (8 KiB): the transport sends it in fragments. */
    private static final int LONG_BYTES = 40 << 10;

    @Test
    void sendsReceivesMatchesAndCollectivesAreRecordedWithTheirFields(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("messages.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("org.lockstep.Send").withThreshold(Duration.ZERO);
            recording.enable("org.lockstep.Receive").withThreshold(Duration.ZERO);
            recording.enable("org.lockstep.Match");
            recording.enable("org.lockstep.Collective");
            recording.enable("org.lockstep.SlotPublished");
            recording.start();
            TestWorlds.run(2, world -> {
                if (world.rank() == 0) {
                    world.send(MemorySegment.ofArray(new long[2]), 2, Datatype.LONG, 1, BLOCKING_TAG);
                    world.issend(MemorySegment.ofArray(new long[3]), 3, Datatype.LONG, 1, SYNCHRONOUS_TAG).await();
                    world.send(MemorySegment.ofArray(new byte[LONG_BYTES]), LONG_BYTES, Datatype.BYTE, 1, LONG_TAG);
                } else {
                    world.recv(MemorySegment.ofArray(new long[4]), 4, Datatype.LONG, Communicator.ANY_SOURCE, BLOCKING_TAG);
                    world.recv(MemorySegment.ofArray(new long[4]), 4, Datatype.LONG, 0, SYNCHRONOUS_TAG);
                    world.recv(MemorySegment.ofArray(new byte[LONG_BYTES]), LONG_BYTES, Datatype.BYTE, 0, LONG_TAG);
                }
                world.allreduce(MemorySegment.ofArray(new long[] {1}), MemorySegment.ofArray(new long[1]), 1, Datatype.LONG, Op.SUM);
                world.allgather(MemorySegment.ofArray(new long[] {world.rank()}), 1, Datatype.LONG, MemorySegment.ofArray(new long[2]));
            });
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);

        List<RecordedEvent> sends = program(ofType(events, "org.lockstep.Send")).stream()
                .filter(e -> e.getInt("tag") != LONG_TAG).toList();
        assertEquals(2, sends.size(), "the program's two short sends: " + sends);
        RecordedEvent blocking = withTag(sends, BLOCKING_TAG);
        assertEquals(0, blocking.getInt("rank"));
        assertEquals(1, blocking.getInt("dest"));
        assertEquals(16, blocking.getLong("bytes"));
        assertFalse(blocking.getBoolean("synchronous"));
        assertTrue(blocking.getBoolean("blocking"));
        RecordedEvent synchronous = withTag(sends, SYNCHRONOUS_TAG);
        assertEquals(0, synchronous.getInt("rank"));
        assertEquals(1, synchronous.getInt("dest"));
        assertEquals(24, synchronous.getLong("bytes"));
        assertTrue(synchronous.getBoolean("synchronous"));
        assertFalse(synchronous.getBoolean("blocking"), "issend returns once the message is handed over");

        List<RecordedEvent> receives = program(ofType(events, "org.lockstep.Receive")).stream()
                .filter(e -> e.getInt("tag") != LONG_TAG).toList();
        assertEquals(2, receives.size(), "the program's two short receives: " + receives);
        RecordedEvent wildcard = withTag(receives, BLOCKING_TAG);
        assertEquals(1, wildcard.getInt("rank"));
        assertEquals(0, wildcard.getInt("source"), "the sender, not ANY_SOURCE");
        assertEquals(16, wildcard.getLong("bytes"), "what arrived, not the buffer's capacity");
        assertTrue(wildcard.getBoolean("anySource"));
        RecordedEvent named = withTag(receives, SYNCHRONOUS_TAG);
        assertEquals(24, named.getLong("bytes"));
        assertFalse(named.getBoolean("anySource"));

        // how the mailbox transport placed each: in the slot, in a heap block (a synchronous send's
        // release is its match signal), in doubling fragments
        List<RecordedEvent> slots = ofType(events, "org.lockstep.SlotPublished");
        RecordedEvent inline = withTag(slots, BLOCKING_TAG);
        assertEquals("inline", inline.getString("placement"));
        assertEquals(16, inline.getLong("bytes"));
        assertEquals(0, inline.getInt("rank"));
        assertEquals(1, inline.getInt("dest"));
        assertEquals("indirect", withTag(slots, SYNCHRONOUS_TAG).getString("placement"));
        List<RecordedEvent> fragments = slots.stream().filter(e -> e.getInt("tag") == LONG_TAG).toList();
        assertTrue(fragments.size() > 1 && fragments.stream().allMatch(e -> e.getString("placement").equals("fragment")
                && e.getLong("messageBytes") == LONG_BYTES), fragments.toString());
        assertEquals(LONG_BYTES, fragments.stream().mapToLong(e -> e.getLong("bytes")).sum(), "the fragments make up the message");
        assertTrue(slots.stream().noneMatch(e -> e.getBoolean("logged")), "no checkpoints, no log");

        List<RecordedEvent> collectiveSends = ofType(events, "org.lockstep.Send").stream().filter(e -> e.getBoolean("collective")).toList();
        assertFalse(collectiveSends.isEmpty(), "the point-to-point allgather sent on the collective channel");
        assertTrue(collectiveSends.stream().noneMatch(e -> Set.of(BLOCKING_TAG, SYNCHRONOUS_TAG).contains(e.getInt("tag"))), collectiveSends.toString());

        List<RecordedEvent> matches = ofType(events, "org.lockstep.Match").stream()
                .filter(e -> e.getInt("tag") == BLOCKING_TAG).toList();
        assertEquals(1, matches.size(), matches.toString());
        assertEquals(0, matches.get(0).getInt("source"));
        assertEquals(16, matches.get(0).getLong("bytes"));

        List<RecordedEvent> allreduces = ofType(events, "org.lockstep.Collective").stream()
                .filter(e -> e.getString("operation").equals("allreduce")).toList();
        assertEquals(Set.of(0, 1), allreduces.stream().map(e -> e.getInt("rank")).collect(Collectors.toSet()));
        for (RecordedEvent allreduce : allreduces) {
            assertTrue(allreduce.getString("algorithm").startsWith("device "), allreduce.toString());
            assertEquals(8, allreduce.getLong("bytes"));
            assertEquals(2, allreduce.getInt("size"));
        }
    }

    /** The program's own messages: not those of collective algorithms. */
    private static List<RecordedEvent> program(List<RecordedEvent> events) {
        return events.stream().filter(e -> !e.getBoolean("collective")).toList();
    }

    private static RecordedEvent withTag(List<RecordedEvent> events, int tag) {
        List<RecordedEvent> tagged = events.stream().filter(e -> e.getInt("tag") == tag).toList();
        assertEquals(1, tagged.size(), "tag " + tag + ": " + events);
        return tagged.get(0);
    }

    private static List<RecordedEvent> ofType(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }
}
