package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.TestWorlds.firstMismatch;
import static org.lockstep.pcie.mailbox.TestWorlds.pattern;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;

/** Messages larger than a heap block travel as a pipeline of fragments. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FragmentationTest {
    /** 64 KiB of heap per rank: fragments of 16 KiB. */
    private static final JobOptions SMALL_HEAP = TestWorlds.options(2).with(MailboxOptions.HEAP_PER_RANK, "64k");
    private static final int LARGE = (1 << 20) + 333;

    @Test
    void aMessageSixteenTimesTheHeapArrivesIntactWhenTheReceiveIsPostedFirst() {
        TestWorlds.run(SMALL_HEAP, world -> {
            if (world.rank() == 1) {
                MemorySegment buffer = MemorySegment.ofArray(new byte[LARGE]);
                Request r = world.irecv(buffer, LARGE, Datatype.BYTE, 0, 4);
                world.send(new byte[0], 0, 0);
                Status s = r.await();
                assertEquals(LARGE, s.byteCount());
                assertEquals(-1, firstMismatch(buffer, 0, 1, 1, LARGE));
                assertEquals(0, ((MailboxCommunicator) world).endpoint().statistics().fragmentsStaged, "posted receive: no staging");
                world.send(new byte[0], 0, 0);
            } else {
                world.recv(new byte[0], 1, 0);
                world.send(pattern(0, 1, 1, LARGE), LARGE, Datatype.BYTE, 1, 4);
                assertTrue(((MailboxCommunicator) world).endpoint().statistics().indirectSends >= 64, "sent in fragments");
                world.recv(new byte[0], 1, 0);
                assertEquals(0, ((MailboxCommunicator) world).endpoint().operations().heapBytesInUse(), "all fragments reclaimed once received");
            }
        });
    }

    @Test
    void aLaterSmallMessageCanBeReceivedBeforeAnUnmatchedLargeOne() {
        CountDownLatch smallReceived = new CountDownLatch(1);
        TestWorlds.run(SMALL_HEAP, world -> {
            if (world.rank() == 0) {
                Request large = world.isend(pattern(0, 1, 2, LARGE), LARGE, Datatype.BYTE, 1, 1);
                Request small = world.isend(MemorySegment.ofArray(new int[] {77}), 1, Datatype.INT, 1, 2);
                Request.waitAll(large, small);
                smallReceived.await();
                return;
            }
            int[] v = new int[1];
            world.recv(v, 0, 2);
            assertEquals(77, v[0]);
            smallReceived.countDown();
            MemorySegment buffer = MemorySegment.ofArray(new byte[LARGE]);
            world.recv(buffer, LARGE, Datatype.BYTE, 0, 1);
            assertEquals(-1, firstMismatch(buffer, 0, 1, 2, LARGE));
            assertTrue(((MailboxCommunicator) world).endpoint().statistics().fragmentsStaged > 0, "unmatched fragments were staged");
        });
    }

    @Test
    void aTruncatedFragmentedMessageFillsTheBufferAndIsConsumedWhole() {
        TestWorlds.run(SMALL_HEAP, world -> {
            if (world.rank() == 0) {
                world.send(pattern(0, 1, 3, LARGE), LARGE, Datatype.BYTE, 1, 0);
                world.send(new int[] {5}, 1, 0);
                return;
            }
            int room = 40_000;
            MemorySegment buffer = MemorySegment.ofArray(new byte[room]);
            TruncationException e = assertThrows(TruncationException.class, () -> world.recv(buffer, room, Datatype.BYTE, 0, 0));
            assertEquals(room, e.status().byteCount());
            assertEquals(LARGE, e.messageBytes());
            assertEquals(-1, firstMismatch(buffer, 0, 1, 3, room));
            int[] v = new int[1];
            world.recv(v, 0, 0);
            assertEquals(5, v[0]);
        });
    }

    @Test
    void probeReportsTheWholeLengthOfAFragmentedMessage() {
        TestWorlds.run(SMALL_HEAP, world -> {
            if (world.rank() == 0) {
                world.isend(pattern(0, 1, 4, LARGE), LARGE, Datatype.BYTE, 1, 6).await();
                return;
            }
            assertEquals(LARGE, world.probe(0, 6).byteCount());
            MemorySegment buffer = MemorySegment.ofArray(new byte[LARGE]);
            world.recv(buffer, LARGE, Datatype.BYTE, 0, 6);
            assertEquals(-1, firstMismatch(buffer, 0, 1, 4, LARGE));
        });
    }
}
