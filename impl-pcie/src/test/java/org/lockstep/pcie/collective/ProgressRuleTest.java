package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.lockstep.pcie.collective.CollectiveTesting.assertData;
import static org.lockstep.pcie.collective.CollectiveTesting.fill;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Request;
import org.lockstep.pcie.MailboxProvider;
import org.lockstep.spi.collective.Schedule;
import org.lockstep.spi.collective.PointToPointCollectives.BcastAlgorithm;

/**
 * MPI's progress rule for non-blocking collectives: a rank blocked in a point-to-point receive
 * must still forward its part of a pending collective, when the receive's message depends on it.
 * The hook is {@link Schedule#progressPending()}, called here from the blocking receive of
 * {@link EngineCommunicator} the way a provider's waits may call it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ProgressRuleTest {

    @Test
    void aRankBlockedInAReceiveStillForwardsItsPartOfAPendingBroadcast() {
        // binomial broadcast from rank 2 of 4: rank 0 (relative rank 2) forwards to rank 1 (relative rank 3)
        int ranks = 4;
        int root = 2;
        int forwarder = 0;
        int leaf = 1;
        ForcedAlgorithms binomial = ForcedAlgorithms.bcast(BcastAlgorithm.BINOMIAL);
        new MailboxProvider().runInThreads(CollectiveTesting.options(ranks), world -> {
            Communicator comm = new EngineCommunicator(world, binomial, true);
            MemorySegment data = CollectiveTesting.bytes(100);
            if (comm.rank() == root) {
                fill(data, 0, 100, root, 1);
            }
            Request bcast = comm.ibcast(data, 100, Datatype.BYTE, root);
            int[] reply = new int[1];
            if (comm.rank() == forwarder) {
                // the leaf answers only once its broadcast is complete, which needs this rank's forward
                comm.recv(reply, leaf, 3);
                assertEquals(42, reply[0]);
            } else if (comm.rank() == leaf) {
                bcast.await();
                comm.send(new int[] {42}, forwarder, 3);
            }
            bcast.await();
            assertData(data, 0, 0, 100, root, 1, "bcast at rank " + comm.rank());
        });
    }

    @Test
    void theMailboxTransportsOwnBlockingReceiveKeepsAPendingBroadcastMoving() {
        // The same situation on the world communicator itself: its recv must advance the ibcast.
        int root = 2;
        int forwarder = 0;
        int leaf = 1;
        new MailboxProvider().runInThreads(CollectiveTesting.options(4), world -> {
            MemorySegment data = CollectiveTesting.bytes(100);
            if (world.rank() == root) {
                fill(data, 0, 100, root, 1);
            }
            Request bcast = world.ibcast(data, 100, Datatype.BYTE, root);
            int[] reply = new int[1];
            if (world.rank() == forwarder) {
                world.recv(reply, leaf, 3);
                assertEquals(42, reply[0]);
            } else if (world.rank() == leaf) {
                bcast.await();
                world.send(new int[] {42}, forwarder, 3);
            }
            bcast.await();
            assertData(data, 0, 0, 100, root, 1, "bcast at rank " + world.rank());
        });
    }

    @Test
    void progressPendingFindsNothingToDoWhenNothingIsPending() {
        assertFalse(Schedule.progressPending());
        CollectiveTesting.run(2, comm -> {
            Request barrier = comm.ibarrier();
            barrier.await();
            assertFalse(Schedule.progressPending());
        });
    }
}
