package org.lockstep.pcie.mailbox;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.TestWorlds.firstMismatch;
import static org.lockstep.pcie.mailbox.TestWorlds.pattern;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.SlotDescriptor;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Single-copy delivery into device-resident receive buffers ({@link SingleCopy}) and the device
 * buffers it needs ({@link DeviceBuffers}), on thread worlds over the emulated device.
 */
class SingleCopyTest {
    /** The single-copy threshold of these tests (the default is larger). */
    static final int SINGLE_COPY = 16 << 10;
    private static final int LARGE = 1 << 20;

    static JobOptions options() {
        return TestWorlds.options(2)
                .with(MailboxOptions.HEAP_PER_RANK, "8m")
                .with(MailboxOptions.FRAGMENT, "64k")
                .with(MailboxOptions.SINGLE_COPY_THRESHOLD, Integer.toString(SINGLE_COPY));
    }

    private static MailboxEndpoint endpoint(Communicator world) {
        return ((MailboxCommunicator) world).endpoint();
    }

    @Test
    void allocatedMemoryLivesInTheRanksHeapPartitionIsReusedAndRunsOutWithNoMem() {
        TestWorlds.run(options(), world -> {
            MailboxEndpoint endpoint = endpoint(world);
            MailboxLayout layout = endpoint.layout();
            MemorySegment whole = endpoint.deviceForTests().asSegment();
            MemorySegment a = world.allocate(100_000);
            long offset = a.address() - whole.address();
            assertTrue(offset >= layout.heapPartition(world.rank())
                    && offset + a.byteSize() <= layout.heapPartition(world.rank()) + layout.heapPartitionLength(),
                    "offset " + offset + " is in the heap partition of rank " + world.rank());
            assertEquals(0, offset % 64, "cache-line aligned");
            world.free(a);
            MemorySegment again = world.allocate(100_000);
            assertEquals(a.address(), again.address(), "freed memory is reused");
            LockstepException tooMuch = assertThrows(LockstepException.class, () -> world.allocate(layout.heapPartitionLength()));
            assertEquals(ErrorClass.NO_MEM, tooMuch.errorClass());
            assertTrue(tooMuch.getMessage().contains(MailboxOptions.HEAP_PER_RANK), tooMuch.getMessage());
            world.free(again);
            assertThrows(LockstepException.class, () -> world.free(again), "a second free is an argument error");
        });
    }

    /**
     * Buffers freed out of order leave a hole between live buffers and a small one above it; the
     * next buffer that fits only the hole must come from the hole, not from past the partition's
     * end (where it overlapped the next rank's partition and its free failed as "outside the heap
     * partition", as in the sample sort on three ranks).
     */
    @Test
    void aBufferTakenFromAHoleBetweenLiveBuffersStaysInTheRanksPartition() {
        TestWorlds.run(options(), world -> {
            MailboxEndpoint endpoint = endpoint(world);
            MailboxLayout layout = endpoint.layout();
            long whole = endpoint.deviceForTests().asSegment().address();
            long partition = layout.heapPartition(world.rank());
            MemorySegment topmost = world.allocate(64);
            MemorySegment kept = world.allocate(64);
            MemorySegment hole = world.allocate(80_000);
            MemorySegment keptToo = world.allocate(64);
            world.free(topmost);
            world.free(hole);
            MemorySegment next = world.allocate(20_480);
            long offset = next.address() - whole;
            assertTrue(offset >= partition && offset + next.byteSize() <= partition + layout.heapPartitionLength(),
                    "buffer at " + offset + " is in the heap partition [" + partition + ", +" + layout.heapPartitionLength()
                            + ") of rank " + world.rank());
            assertEquals(hole.address() + hole.byteSize() - next.byteSize(), next.address(), "the top of the hole");
            world.free(next);
            world.free(kept);
            world.free(keptToo);
            assertEquals(0, endpoint.operations().heapBytesInUse());
        });
    }

