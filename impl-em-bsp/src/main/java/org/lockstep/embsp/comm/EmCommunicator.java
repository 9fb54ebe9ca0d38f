package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.embsp.sim.Context;
import org.lockstep.embsp.sim.Machine;
import org.lockstep.embsp.sim.Vp;
import org.lockstep.spi.collective.AbstractCommunicator;
import org.lockstep.spi.collective.CollectiveEngine;
import org.lockstep.spi.messaging.CompletedCommunicatorRequest;
import org.lockstep.spi.messaging.PeerLiveness;

/**
 * A virtual processor's communicator. Point-to-point goes through {@link PointToPoint};
 * collectives through the EM-BSP {@link EmCollectives} over a channel of the same ranks on a
 * private context, where the point-to-point schedules of the non-blocking collectives EM-BSP has
 * no algorithm of its own for also run. {@link #allocate} places memory in the
 * VP's context — the memory that survives swaps; Java heap objects are not swapped.
 *
 * <p>It tells a polling wait when a rank has ended ({@link PeerLiveness}, {@link #goneError}): a
 * point-to-point window's waits poll then (a VP with windows polls in every wait, to serve them),
 * and so does a {@code test} loop on a point-to-point request ({@link EmRequest}); a poll is
 * running to the scheduler, so the deadlock check that fails a blocked wait on a VP that ended
 * never sees it; without this an origin whose target failed polled in its unlock for ever.
 */
public final class EmCommunicator extends AbstractCommunicator implements PeerLiveness {
    private final CommWorld world;
    private final Group group;
    private final Vp vp;
    private final int rank;
    private final Set<Long> allocations = new HashSet<>();
    private long collectiveSequence;
    private EmCommunicator channel;
    /** This VP's createGroup calls so far, by tag and members: which of a repeated call this is. */
    private final java.util.Map<String, Long> createGroupCalls = new java.util.HashMap<>();

    EmCommunicator(CommWorld world, Group group, Vp vp) {
        this.world = world;
        this.group = group;
        this.vp = vp;
        this.rank = group.rankOfVp(vp.id());
    }

    CommWorld world() {
        return world;
    }

    /** The group of VPs behind this communicator (ids, context, collective calls in progress). */
    Group vpGroup() {
        return group;
    }

    Vp vp() {
        return vp;
    }

    /** The sequence number of this rank's next collective call on this communicator. */
    long nextCollectiveSequence() {
        return collectiveSequence++;
    }

    /** {@link #checkOpen()} for this package's collectives and point-to-point. */
    void requireOpen() {
        checkOpen();
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
    protected Request implSend(MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        return PointToPoint.send(this, data, bytes, dest, tag, synchronous);
    }

    @Override
    protected Request implReceive(MemorySegment buffer, long capacity, int source, int tag) {
        return PointToPoint.receive(this, buffer, capacity, source, tag);
    }

    @Override
    protected Status implProbe(int source, int tag) {
        return PointToPoint.probe(this, source, tag);
    }

    @Override
    protected Optional<Status> implIprobe(int source, int tag) {
        return PointToPoint.iprobe(this, source, tag);
    }

    @Override
    protected MemorySegment implAllocate(long byteSize) {
        Context context = vp.context();
        MemorySegment segment = context.allocate(byteSize);
        if (segment == null) {
            throw new LockstepException(ErrorClass.NO_MEM, "VP " + vp.id() + " cannot allocate " + byteSize
                    + " bytes in its context of μ = " + context.allocator().capacity() + " bytes ("
                    + context.allocator().allocatedBytes() + " allocated, largest free chunk "
                    + context.allocator().largestFree() + "); raise lockstep.embsp.contextSize");
        }
        allocations.add(context.offsetOf(segment));
        return segment;
    }

    @Override
    protected void implFree(MemorySegment segment) {
        Context context = vp.context();
        if (segment == null || !context.contains(segment) || !allocations.remove(context.offsetOf(segment))) {
            throw new LockstepException(ErrorClass.ARG, "segment was not allocated by this communicator (or was freed already)");
        }
        context.free(segment);
    }

    @Override
    protected void implClose() {
        Context context = vp.context();
        for (long offset : allocations) {
            context.allocator().free(offset);
        }
        allocations.clear();
    }

    @Override
    protected Communicator implDup() {
        return world.collectives().dup(this);
    }

    @Override
    protected Communicator implSplit(int color, int key) {
        return world.collectives().split(this, color, key);
    }

    @Override
    protected int implWorldRank(int r) {
        return group.vpOf(r);
    }

    /** EM-BSP's dup never waits (the first VP makes the group), so its non-blocking form is complete when it returns. */
    @Override
    protected CommunicatorRequest implIdup() {
        return new CompletedCommunicatorRequest(implDup());
    }

    @Override
    protected Communicator implCreateGroup(int[] ranks, int tag) {
        int[] members = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            members[i] = group.vpOf(ranks[i]);
        }
        String key = tag + " " + java.util.Arrays.toString(members);
        long call = createGroupCalls.merge(key, 1L, Long::sum);
        return on(world.createGroup(group, tag, members, call));
    }

