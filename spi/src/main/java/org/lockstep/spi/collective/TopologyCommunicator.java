package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.Topology;
import org.lockstep.spi.messaging.ConstructingRequest;
import org.lockstep.spi.topology.Neighborhood;
import org.lockstep.spi.window.WindowFactory;

/**
 * A communicator that carries a topology over a communicator of the provider's ({@code base},
 * made for it by a split or a duplicate and used by nothing else): every hook goes to the base's,
 * so messages, collectives and their channel are the provider's own, while this object answers the
 * topology queries and its neighbourhood. A duplicate keeps the topology; split and the other
 * constructors give plain communicators of the provider.
 */
abstract sealed class TopologyCommunicator extends AbstractCommunicator
        permits CartesianTopologyCommunicator, DistGraphTopologyCommunicator {
    final AbstractCommunicator base;
    private final Topology kind;
    private final Neighborhood hood;

    TopologyCommunicator(AbstractCommunicator base, Topology kind, Neighborhood hood) {
        this.base = base;
        this.kind = kind;
        this.hood = hood;
    }

    @Override
    final Topology kind() {
        return kind;
    }

    @Override
    final Neighborhood neighborhood() {
        return hood;
    }

    /** A provider's communicator (every provider's extends {@link AbstractCommunicator}); null stays null. */
    static AbstractCommunicator provided(Communicator made) {
        if (made == null || made instanceof AbstractCommunicator) {
            return (AbstractCommunicator) made;
        }
        throw new LockstepException(ErrorClass.INTERN, made.getClass().getSimpleName() + " is not an AbstractCommunicator and cannot"
                + " carry a topology");
    }

    /** This topology over {@code duplicate}, a duplicate of the base. */
    abstract TopologyCommunicator over(AbstractCommunicator duplicate);

    @Override
    public final int rank() {
        return base.rank();
    }

    @Override
    public final int size() {
        return base.size();
    }

    @Override
    public final Checkpoints checkpoints() {
        return base.checkpoints();
    }

    @Override
    protected final Request implSend(MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        return base.implSend(data, bytes, dest, tag, synchronous);
    }

    @Override
    protected final Request implReceive(MemorySegment buffer, long capacity, int source, int tag) {
        return base.implReceive(buffer, capacity, source, tag);
    }

    @Override
    protected final void implSendBlocking(MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        base.implSendBlocking(data, bytes, dest, tag, synchronous);
    }

    @Override
    protected final Status implReceiveBlocking(MemorySegment buffer, long capacity, int source, int tag) {
        return base.implReceiveBlocking(buffer, capacity, source, tag);
    }

    @Override
    protected final Status implProbe(int source, int tag) {
        return base.implProbe(source, tag);
    }

    @Override
    protected final Optional<Status> implIprobe(int source, int tag) {
        return base.implIprobe(source, tag);
    }

    @Override
    protected final Communicator implDup() {
        return over(provided(base.implDup()));
    }

    @Override
    protected final CommunicatorRequest implIdup() {
        CommunicatorRequest started = base.implIdup();
        return new ConstructingRequest(started, () -> over(provided(started.communicator())));
    }

    @Override
    protected final Communicator implSplit(int color, int key) {
        return base.implSplit(color, key);
    }

    @Override
    protected final int implWorldRank(int rank) {
        return base.implWorldRank(rank);
    }

    @Override
    protected final Communicator implCreateGroup(int[] ranks, int tag) {
        return base.implCreateGroup(ranks, tag);
    }

    @Override
    protected final int implSharedMemoryDomain() {
        return base.implSharedMemoryDomain();
    }

    @Override
    protected final Communicator implSplitShared(int key) {
        return base.implSplitShared(key);
    }

    @Override
    protected final long implSpanningProposal() {
        return base.implSpanningProposal();
    }

    @Override
    protected final Communicator implSpanning(int[] worldRanks, long agreed) {
        return base.implSpanning(worldRanks, agreed);
    }

    @Override
    protected final MemorySegment implAllocate(long byteSize) {
        return base.implAllocate(byteSize);
    }

    @Override
    protected final void implFree(MemorySegment segment) {
        base.implFree(segment);
    }

    @Override
    protected final void implClose() {
        base.close();
    }

    @Override
    protected final WindowFactory implWindows() {
        return base.implWindows();
    }

    @Override
    protected final Communicator collectiveChannel() {
        return base.collectiveChannel();
    }

    @Override
    protected final CollectiveEngine collectiveEngine() {
        return base.collectiveEngine();
    }

    @Override
    public String toString() {
        return kind() + " over " + base;
    }
}
