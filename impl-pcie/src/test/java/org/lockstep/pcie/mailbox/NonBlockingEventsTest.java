package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Message;
import org.lockstep.api.Op;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.RankProgram;
import org.lockstep.api.Request;

/**
 * Flight Recorder events of non-blocking and persistent calls on the mailbox transport: a
 * non-blocking receive ({@code irecv}, {@code imrecv}, a persistent receive's start) is a Receive
 * event from its start to the completion a wait or test saw, a matched blocking one ({@code mrecv})
 * a blocking Receive event; a non-blocking or persistent collective is one Collective event per
 * call or start, with its kind and algorithm, lasting until its completion.
 */
class NonBlockingEventsTest {
    private static final int IRECV_TAG = 11;
    private static final int IMRECV_TAG = 12;
    private static final int MRECV_TAG = 13;
    private static final int PERSISTENT_TAG = 14;
    private static final int GO_TAG = 20;
    private static final int BACK_TAG = 21;

    @Test
    void nonBlockingReceivesAreRecordedWhenTheyComplete(@TempDir Path dir) throws IOException {
        List<RecordedEvent> events = recorded(dir, world -> {
            if (world.rank() == 0) {
                world.recv(MemorySegment.ofArray(new byte[1]), 1, Datatype.BYTE, 1, GO_TAG);
                world.send(MemorySegment.ofArray(new long[1]), 1, Datatype.LONG, 1, IRECV_TAG);
                world.send(MemorySegment.ofArray(new long[2]), 2, Datatype.LONG, 1, IMRECV_TAG);
                world.send(MemorySegment.ofArray(new long[3]), 3, Datatype.LONG, 1, MRECV_TAG);
                for (int start = 0; start < 2; start++) {
                    world.send(MemorySegment.ofArray(new long[4]), 4, Datatype.LONG, 1, PERSISTENT_TAG);
                }
            } else {
                // posted before rank 0 sends anything: its event must last until the message is in
                Request irecv = world.irecv(MemorySegment.ofArray(new long[8]), 8, Datatype.LONG, Communicator.ANY_SOURCE, IRECV_TAG);
                world.send(MemorySegment.ofArray(new byte[1]), 1, Datatype.BYTE, 0, GO_TAG);
                irecv.await();
                Message matched = world.mprobe(0, IMRECV_TAG);
                Request imrecv = world.imrecv(MemorySegment.ofArray(new long[8]), 8, Datatype.LONG, matched);
                while (imrecv.test().isEmpty()) {
                    Thread.onSpinWait();
                }
                world.mrecv(MemorySegment.ofArray(new long[8]), 8, Datatype.LONG, world.mprobe(0, MRECV_TAG));
                PersistentRequest persistent = world.recvInit(MemorySegment.ofArray(new long[8]), 8, Datatype.LONG, 0, PERSISTENT_TAG);
                for (int start = 0; start < 2; start++) {
                    persistent.start();
                    persistent.await();
                }
                persistent.free();
            }
        });
        List<RecordedEvent> receives = ofType(events, "org.lockstep.Receive").stream().filter(e -> !e.getBoolean("collective")).toList();

        RecordedEvent irecv = only(receives, IRECV_TAG);
        assertEquals(1, irecv.getInt("rank"));
        assertEquals(0, irecv.getInt("source"), "the sender, not ANY_SOURCE");
        assertEquals(8, irecv.getLong("bytes"), "what arrived, not the buffer's capacity");
        assertTrue(irecv.getBoolean("anySource"));
        assertFalse(irecv.getBoolean("blocking"));
        RecordedEvent send = only(ofType(events, "org.lockstep.Send"), IRECV_TAG);
        assertTrue(!irecv.getStartTime().isAfter(send.getStartTime()) && !irecv.getEndTime().isBefore(send.getStartTime()),
                "the receive's event runs from before the send it waited for until after the send began: receive " + irecv
                        + ", send " + send);

        RecordedEvent imrecv = only(receives, IMRECV_TAG);
        assertEquals(16, imrecv.getLong("bytes"));
        assertFalse(imrecv.getBoolean("anySource"));
        assertFalse(imrecv.getBoolean("blocking"));

        RecordedEvent mrecv = only(receives, MRECV_TAG);
        assertEquals(24, mrecv.getLong("bytes"));
        assertTrue(mrecv.getBoolean("blocking"));

        List<RecordedEvent> persistent = receives.stream().filter(e -> e.getInt("tag") == PERSISTENT_TAG).toList();
        assertEquals(2, persistent.size(), "one per start: " + persistent);
        assertTrue(persistent.stream().allMatch(e -> e.getLong("bytes") == 32 && !e.getBoolean("blocking") && e.getInt("source") == 0),
                persistent.toString());
    }

