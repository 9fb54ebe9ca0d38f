package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.TestWorlds.THRESHOLD;
import static org.lockstep.pcie.mailbox.TestWorlds.firstMismatch;
import static org.lockstep.pcie.mailbox.TestWorlds.pattern;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PointToPointTest {

    @Test
    void messagesFromSeveralSendersArriveInSendOrderPerSender() {
        int senders = 3;
        int perSender = 2_000;
        TestWorlds.run(senders + 1, world -> {
            int receiver = senders;
            if (world.rank() != receiver) {
                for (int i = 0; i < perSender; i++) {
                    // Sizes alternate across the threshold so in-place and indirect messages interleave.
                    int length = 8 + (i % 3) * THRESHOLD;
                    MemorySegment m = MemorySegment.ofArray(new byte[length]);
                    m.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                    world.send(m, length, Datatype.BYTE, receiver, 7);
                }
                return;
            }
            int[] next = new int[senders];
            MemorySegment buffer = MemorySegment.ofArray(new byte[8 + 2 * THRESHOLD]);
            for (int n = 0; n < senders * perSender; n++) {
                Status s = world.recv(buffer, buffer.byteSize(), Datatype.BYTE, Communicator.ANY_SOURCE, 7);
                int sequence = buffer.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
                assertEquals(next[s.source()], sequence, "message from rank " + s.source() + " overtook another");
                assertEquals(8 + (sequence % 3) * THRESHOLD, s.byteCount());
                next[s.source()]++;
            }
            assertArrayEquals(new int[] {perSender, perSender, perSender}, next);
        });
    }

    @Test
    void wildcardReceivesReportTheSourceAndTagTheyMatched() {
        TestWorlds.run(4, world -> {
            if (world.rank() != 0) {
                world.send(new int[] {world.rank() * 100}, 0, 10 + world.rank());
                return;
            }
            Set<Integer> sources = new HashSet<>();
            for (int i = 0; i < 3; i++) {
                int[] value = new int[1];
                Status s = world.recv(value, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                assertEquals(s.source() * 100, value[0]);
                assertEquals(10 + s.source(), s.tag());
                assertEquals(1, s.count(Datatype.INT));
                sources.add(s.source());
            }
            assertEquals(Set.of(1, 2, 3), sources);
        });
    }

    @Test
    void aReceiveForOneTagSkipsEarlierMessagesWithOtherTags() {
        TestWorlds.run(2, world -> {
            if (world.rank() == 0) {
                world.send(new int[] {1}, 1, 1);
                world.send(new int[] {2}, 1, 2);
                world.send(new int[] {3}, 1, 1);
            } else {
                int[] v = new int[1];
                world.recv(v, 0, 2);
                assertEquals(2, v[0]);
                world.recv(v, 0, 1);
                assertEquals(1, v[0], "messages with the same tag must stay in order");
                world.recv(v, 0, Communicator.ANY_TAG);
                assertEquals(3, v[0]);
            }
        });
    }

    @Test
    void probeReportsAMessageWithoutConsumingIt() {
        TestWorlds.run(2, world -> {
            if (world.rank() == 0) {
                world.send(new long[] {42, 43, 44}, 1, 5);
                return;
            }
            Status probed = world.probe(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
            assertEquals(0, probed.source());
            assertEquals(5, probed.tag());
            assertEquals(3, probed.count(Datatype.LONG));
            Optional<Status> again = world.iprobe(0, 5);
            assertTrue(again.isPresent(), "a probed message must still be there");
            assertTrue(world.iprobe(0, 6).isEmpty(), "no message has tag 6");
            long[] values = new long[3];
            world.recv(values, 0, 5);
            assertArrayEquals(new long[] {42, 43, 44}, values);
            assertTrue(world.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG).isEmpty(), "the receive consumed it");
        });
    }

    @ParameterizedTest(name = "message of {0} bytes")
    @ValueSource(ints = {0, 1, THRESHOLD - 1, THRESHOLD, THRESHOLD + 1, 2 * THRESHOLD - 1, 2 * THRESHOLD + 1,
            7 * THRESHOLD - 1, 7 * THRESHOLD + 1, 100_000})
    void sizesAroundTheIndirectionThresholdArriveIntact(int length) {
        TestWorlds.run(2, world -> {
            if (world.rank() == 0) {
                world.send(pattern(0, 1, length, length), length, Datatype.BYTE, 1, 0);
                world.send(pattern(0, 1, length + 1L, length), length, Datatype.BYTE, 1, 0);
                return;
            }
            for (long index : new long[] {length, length + 1L}) {
                MemorySegment buffer = MemorySegment.ofArray(new byte[length]);
                Status s = world.recv(buffer, length, Datatype.BYTE, 0, 0);
                assertEquals(length, s.byteCount());
                assertEquals(-1, firstMismatch(buffer, 0, 1, index, length), "payload differs");
            }
            MailboxEndpoint endpoint = ((MailboxCommunicator) world).endpoint();
            assertEquals(2, endpoint.statistics().messagesReceived);
        });
    }

    @Test
    void messagesAboveTheThresholdGoThroughTheHeapAndOthersInPlace() {
        TestWorlds.run(2, world -> {
            MailboxEndpoint endpoint = ((MailboxCommunicator) world).endpoint();
            if (world.rank() == 0) {
                world.send(new byte[THRESHOLD], 1, 0);
                assertEquals(0, endpoint.statistics().indirectSends, "T bytes travel in place");
                world.send(new byte[THRESHOLD + 1], 1, 0);
                assertEquals(1, endpoint.statistics().indirectSends, "T+1 bytes go by indirection");
            } else {
                world.recv(new byte[THRESHOLD], 0, 0);
                world.recv(new byte[THRESHOLD + 1], 0, 0);
            }
        });
    }

    @Test
    void truncationFillsTheBufferReportsTheErrorAndConsumesTheMessage() {
        TestWorlds.run(2, world -> {
            if (world.rank() == 0) {
                world.send(pattern(0, 1, 1, 100), 100, Datatype.BYTE, 1, 3);
                world.send(pattern(0, 1, 2, 1000), 1000, Datatype.BYTE, 1, 3);
                world.send(new int[] {99}, 1, 4);
                return;
            }
            for (int[] sizes : new int[][] {{1, 100}, {2, 1000}}) {
                MemorySegment small = MemorySegment.ofArray(new byte[10]);
                TruncationException e = assertThrows(TruncationException.class,
                        () -> world.recv(small, 10, Datatype.BYTE, 0, 3));
                assertEquals(ErrorClass.TRUNCATE, e.errorClass());
                assertEquals(10, e.status().byteCount());
                assertEquals(sizes[1], e.messageBytes());
                assertEquals(-1, firstMismatch(small, 0, 1, sizes[0], 10), "the buffer holds the first part");
            }
            int[] next = new int[1];
            world.recv(next, 0, Communicator.ANY_TAG);
            assertEquals(99, next[0], "truncated messages were consumed; the next one is intact");
        });
    }

    @Test
    void aTruncatedNonBlockingReceiveThrowsFromWait() {
        TestWorlds.run(2, world -> {
            if (world.rank() == 0) {
                world.send(new byte[50], 1, 0);
                return;
            }
            Request r = world.irecv(new byte[20], 0, 0);
            TruncationException e = assertThrows(TruncationException.class, r::await);
            assertEquals(20, e.status().byteCount());
            assertEquals(0, e.status().source());
        });
    }

    @Test
    void synchronousSendDoesNotCompleteBeforeTheReceiveStarts() {
        CountDownLatch receiverMayReceive = new CountDownLatch(1);
        TestWorlds.run(2, world -> {
            if (world.rank() == 0) {
                Request standard = world.isend(new byte[8], 1, 1);
                assertTrue(standard.test().isPresent(), "a small standard send completes once placed");
                Request synchronous = world.issend(MemorySegment.ofArray(new byte[8]), 8, Datatype.BYTE, 1, 2);
                for (int i = 0; i < 10_000; i++) {
                    assertFalse(synchronous.test().isPresent(), "ssend completed before any receive was posted");
                }
                receiverMayReceive.countDown();
                synchronous.await();
            } else {
                world.recv(new byte[8], 0, 1);
                receiverMayReceive.await();
                world.recv(new byte[8], 0, 2);
            }
        });
    }

    @Test
    void synchronousSendOfALargeMessageCompletesAfterItIsReceived() {
        TestWorlds.run(2, world -> {
            int length = 10 * THRESHOLD;
            if (world.rank() == 0) {
                world.ssend(pattern(0, 1, 5, length), length, Datatype.BYTE, 1, 0);
            } else {
                MemorySegment b = MemorySegment.ofArray(new byte[length]);
                world.recv(b, length, Datatype.BYTE, 0, 0);
                assertEquals(-1, firstMismatch(b, 0, 1, 5, length));
            }
        });
    }

    @Test
    void heapUsageReturnsToZeroAfterAHundredThousandLargeMessages() {
        int messages = 100_000;
        int length = THRESHOLD + 64;
        // 64 KiB of heap holds ~200 such payloads: without reclamation the sender would run dry.
        TestWorlds.run(TestWorlds.options(2).with(MailboxOptions.HEAP_PER_RANK, "64k"), world -> {
            MailboxEndpoint endpoint = ((MailboxCommunicator) world).endpoint();
            MemorySegment buffer = MemorySegment.ofArray(new byte[length]);
            if (world.rank() == 0) {
                for (int i = 0; i < messages; i++) {
                    buffer.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                    world.send(buffer, length, Datatype.BYTE, 1, 0);
                }
                world.recv(new byte[1], 1, 1);
                assertEquals(0, endpoint.operations().heapBytesInUse(), "every payload's heap block was reclaimed");
                assertEquals(messages, endpoint.statistics().indirectSends);
            } else {
                for (int i = 0; i < messages; i++) {
                    world.recv(buffer, length, Datatype.BYTE, 0, 0);
                    assertEquals(i, buffer.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
                }
                world.send(new byte[1], 0, 1);
            }
        });
    }

    @Test
    void manySendersToOneReceiverDeliverEveryMessageExactlyOnce() {
        int ranks = 8;
        int perSender = 300;
        ConcurrentLinkedQueue<Long> received = new ConcurrentLinkedQueue<>();
        TestWorlds.run(ranks, world -> {
            if (world.rank() != 0) {
                List<Request> requests = new ArrayList<>();
                for (int i = 0; i < perSender; i++) {
                    long id = world.rank() * 1_000_000L + i;
                    requests.add(world.isend(MemorySegment.ofArray(new long[] {id}), 1, Datatype.LONG, 0, i % 5));
                }
                Request.waitAll(requests.toArray(Request[]::new));
                return;
            }
            long[] value = new long[1];
            for (int n = 0; n < (ranks - 1) * perSender; n++) {
                Status s = world.recv(value, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                assertEquals(s.source(), value[0] / 1_000_000L);
                assertEquals(value[0] % 1_000_000L % 5, s.tag());
                received.add(value[0]);
            }
            assertTrue(world.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG).isEmpty(), "nothing unexpected left");
        });
        assertEquals((ranks - 1) * perSender, received.size());
        assertEquals(received.size(), new HashSet<>(received).size(), "a message was delivered twice");
    }

    @Test
    void theAsynchronousMailboxTakesSendsWhenThePairMailboxIsFull() {
        CountDownLatch sendsStarted = new CountDownLatch(1);
        TestWorlds.run(2, world -> {
            MailboxEndpoint endpoint = ((MailboxCommunicator) world).endpoint();
            int count = 8 + 16 + 10; // pair ring of 8, async ring of 16, then 10 that must queue locally
            if (world.rank() == 0) {
                Request[] sends = new Request[count];
                for (int i = 0; i < count; i++) {
                    sends[i] = world.isend(MemorySegment.ofArray(new int[] {i}), 1, Datatype.INT, 1, 0);
                }
                assertEquals(8, endpoint.statistics().pairMailboxSends);
                assertEquals(16, endpoint.statistics().asyncMailboxSends);
                assertEquals(10, endpoint.statistics().sendsQueued);
                sendsStarted.countDown();
                Request.waitAll(sends);
            } else {
                sendsStarted.await();
                int[] v = new int[1];
                for (int i = 0; i < count; i++) {
                    world.recv(v, 0, 0);
                    assertEquals(i, v[0], "order across pair and asynchronous mailboxes");
                }
            }
        });
    }

    @Test
    void guardBytesAroundTheReceiveBufferStayUntouched() {
        TestWorlds.run(2, world -> {
            for (int length : new int[] {5, THRESHOLD + 5}) {
                if (world.rank() == 0) {
                    world.send(pattern(0, 1, length, length + 20), length + 20, Datatype.BYTE, 1, 0);
                    continue;
                }
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment whole = arena.allocate(length + 64);
                    whole.fill((byte) 0x5A);
                    MemorySegment window = whole.asSlice(32, length);
                    assertThrows(TruncationException.class, () -> world.recv(window, length, Datatype.BYTE, 0, 0));
                    for (long i = 0; i < 32; i++) {
                        assertEquals(0x5A, whole.get(ValueLayout.JAVA_BYTE, i), "guard byte before the buffer at " + i);
                        assertEquals(0x5A, whole.get(ValueLayout.JAVA_BYTE, 32 + length + i), "guard byte after the buffer at " + i);
                    }
                    assertEquals(-1, firstMismatch(window, 0, 1, length, length));
                }
            }
        });
    }

    @Test
    void anUnmatchedReceiveCanBeCancelledAndAMatchedOneCannot() {
        TestWorlds.run(2, world -> {
            if (world.rank() == 0) {
                world.recv(new byte[0], 1, 0);
                world.send(new int[] {7}, 1, 2);
                return;
            }
            Request never = world.irecv(new int[1], 0, 1);
            never.cancel();
            assertTrue(never.await().cancelled());
            int[] v = new int[1];
            Request r = world.irecv(v, 0, 2);
            world.send(new byte[0], 0, 0);
            assertFalse(r.await().cancelled());
            r.cancel();
            assertEquals(7, v[0]);
        });
    }

    @Test
    void waitAnyAndTestAllCompleteMixedRequests() {
        TestWorlds.run(3, world -> {
            if (world.rank() != 0) {
                world.recv(new byte[0], 0, 99);
                world.send(new int[] {world.rank()}, 0, world.rank());
                return;
            }
            int[] a = new int[1];
            int[] b = new int[1];
            Request fromOne = world.irecv(MemorySegment.ofArray(a), 1, Datatype.INT, 1, 1);
            Request fromTwo = world.irecv(MemorySegment.ofArray(b), 1, Datatype.INT, 2, 2);
            assertTrue(Request.testAll(fromOne, fromTwo).isEmpty(), "nothing has been sent yet");
            world.send(new byte[0], 2, 99);
            assertEquals(1, Request.waitAny(fromOne, fromTwo), "only rank 2 has sent");
            world.send(new byte[0], 1, 99);
            Status[] all = Request.waitAll(fromOne, fromTwo);
            assertEquals(1, all[0].source());
            assertEquals(2, all[1].source());
            assertEquals(1, a[0]);
            assertEquals(2, b[0]);
        });
    }

    @Test
    void sendrecvExchangesAroundARingWithoutDeadlock() {
        TestWorlds.run(5, world -> {
            int next = (world.rank() + 1) % world.size();
            int prev = (world.rank() + world.size() - 1) % world.size();
            int length = 3 * THRESHOLD;
            MemorySegment in = MemorySegment.ofArray(new byte[length]);
            Status s = world.sendrecv(pattern(world.rank(), next, 0, length), length, Datatype.BYTE, next, 0,
                    in, length, Datatype.BYTE, prev, 0);
            assertEquals(prev, s.source());
            assertEquals(-1, firstMismatch(in, prev, world.rank(), 0, length));
        });
    }

    @Test
    void procNullAndSelfMessagesComplete() {
        TestWorlds.run(1, world -> {
            Status s = world.recv(new byte[4], Communicator.PROC_NULL, 3);
            assertEquals(Communicator.PROC_NULL, s.source());
            assertEquals(0, s.byteCount());
            world.send(new byte[4], Communicator.PROC_NULL, 3);
            Request r = world.isend(new int[] {5}, 0, 1);
            int[] v = new int[1];
            world.recv(v, 0, 1);
            r.await();
            assertEquals(5, v[0]);
        });
    }

    @Test
    void badArgumentsAreRejectedWithTheirErrorClassAndTheTransportStillWorks() {
        TestWorlds.run(2, world -> {
            if (world.rank() == 1) {
                int[] v = new int[1];
                world.recv(v, 0, 0);
                assertEquals(11, v[0]);
                return;
            }
            MemorySegment four = MemorySegment.ofArray(new int[1]);
            assertError(ErrorClass.RANK, () -> world.send(four, 1, Datatype.INT, 2, 0));
            assertError(ErrorClass.RANK, () -> world.send(four, 1, Datatype.INT, -5, 0));
            assertError(ErrorClass.RANK, () -> world.irecv(four, 1, Datatype.INT, 7, 0));
            assertError(ErrorClass.TAG, () -> world.send(four, 1, Datatype.INT, 1, -1));
            assertError(ErrorClass.TAG, () -> world.irecv(four, 1, Datatype.INT, 1, -7));
            assertError(ErrorClass.COUNT, () -> world.send(four, 2, Datatype.INT, 1, 0));
            assertError(ErrorClass.COUNT, () -> world.irecv(four, 1, Datatype.LONG, 1, 0));
            assertError(ErrorClass.COUNT, () -> world.send(four, -1, Datatype.INT, 1, 0));
            assertError(ErrorClass.TYPE, () -> world.send(four, 1, null, 1, 0));
            assertError(ErrorClass.BUFFER, () -> world.irecv(four.asReadOnly(), 1, Datatype.INT, 1, 0));
            assertError(ErrorClass.RANK, () -> world.probe(3, 0));
            world.send(new int[] {11}, 1, 0);
        });
    }

    @Test
    void aClosedCommunicatorRejectsEveryCall() {
        TestWorlds.run(1, world -> {
            world.close();
            assertError(ErrorClass.COMM, () -> world.send(new byte[1], 0, 0));
            assertError(ErrorClass.COMM, () -> world.irecv(new byte[1], 0, 0));
            assertError(ErrorClass.COMM, () -> world.iprobe(0, 0));
            assertError(ErrorClass.COMM, () -> world.allocate(8));
        });
    }

    @Test
    void allocatedMemoryIsUsableAsABufferAndFreedOnce() {
        TestWorlds.run(2, world -> {
            MemorySegment segment = world.allocate(1024);
            assertNotNull(segment);
            assertEquals(1024, segment.byteSize());
            if (world.rank() == 0) {
                segment.fill((byte) 3);
                world.send(segment, 1024, Datatype.BYTE, 1, 0);
            } else {
                world.recv(segment, 1024, Datatype.BYTE, 0, 0);
                assertEquals(3, segment.get(ValueLayout.JAVA_BYTE, 1023));
            }
            world.free(segment);
            assertError(ErrorClass.ARG, () -> world.free(segment));
        });
    }

    static void assertError(ErrorClass expected, org.junit.jupiter.api.function.Executable call) {
        LockstepException e = assertThrows(LockstepException.class, call);
        assertEquals(expected, e.errorClass(), e.getMessage());
    }
}
