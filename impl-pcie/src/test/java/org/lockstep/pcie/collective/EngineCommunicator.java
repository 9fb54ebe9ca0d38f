package org.lockstep.pcie.collective;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.spi.collective.AbstractCommunicator;
import org.lockstep.spi.collective.CollectiveEngine;
import org.lockstep.spi.collective.Schedule;

/**
 * A rank's world communicator whose collectives run through {@link AbstractCommunicator} (argument
 * checks, then {@code engine}) over a duplicate of the world as the collective channel: the way a
 * provider plugs in an engine of its own, and how the tests pin algorithms. Point-to-point goes to
 * the world, so collective traffic stays apart from it even for wildcard receives.
 */
final class EngineCommunicator extends AbstractCommunicator {
    private final Communicator world;
    private final Communicator channel;
    private final CollectiveEngine engine;
    private final boolean progressWhileBlocked;

    /** Collective: every rank of {@code world} must construct one (the duplicate is agreed on). */
    EngineCommunicator(Communicator world, CollectiveEngine engine) {
        this(world, engine, false);
    }

    /**
     * @param progressWhileBlocked whether a blocking receive keeps this rank's pending collective
     *        schedules moving ({@link Schedule#progressPending()}), as a provider's waits may
     */
    EngineCommunicator(Communicator world, CollectiveEngine engine, boolean progressWhileBlocked) {
        this.world = world;
        this.channel = world.dup();
        this.engine = engine;
        this.progressWhileBlocked = progressWhileBlocked;
    }

    @Override
    protected Communicator collectiveChannel() {
        return channel;
    }

    @Override
    protected CollectiveEngine collectiveEngine() {
        return engine;
    }

    @Override
    public int rank() {
        return world.rank();
    }

    @Override
    public int size() {
        return world.size();
    }

    @Override
    protected Request implSend(MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        return synchronous ? world.issend(data, bytes, Datatype.BYTE, dest, tag) : world.isend(data, bytes, Datatype.BYTE, dest, tag);
    }

    /** With {@code progressWhileBlocked}, waiting on the receive keeps this rank's collective schedules moving. */
    @Override
    protected Request implReceive(MemorySegment buffer, long capacity, int source, int tag) {
        Request receive = world.irecv(buffer, capacity, Datatype.BYTE, source, tag);
        if (!progressWhileBlocked) {
            return receive;
        }
        return new Request() {
            @Override
            public Status await() {
                while (true) {
                    Optional<Status> done = receive.test();
                    if (done.isPresent()) {
                        return done.get();
                    }
                    Schedule.progressPending();
                    Thread.onSpinWait();
                }
            }

            @Override
            public Optional<Status> test() {
                return receive.test();
            }

            @Override
            public boolean isComplete() {
                return receive.isComplete();
            }

            @Override
            public void cancel() {
                receive.cancel();
            }
        };
    }

    @Override
    protected Status implProbe(int source, int tag) {
        return world.probe(source, tag);
    }

    @Override
    protected Optional<Status> implIprobe(int source, int tag) {
        return world.iprobe(source, tag);
    }

    @Override
    protected MemorySegment implAllocate(long byteSize) {
        return world.allocate(byteSize);
    }

    @Override
    protected void implFree(MemorySegment segment) {
        world.free(segment);
    }

    @Override
    protected void implClose() {
        channel.close();
        world.close();
    }

    @Override
    protected Communicator implDup() {
        return world.dup();
    }

    @Override
    protected Communicator implSplit(int color, int key) {
        return world.split(color, key);
    }

    @Override
    protected int implWorldRank(int rank) {
        return world.group().worldRank(rank);
    }

    @Override
    protected Communicator implCreateGroup(int[] ranks, int tag) {
        return world.createGroup(world.group().incl(ranks), tag);
    }

    @Override
    protected org.lockstep.api.CommunicatorRequest implIdup() {
        return world.idup();
    }
}
