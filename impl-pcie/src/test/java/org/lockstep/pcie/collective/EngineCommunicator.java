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
    public void send(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        world.send(buffer, count, type, dest, tag);
    }

    @Override
    public void ssend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        world.ssend(buffer, count, type, dest, tag);
    }

    @Override
    public Status recv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        if (!progressWhileBlocked) {
            return world.recv(buffer, count, type, source, tag);
        }
        Request receive = world.irecv(buffer, count, type, source, tag);
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
    public Request isend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return world.isend(buffer, count, type, dest, tag);
    }

    @Override
    public Request issend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return world.issend(buffer, count, type, dest, tag);
    }

    @Override
    public Request irecv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        return world.irecv(buffer, count, type, source, tag);
    }

    @Override
    public Status probe(int source, int tag) {
        return world.probe(source, tag);
    }

    @Override
    public Optional<Status> iprobe(int source, int tag) {
        return world.iprobe(source, tag);
    }

    @Override
    public MemorySegment allocate(long byteSize) {
        return world.allocate(byteSize);
    }

    @Override
    public void free(MemorySegment segment) {
        world.free(segment);
    }

    @Override
    public void close() {
        channel.close();
        world.close();
    }

    @Override
    public Communicator dup() {
        return world.dup();
    }

    @Override
    public Communicator split(int color, int key) {
        return world.split(color, key);
    }
}
