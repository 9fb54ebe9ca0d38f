package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.ProcessFailedException;
import org.lockstep.pcie.collective.CollectiveSite;
import org.lockstep.pcie.collective.DeviceCollectiveProgress;
import org.lockstep.pcie.collective.DeviceCollectives;
import org.lockstep.pcie.layout.CollectiveAreaDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.collective.Schedule;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * A mailbox communicator as the device-native collectives see it. Its slot of the collective
 * area is its context id / 2: context ids are agreed by the members and never reused by a rank,
 * so communicators that share a member never share a slot; disjoint groups of one split share the
 * context but not the world ranks whose blocks they use.
 */
final class MailboxCollectiveSite implements CollectiveSite {
    private final MailboxEndpoint endpoint;
    private final Group group;
    private final int rank;
    private final int slot;

    MailboxCollectiveSite(MailboxEndpoint endpoint, Group group, int rank, int context) {
        this.endpoint = endpoint;
        this.group = group;
        this.rank = rank;
        int candidate = context / 2;
        this.slot = candidate < CollectiveAreaDescriptor.COMMUNICATOR_SLOTS ? candidate : -1;
    }

    @Override
    public ExternalMemory device() {
        return endpoint.device();
    }

    @Override
    public MailboxLayout layout() {
        return endpoint.layout();
    }

    @Override
    public int slot() {
        return slot;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return group.size();
    }

    @Override
    public int worldRank(int member) {
        return group.worldRank(member);
    }

    @Override
    public void progress() {
        endpoint.progressEngine().progress();
        Schedule.progressPending();
    }

    @Override
    public boolean isGone(int member) {
        return endpoint.lifecycle().isPeerGone(group.worldRank(member));
    }

    @Override
    public ProcessFailedException failure(int member, String collective) {
        return endpoint.lifecycle().peerGoneError(group.worldRank(member), collective + " waiting on");
    }

    @Override
    public IdleStrategy newIdleStrategy() {
        return endpoint.progressEngine().newIdleStrategy();
    }

    @Override
    public Faults faults() {
        return endpoint.collectiveSettings().faults();
    }

    @Override
    public boolean ranksShareCores() {
        return endpoint.collectiveSettings().ranksShareCores();
    }

    @Override
    public boolean nonBlockingOnDevice() {
        return endpoint.collectiveSettings().nonBlockingOnDevice();
    }

    @Override
    public DeviceCollectiveProgress deviceProgress() {
        return endpoint.collectiveSettings().deviceProgress();
    }

    @Override
    public DeviceCollectives.BarrierAlgorithm requestedBarrier() {
        return endpoint.collectiveSettings().requestedBarrier();
    }

    @Override
    public long deviceOffset(MemorySegment buffer, long bytes) {
        return endpoint.operations().deviceOffset(buffer, bytes);
    }

    @Override
    public MemorySegment allocateStaging(long bytes) {
        return endpoint.operations().tryAllocate(bytes);
    }

    @Override
    public void freeStaging(MemorySegment staging) {
        endpoint.operations().free(staging);
    }
}
