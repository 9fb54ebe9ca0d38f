package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.lockstep.pcie.mailbox.TestWorlds.firstMismatch;
import static org.lockstep.pcie.mailbox.TestWorlds.pattern;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.spi.device.DeviceCapability;

/**
 * On a device without CPU atomics (a PCIe BAR) the transport must work with single-writer words
 * only: no asynchronous mailboxes, no compare-and-set anywhere.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeviceWithoutAtomicsTest {
    private static final JobOptions NO_ATOMICS = TestWorlds.options(4)
            .with(MailboxOptions.DEVICE_OPTION_PREFIX + "atomics", "false")
            .with(MailboxOptions.HEAP_PER_RANK, "64k");

    @Test
    void theWorldFormatsWithoutAsynchronousMailboxes() {
        MailboxThreadWorld world = MailboxThreadWorld.open(NO_ATOMICS);
        try {
            assertFalse(world.device().has(DeviceCapability.ATOMIC_CAS));
            MailboxEndpoint e = ((MailboxCommunicator) world.communicator(0)).endpoint();
            assertEquals(0, e.layout().config().asyncSlots());
        } finally {
            world.close();
        }
    }

    @Test
    void floodsSmallLargeAndFragmentedMessagesStillArriveInOrder() {
        int perSender = 500;
        TestWorlds.run(NO_ATOMICS, world -> {
            MailboxEndpoint endpoint = ((MailboxCommunicator) world).endpoint();
            if (world.rank() != 0) {
                Request[] sends = new Request[perSender];
                for (int i = 0; i < perSender; i++) {
                    int length = switch (i % 4) {
                        case 0 -> 4;
                        case 1 -> TestWorlds.THRESHOLD + 1;
                        case 2 -> TestWorlds.THRESHOLD;
                        default -> i == 3 ? 100_000 : 1_000;
                    };
                    sends[i] = world.isend(pattern(world.rank(), 0, i, length), length, Datatype.BYTE, 0, i);
                }
                Request.waitAll(sends);
                assertEquals(0, endpoint.statistics().asyncMailboxSends);
                return;
            }
            int[] next = new int[world.size()];
            MemorySegment buffer = MemorySegment.ofArray(new byte[100_000]);
            for (int n = 0; n < (world.size() - 1) * perSender; n++) {
                Status s = world.recv(buffer, buffer.byteSize(), Datatype.BYTE, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                assertEquals(next[s.source()], s.tag(), "order from rank " + s.source());
                assertEquals(-1, firstMismatch(buffer, s.source(), 0, s.tag(), s.byteCount()));
                next[s.source()]++;
            }
        });
    }
}