    /** EM-BSP names groups by keys every member derives alike ({@link CommWorld#spanningGroup}): nothing to agree on. */
    @Override
    protected long implSpanningProposal() {
        return 0;
    }

    @Override
    protected Communicator implSpanning(int[] worldRanks, long agreed) {
        return on(world.spanningGroup(vp.id(), worldRanks));
    }

    /** A communicator of VP {@code vp} on {@code newGroup}. */
    EmCommunicator on(Group newGroup) {
        return new EmCommunicator(world, newGroup, vp);
    }

    /** The same ranks on the group's private collective context ({@link Group#collectiveGroup()}). */
    @Override
    protected Communicator collectiveChannel() {
        checkOpen();
        if (channel == null) {
            channel = group.collectiveGroup() == group ? this : new EmCommunicator(world, group.collectiveGroup(), vp);
        }
        return channel;
    }

    @Override
    protected CollectiveEngine collectiveEngine() {
        return world.collectives();
    }

    @Override
    public String toString() {
        return "rank " + rank + " of " + group;
    }

    /**
     * PROC_FAILED if rank {@code r}'s VP has ended (failed or finished). VPs of another real
     * processor are not judged here: a VP's failure there fails every processor's run.
     */
    @Override
    public void failIfGone(int r) {
        LockstepException gone = goneError(r);
        if (gone != null) {
            throw gone;
        }
    }

    /**
     * The error of a wait for rank {@code r} (or ANY_SOURCE: for every other rank) if what it waits
     * for can never come, its VP having ended; null otherwise, and for ranks of other real processors.
     */
    LockstepException goneError(int r) {
        Machine machine = world.machine();
        if (r == Communicator.ANY_SOURCE) {
            for (int other = 0; other < group.size(); other++) {
                int id = group.vpOf(other);
                if (other != rank && !(machine.simulates(id) && machine.scheduler().ended(machine.vp(id)))) {
                    return null;
                }
            }
            return group.size() == 1 ? null : new ProcessFailedException(ErrorClass.PROC_FAILED_PENDING, -1, "rank " + rank
                    + ": a receive from ANY_SOURCE cannot complete: the VP of every other rank has ended (failed or finished)");
        }
        int id = group.vpOf(r);
        if (machine.simulates(id) && machine.scheduler().ended(machine.vp(id))) {
            return new ProcessFailedException(ErrorClass.PROC_FAILED, r, "rank " + r + " (VP " + id
                    + ") has ended (failed or finished)");
        }
        return null;
    }

    /**
     * Each VP alone: VPs share no memory (a context is swapped to disk between supersteps), so
     * {@code splitType(SHARED)} ({@code MPI_COMM_TYPE_SHARED}) gives every rank a communicator of
     * its own, on which a shared window is the rank's own memory. The default (every rank in one
     * domain) made the split promise sharing that {@code allocateSharedWindow} then refused.
     */
    @Override
    protected int implSharedMemoryDomain() {
        return vp.id();
    }

    /** The simulation's virtual processors ({@code MPI_UNIVERSE_SIZE}). */
    @Override
    protected int implUniverseSize() {
        return world.options().vps();
    }
}