    @Test
    void aLargeMessageIntoADeviceBufferIsCopiedOnceAndIntoProcessMemoryTwice() {
        AtomicLong deviceCopies = new AtomicLong();
        AtomicLong processCopies = new AtomicLong();
        AtomicLong singleCopies = new AtomicLong();
        TestWorlds.run(options(), world -> {
            MailboxEndpoint endpoint = endpoint(world);
            MemorySegment deviceBuffer = world.allocate(LARGE);
            long before = endpoint.statistics().bytesCopied;
            // Posted before the barrier: the offer then always meets the receive, never arrives unexpected.
            Request r = world.rank() == 1 ? world.irecv(deviceBuffer, LARGE, Datatype.BYTE, 0, 5) : null;
            world.barrier();
            if (world.rank() == 0) {
                world.send(pattern(0, 1, 1, LARGE), LARGE, Datatype.BYTE, 1, 5);
            } else {
                Status s = r.await();
                assertEquals(LARGE, s.byteCount());
                assertEquals(-1, firstMismatch(deviceBuffer, 0, 1, 1, LARGE), "payload delivered with one copy differs");
                assertEquals(1, endpoint.statistics().singleCopyAccepted);
            }
            world.barrier();
            deviceCopies.addAndGet(endpoint.statistics().bytesCopied - before);
            singleCopies.addAndGet(endpoint.statistics().singleCopyMessages);
            world.barrier();
            before = endpoint.statistics().bytesCopied;
            if (world.rank() == 0) {
                world.send(pattern(0, 1, 2, LARGE), LARGE, Datatype.BYTE, 1, 6);
            } else {
                MemorySegment processBuffer = MemorySegment.ofArray(new byte[LARGE]);
                world.recv(processBuffer, LARGE, Datatype.BYTE, 0, 6);
                assertEquals(-1, firstMismatch(processBuffer, 0, 1, 2, LARGE), "payload through the heap differs");
            }
            world.barrier();
            processCopies.addAndGet(endpoint.statistics().bytesCopied - before);
            world.free(deviceBuffer);
        });
        assertEquals(1, singleCopies.get(), "the sender wrote the device-buffer message straight into it");
        assertTrue(deviceCopies.get() >= LARGE && deviceCopies.get() < LARGE + LARGE / 8,
                "one copy of the payload, plus at most the barriers' bytes: " + deviceCopies.get());
        assertTrue(processCopies.get() >= 2L * LARGE, "two copies through the heap: " + processCopies.get());
    }

