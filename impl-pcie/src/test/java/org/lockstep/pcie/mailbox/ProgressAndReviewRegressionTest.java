package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.TestWorlds.firstMismatch;
import static org.lockstep.pcie.mailbox.TestWorlds.pattern;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;

/**
 * MPI's progress rule and the failure cases a review of the transport found: each test here hung
 * or completed too early before its fix.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProgressAndReviewRegressionTest {

    @ParameterizedTest(name = "atomics={0}")
    @ValueSource(booleans = {true, false})
    void aReceivePostedForTheLastOfManyUnexpectedMessagesStillMatches(boolean atomics) {
        int count = 200; // far more than the 8 pair and 16 async slots of the test world
        JobOptions options = TestWorlds.options(2).with(MailboxOptions.DEVICE_OPTION_PREFIX + "atomics", Boolean.toString(atomics));
        TestWorlds.run(options, world -> {
            if (world.rank() == 0) {
                Request[] sends = new Request[count];
                for (int i = 0; i < count; i++) {
                    int length = i % 2 == 0 ? 16 : TestWorlds.THRESHOLD * 3;
                    sends[i] = world.isend(pattern(0, 1, i, length), length, Datatype.BYTE, 1, i);
                }
                Request.waitAll(sends);
                return;
            }
            MemorySegment buffer = MemorySegment.ofArray(new byte[TestWorlds.THRESHOLD * 3]);
            // The last message first: every earlier one must get out of its way.
            world.recv(buffer, buffer.byteSize(), Datatype.BYTE, 0, count - 1);
            assertEquals(-1, firstMismatch(buffer, 0, 1, count - 1, TestWorlds.THRESHOLD * 3));
            for (int i = 0; i < count - 1; i++) {
                int length = i % 2 == 0 ? 16 : TestWorlds.THRESHOLD * 3;
                world.recv(buffer, buffer.byteSize(), Datatype.BYTE, 0, i);
                assertEquals(-1, firstMismatch(buffer, 0, 1, i, length), "message " + i);
            }
            assertTrue(((MailboxCommunicator) world).endpoint().statistics().messagesSpilled > 0);
        });
    }

    @Test
    void aFragmentedSynchronousSendWaitsForTheMatchingReceive() {
        CountDownLatch mayReceive = new CountDownLatch(1);
        int length = 1 << 20;
        TestWorlds.run(TestWorlds.options(2).with(MailboxOptions.HEAP_PER_RANK, "64k"), world -> {
            if (world.rank() == 0) {
                Request ssend = world.issend(pattern(0, 1, 9, length), length, Datatype.BYTE, 1, 3);
                world.send(new byte[0], 1, 99);
                for (int i = 0; i < 20_000; i++) {
                    assertFalse(ssend.test().isPresent(), "ssend completed before its receive was posted");
                }
                mayReceive.countDown();
                ssend.await();
                return;
            }
            // Drains the fragments (they are staged) while receiving something else.
            world.recv(new byte[0], 0, 99);
            mayReceive.await();
            MemorySegment buffer = MemorySegment.ofArray(new byte[length]);
            world.recv(buffer, length, Datatype.BYTE, 0, 3);
            assertEquals(-1, firstMismatch(buffer, 0, 1, 9, length));
        });
    }

    @Test
    void aReceiveFromAFinishedRankFailsEvenWithOtherMessagesOfItsQueued() {
        AtomicReference<ProcessFailedException> seen = new AtomicReference<>();
        TestWorlds.run(2, world -> {
            if (world.rank() == 1) {
                world.send(new byte[4], 0, 5);
                return;
            }
            org.awaitility.Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> world.iprobe(1, 5).isPresent());
            seen.set(assertThrows(ProcessFailedException.class, () -> world.recv(new byte[4], 1, 7)));
            world.recv(new byte[4], 1, 5); // the message it did send is still there
        });
        assertEquals(1, seen.get().failedRank());
    }

    @Test
    void aSynchronousSendMatchedByARankThatThenFinishesCompletesRatherThanFails() {
        for (int round = 0; round < 50; round++) {
            TestWorlds.run(2, world -> {
                if (world.rank() == 0) {
                    // Completes only after rank 1 matched it; rank 1 may have finished by the time rank 0 looks.
                    world.ssend(MemorySegment.ofArray(new byte[8]), 8, Datatype.BYTE, 1, 0);
                } else {
                    world.recv(new byte[8], 0, 0);
                }
            });
        }
    }

    @Test
    void closingACommunicatorFailsTheRequestsAnotherThreadWaitsOn() {
        TestWorlds.run(2, world -> {
            if (world.rank() == 1) {
                return;
            }
            Request pending = world.irecv(new byte[1], 0, 42); // from itself: never sent
            AtomicReference<Throwable> waiter = new AtomicReference<>();
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    pending.await();
                } catch (Throwable e) {
                    waiter.set(e);
                }
            });
            world.close();
            t.join(10_000);
            assertFalse(t.isAlive(), "the waiting thread was left waiting");
            assertEquals(ErrorClass.COMM, ((LockstepException) waiter.get()).errorClass());
        });
    }

    @Test
    void anInlineThresholdAboveTheHeapIsRefusedUpFrontInsteadOfHanging() {
        JobOptions options = TestWorlds.options(2)
                .with(MailboxOptions.INLINE_THRESHOLD, "8192").with(MailboxOptions.HEAP_PER_RANK, "4k");
        TestWorlds.run(options, world -> {
            if (world.rank() == 0) {
                LockstepException e = assertThrows(LockstepException.class, () -> world.send(new byte[10_000], 1, 0));
                assertEquals(ErrorClass.NO_MEM, e.errorClass());
                assertTrue(e.getMessage().contains("heapPerRank"), e.getMessage());
                world.send(new byte[100], 1, 0);
            } else {
                world.recv(new byte[100], 0, 0);
            }
        });
    }
}