    @Test
    void nonBlockingAndPersistentCollectivesAreRecordedFromStartToCompletion(@TempDir Path dir) throws IOException {
        List<RecordedEvent> events = recorded(dir, world -> {
            long[] one = {world.rank() + 1};
            long[] sum = new long[1];
            if (world.rank() == 0) {
                // the barrier cannot complete before rank 1 has answered: its event must reach past that
                Request barrier = world.ibarrier();
                world.send(MemorySegment.ofArray(new byte[1]), 1, Datatype.BYTE, 1, GO_TAG);
                world.recv(MemorySegment.ofArray(new byte[1]), 1, Datatype.BYTE, 1, BACK_TAG);
                barrier.await();
            } else {
                world.recv(MemorySegment.ofArray(new byte[1]), 1, Datatype.BYTE, 0, GO_TAG);
                world.send(MemorySegment.ofArray(new byte[1]), 1, Datatype.BYTE, 0, BACK_TAG);
                world.ibarrier().await();
            }
            world.iallreduce(MemorySegment.ofArray(one), MemorySegment.ofArray(sum), 1, Datatype.LONG, Op.SUM).await();
            assertEquals(3, sum[0]);
            PersistentRequest persistent = world.allreduceInit(MemorySegment.ofArray(one), MemorySegment.ofArray(sum), 1,
                    Datatype.LONG, Op.SUM);
            for (int start = 0; start < 3; start++) {
                persistent.start();
                persistent.await();
            }
            persistent.free();
            CartesianCommunicator ring = world.createCart(new int[] {2}, new boolean[] {true}, false);
            long[] fromNeighbours = new long[2];
            ring.ineighborAllgather(MemorySegment.ofArray(one), 1, Datatype.LONG, MemorySegment.ofArray(fromNeighbours), 1,
                    Datatype.LONG).await();
            assertEquals(3 - one[0], fromNeighbours[0]);
            ring.close();
        });
        List<RecordedEvent> collectives = ofType(events, "org.lockstep.Collective");

        for (int rank = 0; rank < 2; rank++) {
            RecordedEvent barrier = only(collectives, rank, "barrier");
            assertEquals("non-blocking", barrier.getString("kind"));
            // the mailbox runs both on the device (which barrier depends on whether the ranks share cores)
            assertTrue(barrier.getString("algorithm").matches("device (flags|leader|counter) barrier"), barrier.toString());
            RecordedEvent iallreduce = only(collectives, rank, "allreduce");
            assertEquals("non-blocking", iallreduce.getString("kind"));
            assertEquals("device contributions", iallreduce.getString("algorithm"), iallreduce.toString());
            assertEquals(8, iallreduce.getLong("bytes"));
            assertEquals(2, iallreduce.getInt("size"));
            RecordedEvent neighbours = only(collectives, rank, "neighbor_allgather");
            assertEquals("non-blocking", neighbours.getString("kind"));
            assertEquals("point-to-point neighbour exchange", neighbours.getString("algorithm"));
            int r = rank;
            List<RecordedEvent> starts = collectives.stream()
                    .filter(e -> e.getInt("rank") == r && e.getString("kind").equals("persistent")).toList();
            assertEquals(3, starts.size(), "one event per start: " + starts);
            assertTrue(starts.stream().allMatch(e -> e.getString("operation").equals("allreduce") && e.getLong("bytes") == 8),
                    starts.toString());
        }
        RecordedEvent barrier = only(collectives, 0, "barrier");
        Instant answered = ofType(events, "org.lockstep.Receive").stream()
                .filter(e -> e.getInt("tag") == BACK_TAG).findFirst().orElseThrow().getEndTime();
        assertFalse(barrier.getEndTime().isBefore(answered),
                "rank 0's ibarrier lasts until its completion, after rank 1's answer: " + barrier + " answered " + answered);
    }

    /** Every event of the Lockstep message path and collectives of a two-rank thread world, with threshold 0. */
    private static List<RecordedEvent> recorded(Path dir, RankProgram program) throws IOException {
        Path file = dir.resolve("events.jfr");
        try (Recording recording = new Recording()) {
            for (String event : List.of("org.lockstep.Send", "org.lockstep.Receive", "org.lockstep.Collective")) {
                recording.enable(event).withThreshold(Duration.ZERO);
            }
            recording.start();
            TestWorlds.run(2, program);
            recording.stop();
            recording.dump(file);
        }
        return RecordingFile.readAllEvents(file);
    }

    private static RecordedEvent only(List<RecordedEvent> events, int tag) {
        return only(events, e -> e.getInt("tag") == tag, "tag " + tag);
    }

    private static RecordedEvent only(List<RecordedEvent> events, int rank, String operation) {
        return only(events, e -> e.getInt("rank") == rank && e.getString("operation").equals(operation)
                && e.getString("kind").equals("non-blocking"), Map.of("rank", rank, "operation", operation).toString());
    }

    private static RecordedEvent only(List<RecordedEvent> events, Predicate<RecordedEvent> which, String what) {
        List<RecordedEvent> matching = events.stream().filter(which).toList();
        assertEquals(1, matching.size(), what + ": " + events);
        return matching.get(0);
    }

    private static List<RecordedEvent> ofType(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }
}
