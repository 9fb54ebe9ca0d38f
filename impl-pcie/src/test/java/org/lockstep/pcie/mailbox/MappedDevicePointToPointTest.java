package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.TestWorlds.THRESHOLD;
import static org.lockstep.pcie.mailbox.TestWorlds.firstMismatch;
import static org.lockstep.pcie.mailbox.TestWorlds.pattern;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Status;

/**
 * Point-to-point on a mapped device, whose ring regions are direct (no per-word checks): in-place
 * slots stored as words, payloads read back by words, and blocking sends published without a
 * request while the rings have room and queued behind the full rings when they have not.
 */
class MappedDevicePointToPointTest {
    private static final int MESSAGES = 120;
    /** What the pair ring (8 slots) and the asynchronous ring (16) of TestWorlds hold. */
    private static final int RING_SLOTS = 24;

    @Test
    void blockingSendsOfEveryInPlaceLengthArriveInOrderThroughFullRings() throws Exception {
        Path device = Path.of("/dev/shm", "lockstep-test-mapped-p2p-" + ProcessHandle.current().pid());
        JobOptions options = TestWorlds.options(2).with(MailboxOptions.DEVICE, "mapped").with(MailboxOptions.DEVICE_PATH, device.toString());
        CountDownLatch ringsFull = new CountDownLatch(1);
        try {
            TestWorlds.run(options, world -> {
                if (world.rank() == 0) {
                    // The receiver starts once the rings are full: later blocking sends wait in the send queue for it.
                    for (int i = 0; i < MESSAGES; i++) {
                        int length = i % (THRESHOLD + 1);
                        world.send(pattern(0, 1, i, length), length, Datatype.BYTE, 1, i);
                        if (i == RING_SLOTS - 1) {
                            ringsFull.countDown();
                        }
                    }
                    MailboxEndpoint endpoint = ((MailboxCommunicator) world).endpoint();
                    assertEquals(MESSAGES, endpoint.statistics().messagesSent);
                    assertEquals(0, endpoint.statistics().indirectSends, "every message travelled in place");
                    return;
                }
                assertTrue(ringsFull.await(30, TimeUnit.SECONDS), "the sender filled the rings");
                for (int i = 0; i < MESSAGES; i++) {
                    int length = i % (THRESHOLD + 1);
                    MemorySegment buffer = MemorySegment.ofArray(new byte[length + 3]).asSlice(3);
                    Status s = world.recv(buffer, length, Datatype.BYTE, 0, Communicator.ANY_TAG);
                    assertEquals(i, s.tag(), "in send order");
                    assertEquals(length, s.byteCount());
                    assertEquals(-1, firstMismatch(buffer, 0, 1, i, length), "payload of message " + i + " differs");
                }
            });
        } finally {
            Files.deleteIfExists(device);
        }
    }
}