    @Test
    void sizesAroundTheThresholdsArriveIntactAndOnlyThoseAtOrAboveTheSingleCopyThresholdTakeOneCopy() {
        List<Integer> sizes = List.of(TestWorlds.THRESHOLD, TestWorlds.THRESHOLD + 1, 8 << 10, SINGLE_COPY - 1, SINGLE_COPY,
                SINGLE_COPY + 1, (64 << 10) - 1, 64 << 10, (64 << 10) + 1, 3 * (64 << 10) + 17, LARGE + 5);
        long expected = sizes.stream().filter(n -> n >= SINGLE_COPY).count();
        AtomicLong accepted = new AtomicLong();
        TestWorlds.run(options(), world -> {
            MemorySegment buffer = world.allocate(LARGE + 64);
            for (int i = 0; i < sizes.size(); i++) {
                int n = sizes.get(i);
                if (world.rank() == 0) {
                    world.send(pattern(0, 1, i, n), n, Datatype.BYTE, 1, i);
                } else {
                    buffer.fill((byte) 0);
                    Request r = world.irecv(buffer, LARGE + 64, Datatype.BYTE, 0, i);
                    assertEquals(n, r.await().byteCount(), "size " + n);
                    assertEquals(-1, firstMismatch(buffer, 0, 1, i, n), "size " + n);
                    assertEquals(0, buffer.get(java.lang.foreign.ValueLayout.JAVA_BYTE, n), "nothing written past size " + n);
                }
                world.barrier();
            }
            if (world.rank() == 1) {
                accepted.set(endpoint(world).statistics().singleCopyAccepted);
            }
        });
        // A receive posted before the offer arrives is matched in the drain; one posted after it finds an unexpected
        // offer, which is declined. The echo below forces the posted-first order for every size.
        assertTrue(accepted.get() <= expected, "only sizes at or above the threshold: " + accepted.get());
        AtomicLong acceptedPosted = new AtomicLong();
        TestWorlds.run(options(), world -> {
            MemorySegment buffer = world.allocate(LARGE + 64);
            for (int i = 0; i < sizes.size(); i++) {
                int n = sizes.get(i);
                if (world.rank() == 0) {
                    world.recv(new byte[1], 1, 100 + i); // rank 1 has posted its receive
                    world.send(pattern(0, 1, i, n), n, Datatype.BYTE, 1, i);
                } else {
                    Request r = world.irecv(buffer, LARGE + 64, Datatype.BYTE, 0, i);
                    world.send(new byte[1], 0, 100 + i);
                    assertEquals(n, r.await().byteCount());
                    assertEquals(-1, firstMismatch(buffer, 0, 1, i, n), "size " + n);
                }
            }
            if (world.rank() == 1) {
                acceptedPosted.set(endpoint(world).statistics().singleCopyAccepted);
            }
        });
        assertEquals(expected, acceptedPosted.get(), "every size at or above the threshold into a posted device buffer");
    }

    @Test
    void unexpectedWildcardAndTruncatingReceivesTakeTheOrdinaryPathWithUnchangedSemantics() {
        TestWorlds.run(options(), world -> {
            MemorySegment buffer = world.allocate(LARGE);
            if (world.rank() == 0) {
                world.send(pattern(0, 1, 1, LARGE), LARGE, Datatype.BYTE, 1, 1); // unexpected at rank 1
                world.recv(new byte[1], 1, 9);
                world.send(pattern(0, 1, 2, LARGE), LARGE, Datatype.BYTE, 1, 2); // into an ANY_SOURCE receive
                world.recv(new byte[1], 1, 9);
                world.send(pattern(0, 1, 3, LARGE), LARGE, Datatype.BYTE, 1, 3); // truncated
                world.ssend(pattern(0, 1, 4, LARGE), LARGE, Datatype.BYTE, 1, 4); // synchronous, single copy
                return;
            }
            MailboxEndpoint endpoint = endpoint(world);
            await().atMost(Duration.ofSeconds(30)).until(() -> world.iprobe(0, 1).isPresent());
            assertEquals(LARGE, world.recv(buffer, LARGE, Datatype.BYTE, 0, 1).byteCount());
            assertEquals(-1, firstMismatch(buffer, 0, 1, 1, LARGE), "unexpected message");
            Request any = world.irecv(buffer, LARGE, Datatype.BYTE, Communicator.ANY_SOURCE, 2);
            world.send(new byte[1], 0, 9);
            Status s = any.await();
            assertEquals(0, s.source());
            assertEquals(-1, firstMismatch(buffer, 0, 1, 2, LARGE), "wildcard receive");
            Request small = world.irecv(buffer, LARGE / 2, Datatype.BYTE, 0, 3);
            world.send(new byte[1], 0, 9);
            TruncationException t = assertThrows(TruncationException.class, small::await);
            assertEquals(LARGE / 2, t.status().byteCount());
            assertEquals(LARGE, t.messageBytes());
            assertEquals(-1, firstMismatch(buffer, 0, 1, 3, LARGE / 2), "the truncated receive holds the first part");
            assertEquals(0, endpoint.statistics().singleCopyAccepted, "none of these took one copy");
            Request sync = world.irecv(buffer, LARGE, Datatype.BYTE, 0, 4);
            assertEquals(LARGE, sync.await().byteCount());
            assertEquals(-1, firstMismatch(buffer, 0, 1, 4, LARGE), "synchronous message");
        });
    }

