package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;

/**
 * An allocation that fails although more bytes are free than it asks for says why: the free
 * bytes are in pieces, and the payloads of sent messages that their receiver has not taken hold
 * the rest. A message whose pieces could never fit the heap partition fails at once, naming the
 * option to raise.
 */
class NoMemoryMessageTest {
    @Test
    void aMessageWhosePiecesCanNeverFitTheHeapPartitionFailsAtOnce() {
        // A 4 KiB partition (one device block) under a 4 KiB inline threshold: a piece that goes by indirection never fits.
        JobOptions options = TestWorlds.options(2).with(MailboxOptions.HEAP_PER_RANK, "4k").with(MailboxOptions.INLINE_THRESHOLD, "4096");
        TestWorlds.run(options, world -> {
            if (world.rank() == 0) {
                LockstepException e = assertThrows(LockstepException.class, () -> world.isend(new byte[8 << 10], 1, 0));
                assertEquals(ErrorClass.NO_MEM, e.errorClass());
                assertTrue(e.getMessage().contains("message of 8192 bytes to rank 1 goes by indirection")
                        && e.getMessage().contains(MailboxOptions.HEAP_PER_RANK), e.getMessage());
                world.send(new byte[1 << 10], 1, 1); // one that travels in its slot still goes
            } else {
                world.recv(new byte[1 << 10], 0, 1);
            }
        });
    }

    @Test
    void aFragmentedPartitionIsNamedWithThePayloadsThatHoldIt() throws InterruptedException {
        JobOptions options = TestWorlds.options(2).with(MailboxOptions.HEAP_PER_RANK, "256k").with(MailboxOptions.FRAGMENT, "16k");
        CountDownLatch tried = new CountDownLatch(1);
        TestWorlds.run(options, world -> {
            if (world.rank() == 0) {
                Request[] sends = new Request[4];
                for (int i = 0; i < sends.length; i++) {
                    sends[i] = world.isend(new byte[16 << 10], 1, i); // indirect: payload blocks at the bottom of the partition
                }
                LockstepException e = assertThrows(LockstepException.class, () -> world.allocate(200 << 10));
                tried.countDown();
                assertEquals(ErrorClass.NO_MEM, e.errorClass());
                assertTrue(e.getMessage().contains("largest free piece") && e.getMessage().contains("fragmented"), e.getMessage());
                assertTrue(e.getMessage().contains("held by payloads of messages this rank sent"), e.getMessage());
                Request.waitAll(sends);
            } else {
                try {
                    assertTrue(tried.await(60, TimeUnit.SECONDS)); // takes nothing until rank 0 has tried
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < 4; i++) {
                    world.recv(new byte[16 << 10], 0, i);
                }
            }
        });
    }
}
