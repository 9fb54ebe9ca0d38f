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
    /** A duplicate of the base made with it: the neighbourhood collectives' own context. */
    private final AbstractCommunicator neighborhoodChannel;
    private final Topology kind;
    private final Neighborhood hood;

    /** Over {@code base}; {@code channel} is null for a new one, made here (collective), or one an idup made. */
    TopologyCommunicator(AbstractCommunicator base, AbstractCommunicator channel, Topology kind, Neighborhood hood) {
        this.base = base;
        this.neighborhoodChannel = channel != null ? channel : provided(base.implDup());
        this.kind = kind;
        this.hood = hood;
    }

    @Override
    final Communicator neighborhoodChannel() {
        return neighborhoodChannel;
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

    /** This topology over {@code duplicate}, a duplicate of the base, and {@code channel} (null: made by the constructor). */
    abstract TopologyCommunicator over(AbstractCommunicator duplicate, AbstractCommunicator channel);

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
        return over(provided(base.implDup()), null);
    }

    /** Two duplicates started at once: the new base and its neighbourhood channel (a blocking dup at completion could deadlock). */
    @Override
    protected final CommunicatorRequest implIdup() {
        CommunicatorRequest duplicate = base.implIdup();
        CommunicatorRequest channel = base.implIdup();
        return new ConstructingRequest(new BothRequests(duplicate, channel), () -> over(provided(duplicate.communicator()),
                provided(channel.communicator())));
    }

    /** Complete once both are. */
    private record BothRequests(Request first, Request second) implements Request {
        @Override
        public Status await() {
            first.await();
            return second.await();
        }

        @Override
        public Optional<Status> test() {
            Optional<Status> a = first.test();
            Optional<Status> b = second.test();
            return a.isPresent() ? b : Optional.empty();
        }

        @Override
        public boolean isComplete() {
            return first.isComplete() && second.isComplete();
        }

        @Override
        public void cancel() {
            // duplicates cannot be withdrawn
        }
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
        try {
            neighborhoodChannel.close();
        } finally {
            base.close();
        }
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
