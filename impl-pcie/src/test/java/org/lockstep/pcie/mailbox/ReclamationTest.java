package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.CheckpointTesting.*;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.stream.LongStream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;

/** Retention: a logged message is reclaimed exactly when no restart of its receiver can need it. */
class ReclamationTest {
    private static final int PAYLOAD = 1000;

    @Test
    void reclamationFreesExactlyWhatTheReceiversCheckpointHasConsumedAndEventuallyEverything() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2))) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            MailboxEndpoint senderEndpoint = endpoint(world, 0);
            int total = 600; // ~650 KB of payload through a 256 KiB heap: only reclamation lets it through
            ArrayDeque<Request> inFlight = new ArrayDeque<>();
            long nextToSend = 1;
            long consumed = 0;
            long peakRetained = 0;
            byte[] buffer = new byte[PAYLOAD];
            while (consumed < total) {
                while (nextToSend <= total && inFlight.size() < 4) {
                    byte[] payload = new byte[PAYLOAD];
                    payload[0] = (byte) nextToSend;
                    inFlight.add(sender.isend(payload, 1, 0));
                    nextToSend++;
                }
                inFlight.removeIf(r -> r.test().isPresent());
                if (receiver.iprobe(0, 0).isPresent()) {
                    receiver.recv(buffer, 0, 0);
                    consumed++;
                    assertEquals((byte) consumed, buffer[0]);
                    if (consumed % 25 == 0) {
                        receiver.checkpoints().checkpoint();
                        pump(sender);
                        awaitReclaimed(sender, senderEndpoint, consumed);
                        List<Long> retained = senderEndpoint.messageLog().retainedFor(1).stream().map(LoggedMessage::sequence).toList();
                        long logged = senderEndpoint.statistics().messagesLogged;
                        assertEquals(LongStream.rangeClosed(consumed + 1, logged).boxed().toList(), retained,
                                "after a checkpoint at " + consumed + " exactly the later messages stay retained");
                    }
                }
                peakRetained = Math.max(peakRetained, senderEndpoint.statistics().retainedBytes);
            }
            assertTrue(peakRetained <= 256 << 10, "retained bytes stay within the heap: " + peakRetained);
            receiver.checkpoints().checkpoint();
            awaitReclaimed(sender, senderEndpoint, total);
            assertEquals(0, senderEndpoint.statistics().retainedBytes);
            assertEquals(0, senderEndpoint.operations().heapBytesInUse(), "every block came back once the receiver checkpointed past it");
            assertEquals(total, senderEndpoint.statistics().messagesReclaimed);
        }
    }

    private static void awaitReclaimed(Communicator sender, MailboxEndpoint endpoint, long through) {
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            pump(sender);
            List<LoggedMessage> retained = endpoint.messageLog().retainedFor(1);
            return retained.isEmpty() || retained.get(0).sequence() > through;
        });
    }

    @Test
    void aDeviceFullOfRetainedMessagesFailsTheSendClearlyAfterABoundedWait() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2)
                .with(MailboxOptions.HEAP_PER_RANK, "32k")
                .with(RestartPolicy.LOG_FULL_WAIT_PROPERTY, "300"))) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            byte[] buffer = new byte[PAYLOAD];
            // The receiver consumes everything but never checkpoints: nothing may be reclaimed.
            LockstepException full = null;
            for (int i = 0; i < 200 && full == null; i++) {
                Request send = sender.isend(new byte[PAYLOAD], 1, 0);
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (true) {
                    try {
                        if (send.test().isPresent()) {
                            break;
                        }
                    } catch (LockstepException e) {
                        full = e;
                        break;
                    }
                    while (receiver.iprobe(0, 0).isPresent()) {
                        receiver.recv(buffer, 0, 0);
                    }
                    assertTrue(System.nanoTime() < deadline, "a send on a full log must fail within its bound, not hang");
                }
            }
            assertTrue(full != null, "32 KiB cannot retain 200 messages of 1000 bytes");
            assertEquals(ErrorClass.NO_MEM, full.errorClass());
            assertTrue(full.getMessage().contains("checkpoint more often or enlarge the device"), full.getMessage());
            assertTrue(endpoint(world, 0).statistics().logFullWaits > 0);
            // A checkpoint releases the log, and sending works again.
            receiver.checkpoints().checkpoint();
            Request again = sender.isend(new byte[PAYLOAD], 1, 0);
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> again.test().isPresent());
            assertFalse(endpoint(world, 0).messageLog().retainedFor(1).isEmpty());
        }
    }

    @Test
    void withoutCheckpointsNothingIsLoggedAndCheckpointIsADeclaredNoOp() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(TestWorlds.options(2))) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            sender.isend(new byte[] {1, 2, 3}, 1, 0);
            receive(receiver, 0, sender);
            assertFalse(receiver.checkpoints().durable());
            assertFalse(receiver.checkpoints().checkpoint().durable());
            assertEquals(0, endpoint(world, 0).statistics().messagesLogged);
            assertEquals(0, endpoint(world, 0).statistics().indirectSends, "a small message still travels in place");
            assertThrows(LockstepException.class, () -> receiver.checkpoints().register("", MemorySegment.NULL));
        }
    }
}
