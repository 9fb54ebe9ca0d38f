package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.CheckpointTesting.endpoint;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.pcie.layout.LoggedBlockDescriptor;

/** The walk of a log ring over what real traffic left in it: earlier laps, reclaimed blocks, a torn check word. */
class LogRingWalkTest {
    /** 1 KiB rings: 8 blocks of a 16-byte message each. */
    private static JobOptions options() {
        return CheckpointTesting.options(2).with(MailboxOptions.HEAP_PER_RANK, "4k");
    }

    /** Rank 0 sends {@code count} messages (values from {@code first}); rank 1 receives them and checkpoints every 4. */
    private static void traffic(Communicator sender, Communicator receiver, long first, int count) {
        for (long v = first; v < first + count; v++) {
            sender.send(new long[] {v, v}, 1, 0);
            long[] m = new long[2];
            receiver.recv(m, 0, 0);
            assertEquals(v, m[0]);
            if (v % 4 == 0) {
                receiver.checkpoints().checkpoint();
            }
        }
    }

    @Test
    void aRestartedSenderFindsNoRetainedBlockInARingItsReceiverReleasedAfterSeveralLaps() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options())) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            sender.checkpoints().register("s", CheckpointTesting.longs(1));
            receiver.checkpoints().register("r", CheckpointTesting.longs(1));
            traffic(sender, receiver, 1, 40); // 40 blocks through an 8-block ring; 40 is a checkpoint
            MessageLog log = endpoint(world, 0).messageLog();
            long ring = world.layout().logRingLength();
            assertTrue(log.walkRing(0, 1).blocks().size() > 0, "the ring still holds an earlier lap's intact blocks");
            sender.checkpoints().checkpoint();
            Communicator again = world.restart(0);
            again.checkpoints().register("s", CheckpointTesting.longs(1));
            again.checkpoints().restore();
            MailboxEndpoint restarted = endpoint(world, 0);
            assertEquals(List.of(), restarted.messageLog().retainedFor(1), "every block was released by the receiver's checkpoint");
            assertEquals(0, restarted.statistics().retainedBytes);
            assertTrue(restarted.operations().heapBytesInUse() < ring, "the restarted sender holds no ring bytes: " + restarted.operations().heapBytesInUse());
            traffic(again, receiver, 41, 20); // and the ring keeps working after the restart
        }
    }

    @Test
    void theWalkStopsAtABlockWhoseCheckWordIsTorn() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options())) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            receiver.checkpoints().register("r", CheckpointTesting.longs(1));
            traffic(sender, receiver, 1, 3); // no checkpoint yet: blocks 1..3 retained
            MessageLog log = endpoint(world, 0).messageLog();
            List<LoggedMessage> blocks = log.walkRing(0, 1).blocks();
            assertEquals(List.of(1L, 2L, 3L), blocks.stream().map(LoggedMessage::sequence).toList());
            long second = blocks.get(1).block();
            long check = world.device().getLong(second + LoggedBlockDescriptor.CHECK_OFFSET);
            world.device().putLong(second + LoggedBlockDescriptor.CHECK_OFFSET, check ^ 1);
            assertEquals(List.of(1L), log.walkRing(0, 1).blocks().stream().map(LoggedMessage::sequence).toList(),
                    "a block whose check fails ends the walk (what follows it was written after it)");
            assertEquals(LayoutConstants.align(blocks.get(0).blockLength(), LayoutConstants.CACHE_LINE) + blocks.get(0).block(), second);
            world.device().putLong(second + LoggedBlockDescriptor.CHECK_OFFSET, check);
        }
    }
}