    @Test
    void aCancelledDeviceBufferReceiveTakesNothingAndMixedSizesKeepTheirOrder() {
        int[] sizes = {8, 100_000, 300, 200_000, 0, 70_000, 64 << 10, 16, LARGE};
        TestWorlds.run(options(), world -> {
            MemorySegment[] buffers = new MemorySegment[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                buffers[i] = world.allocate(Math.max(1, sizes[i]));
            }
            if (world.rank() == 0) {
                world.recv(new byte[1], 1, 99);
                for (int i = 0; i < sizes.length; i++) {
                    world.send(pattern(0, 1, i, sizes[i]), sizes[i], Datatype.BYTE, 1, 7);
                }
                return;
            }
            MemorySegment cancelledInto = world.allocate(LARGE);
            cancelledInto.fill((byte) 0x5A);
            Request cancelled = world.irecv(cancelledInto, LARGE, Datatype.BYTE, 0, 7);
            cancelled.cancel();
            assertTrue(cancelled.await().cancelled(), "cancelled before any message");
            Request[] requests = new Request[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                requests[i] = world.irecv(buffers[i], sizes[i], Datatype.BYTE, 0, 7);
            }
            world.send(new byte[1], 0, 99);
            for (int i = 0; i < sizes.length; i++) {
                assertEquals(sizes[i], requests[i].await().byteCount(), "message " + i);
                assertEquals(-1, firstMismatch(buffers[i], 0, 1, i, sizes[i]), "message " + i + " in its own buffer, in order");
            }
            for (long b = 0; b < LARGE; b++) {
                if (cancelledInto.get(java.lang.foreign.ValueLayout.JAVA_BYTE, b) != 0x5A) {
                    throw new AssertionError("the cancelled receive's buffer was written at " + b);
                }
            }
            assertEquals(5, endpoint(world).statistics().singleCopyAccepted, "the five messages of 64 KiB or more were single copy");
        });
    }

    @Test
    void aReceiverThatDiesBeforeAnsweringFailsTheSendWithProcFailedAndItsBlockComesBack() {
        AtomicReference<ProcessFailedException> seen = new AtomicReference<>();
        AtomicLong heapAfter = new AtomicLong(-1);
        assertThrows(LockstepException.class, () -> TestWorlds.run(options(), world -> {
            if (world.rank() == 1) {
                world.allocate(LARGE); // advertises device buffers: the sender offers single copy
                awaitOffer(endpoint(world), 0);
                throw new IllegalStateException("rank 1 dies with the offer unanswered");
            }
            awaitDeviceBuffers(endpoint(world), 1);
            seen.set(assertThrows(ProcessFailedException.class, () -> world.send(new byte[LARGE], 1, 0)));
            heapAfter.set(endpoint(world).operations().heapBytesInUse());
        }));
        assertEquals(ErrorClass.PROC_FAILED, seen.get().errorClass());
        assertEquals(1, seen.get().failedRank());
        assertEquals(0, heapAfter.get(), "the offer's heap block was recovered");
    }

    @Test
    void aSenderThatDiesInTheMiddleOfTheCopyFailsTheReceiveWithProcFailed() {
        AtomicReference<ProcessFailedException> seen = new AtomicReference<>();
        IllegalStateException boom = new IllegalStateException("rank 0 dies after its first chunk");
        LockstepException job = assertThrows(LockstepException.class, () -> TestWorlds.run(options(), world -> {
            MemorySegment buffer = world.allocate(LARGE);
            if (world.rank() == 0) {
                endpoint(world).singleCopy().observeChunks((send, copied) -> {
                    throw boom;
                });
                world.recv(new byte[1], 1, 9);
                world.send(new byte[LARGE], 1, 0);
                return;
            }
            Request r = world.irecv(buffer, LARGE, Datatype.BYTE, 0, 0);
            world.send(new byte[1], 0, 9);
            seen.set(assertThrows(ProcessFailedException.class, r::await));
        }));
        assertEquals(boom, job.getCause());
        assertEquals(ErrorClass.PROC_FAILED, seen.get().errorClass());
        assertEquals(0, seen.get().failedRank());
    }

