package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.pcie.layout.AsyncMailboxDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.SlotDescriptor;
import org.lockstep.spi.device.ExternalMemory;

/** What a rank that dies leaves behind on the device is recovered by the survivors. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeadPeerRecoveryTest {

    @Test
    void anAsynchronousClaimLeftByADeadRankIsSkippedSoOtherSendersGetThrough() {
        CountDownLatch claimLeft = new CountDownLatch(1);
        int messages = 8 + 10; // more than rank 2's pair mailbox holds: the rest go through the asynchronous one
        assertThrows(LockstepException.class, () -> TestWorlds.run(3, world -> {
            MailboxEndpoint endpoint = ((MailboxCommunicator) world).endpoint();
            MailboxLayout layout = endpoint.layout();
            if (world.rank() == 1) {
                // Claim ticket 1 of rank 0's asynchronous mailbox, mark it, and die before publishing.
                ExternalMemory device = endpoint.deviceForTests();
                long claimWord = layout.asyncMailboxAddress(0) + AsyncMailboxDescriptor.CLAIMED_TICKET_OFFSET;
                assertTrue(device.compareAndSetLong(claimWord, 0, 1));
                long slot = layout.slotAddress(layout.asyncSlotsBase(0), 1, layout.config().asyncSlots());
                device.putLongRelease(slot + SlotDescriptor.SEQUENCE_OFFSET, org.lockstep.pcie.ring.SlotRing.claimMark(1, 1));
                claimLeft.countDown();
                throw new IllegalStateException("rank 1 dies holding an asynchronous claim");
            }
            claimLeft.await();
            if (world.rank() == 2) {
                Request[] sends = new Request[messages];
                for (int i = 0; i < messages; i++) {
                    sends[i] = world.isend(new int[] {i}, 0, 0);
                }
                Request.waitAll(sends);
                assertTrue(endpoint.statistics().asyncMailboxSends > 0);
                return;
            }
            int[] v = new int[1];
            for (int i = 0; i < messages; i++) {
                world.recv(v, 2, 0);
                assertEquals(i, v[0]);
            }
            assertEquals(1, endpoint.statistics().abandonedClaimsSkipped);
        }));
    }

    @Test
    void heapBlocksOfMessagesToADeadRankComeBackToTheSender() {
        CountDownLatch sent = new CountDownLatch(1);
        assertThrows(LockstepException.class, () -> TestWorlds.run(TestWorlds.options(2).with(MailboxOptions.HEAP_PER_RANK, "64k"), world -> {
            MailboxEndpoint endpoint = ((MailboxCommunicator) world).endpoint();
            if (world.rank() == 1) {
                sent.await();
                throw new IllegalStateException("rank 1 dies without reading");
            }
            world.send(MemorySegment.ofArray(new byte[10_000]), 10_000, Datatype.BYTE, 1, 0);
            assertTrue(endpoint.operations().heapBytesInUse() > 0, "the unread payload holds heap");
            sent.countDown();
            org.awaitility.Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> {
                world.iprobe(0, 99); // progress: notices rank 1 and reclaims
                return endpoint.operations().heapBytesInUse() == 0;
            });
        }));
    }
}