    @Test
    void aHostileAnswerOutsideTheReceiversPartitionFailsTheSendAndWritesNothing() {
        AtomicReference<LockstepException> seen = new AtomicReference<>();
        AtomicReference<byte[]> superblock = new AtomicReference<>();
        AtomicReference<byte[]> superblockAfter = new AtomicReference<>();
        CountDownLatch senderDone = new CountDownLatch(1);
        TestWorlds.run(options(), world -> {
            MailboxEndpoint endpoint = endpoint(world);
            ExternalMemory device = endpoint.deviceForTests();
            if (world.rank() == 1) {
                world.allocate(LARGE);
                long block = awaitOffer(endpoint, 0);
                superblock.set(device.asSegment().asSlice(0, 4096).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                // What a hostile receiver could write: accept, into the superblock.
                device.putLong(block + HeapBlockDescriptor.ANSWER_BUFFER_OFFSET, 0);
                device.putLong(block + HeapBlockDescriptor.ANSWER_LENGTH_OFFSET, LARGE);
                device.putLongRelease(block + HeapBlockDescriptor.ANSWER_OFFSET, HeapBlockDescriptor.ANSWER_ACCEPT);
                assertTrue(senderDone.await(60, TimeUnit.SECONDS));
                superblockAfter.set(device.asSegment().asSlice(0, 4096).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                return;
            }
            awaitDeviceBuffers(endpoint, 1);
            MemorySegment payload = MemorySegment.ofArray(new byte[LARGE]).fill((byte) 0x77);
            seen.set(assertThrows(LockstepException.class, () -> world.send(payload, LARGE, Datatype.BYTE, 1, 0)));
            senderDone.countDown();
        });
        assertEquals(ErrorClass.INTERN, seen.get().errorClass());
        assertTrue(seen.get().getMessage().contains("outside its heap partition"), seen.get().getMessage());
        assertTrue(java.util.Arrays.equals(superblock.get(), superblockAfter.get()), "the superblock was not written");
    }

    /** Waits until {@code rank} announces device buffers, so that a large send to it is offered for single copy. */
    static void awaitDeviceBuffers(MailboxEndpoint sender, int rank) {
        long word = sender.layout().rankEntry(rank) + org.lockstep.pcie.layout.RankTableDescriptor.DEVICE_BUFFER_BYTES_OFFSET;
        await().atMost(Duration.ofSeconds(60)).until(() -> sender.deviceForTests().getLongAcquire(word) > 0);
    }

    /** Waits, without draining, until the first message from {@code source} is a single-copy offer; returns its block. */
    static long awaitOffer(MailboxEndpoint receiver, int source) {
        ExternalMemory device = receiver.deviceForTests();
        MailboxLayout layout = receiver.layout();
        long slot = layout.slotAddress(MailboxLayout.pairSlotsBase(layout.mailboxAddress(source, receiver.rank())), 1,
                layout.config().slotsPerMailbox());
        await().atMost(Duration.ofSeconds(60)).until(() -> device.getLongAcquire(slot + SlotDescriptor.TICKET_OFFSET) == 1);
        int flags = device.getInt(slot + SlotDescriptor.FLAGS_OFFSET);
        assertNotEquals(0, flags & SlotDescriptor.FLAG_RENDEZVOUS, "the first message is a single-copy offer");
        assertFalse(device.getLong(slot + SlotDescriptor.LENGTH_OFFSET) != 0, "an offer carries no payload");
        return device.getLong(slot + SlotDescriptor.HEAP_OFFSET_OFFSET);
    }
}
