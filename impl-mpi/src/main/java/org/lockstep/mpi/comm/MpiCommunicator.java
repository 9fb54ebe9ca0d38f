package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.mpi.binding.Mpi;
import org.lockstep.spi.collective.AbstractCommunicator;
import org.lockstep.spi.collective.CollectiveEngine;
import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.messaging.ProgressAgents;

/**
 * A communicator that is a native {@code MPI_Comm}: its identity and management here (dup, split,
 * groups, the members' world ranks, closing), point-to-point in {@link NativePointToPoint},
 * collectives in {@link NativeCollectives}, the native calls that make and free communicators in
 * {@link NativeCommunicators}, its {@code MPI_Alloc_mem} memory in {@link AllocatedMemory}.
 * Arguments are checked as on every provider before the library sees them; what the library
 * still rejects comes back as its own error class and text.
 */
public final class MpiCommunicator extends AbstractCommunicator {
    private final MpiSession session;
    private final long handle;
    private final int rank;
    private final int size;
    private final boolean isWorld;
    private final NativePointToPoint pointToPoint;
    /** Where this library keeps nothing of a truncated posted receive (MPICH), the non-blocking receives wait here; else null. */
    private final DeferredReceives deferred;
    private final AllocatedMemory memory = new AllocatedMemory();
    private final NativeCollectives collectives;
    private MpiCommunicator channel;
    /** The collective channel's {@code MPI_Comm}, duplicated when this communicator was made, until it is wrapped (0 for a channel). */
    private long channelHandle;
    private int[] worldRanks;

    private MpiCommunicator(MpiSession session, long handle, boolean isWorld) {
        this(session, handle, isWorld, false);
    }

    private MpiCommunicator(MpiSession session, long handle, boolean isWorld, boolean foldsCollectiveTags) {
        this.session = session;
        this.handle = handle;
        this.isWorld = isWorld;
        this.pointToPoint = new NativePointToPoint(session, handle, foldsCollectiveTags);
        // a collective channel's messages are never truncated: its receives are posted
        this.deferred = !foldsCollectiveTags && session.probesBeforeReceive() && session.blockedCalls().enabled()
                ? new DeferredReceives(session.blockedCalls(), pointToPoint) : null;
        Scratch scratch = Scratch.get();
        try {
            Mpi.check((int) Mpi.COMM_RANK.invokeExact(handle, scratch.words), "MPI_Comm_rank");
            this.rank = scratch.words.get(ValueLayout.JAVA_INT, 0);
            Mpi.check((int) Mpi.COMM_SIZE.invokeExact(handle, scratch.words), "MPI_Comm_size");
            this.size = scratch.words.get(ValueLayout.JAVA_INT, 0);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        }
        this.collectives = new NativeCollectives(session);
        if (!foldsCollectiveTags) {
            // every member is in this creation, so every member makes the channel here, in the same order
            this.channelHandle = NativeCommunicators.dup(this, handle);
        }
    }

    static MpiCommunicator world(MpiSession session, long handle) {
        return new MpiCommunicator(session, handle, true);
    }

    /** The native {@code MPI_Comm}. */
    public long handle() {
        checkOpen();
        return handle;
    }

    public MpiSession session() {
        return session;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    // ---------------------------------------------------------------- point-to-point

    @Override
    protected void implSendBlocking(MemorySegment buffer, long bytes, int dest, int tag, boolean synchronous) {
        pointToPoint.sendBlocking(buffer, bytes, dest, tag, synchronous);
    }

    @Override
    protected Request implSend(MemorySegment buffer, long bytes, int dest, int tag, boolean synchronous) {
        return pointToPoint.send(buffer, bytes, dest, tag, synchronous);
    }

    @Override
    protected Status implReceiveBlocking(MemorySegment buffer, long capacity, int source, int tag) {
        if (deferred != null && deferred.hasPending()) {
            return deferred.post(buffer, capacity, source, tag).await(); // behind the receives posted before it
        }
        return pointToPoint.receiveBlocking(buffer, capacity, source, tag);
    }

    @Override
    protected Request implReceive(MemorySegment buffer, long capacity, int source, int tag) {
        if (deferred != null) {
            return deferred.post(buffer, capacity, source, tag);
        }
        return pointToPoint.receive(buffer, capacity, source, tag);
    }

    @Override
    protected Status implProbe(int source, int tag) {
        if (deferred != null && deferred.hasPending()) {
            IdleStrategy idle = new IdleStrategy();
            while (true) {
                Optional<Status> found = deferred.iprobeUnclaimed(source, tag);
                if (found.isPresent()) {
                    return found.get();
                }
                idle.idle(ProgressAgents.advance() | session.blockedCalls().progressDeferred());
            }
        }
        return pointToPoint.probe(source, tag);
    }

    @Override
    protected Optional<Status> implIprobe(int source, int tag) {
        if (deferred != null && deferred.hasPending()) {
            return deferred.iprobeUnclaimed(source, tag);
        }
        return pointToPoint.iprobe(source, tag);
    }

    // ---------------------------------------------------------------- memory

    @Override
    protected MemorySegment implAllocate(long byteSize) {
        return memory.allocate(byteSize);
    }

    @Override
    protected void implFree(MemorySegment segment) {
        checkOpen();
        memory.free(segment);
    }

    /** Native {@code MPI_Win}s ({@link NativeWindows}). */
    @Override
    protected org.lockstep.spi.window.WindowFactory implWindows() {
        return new NativeWindows(this);
    }

    // ---------------------------------------------------------------- communicators

    @Override
    protected Communicator implDup() {
        return duplicate(false);
    }

    /**
     * A duplicate for the point-to-point schedules of collectives (this provider's channel, or the
     * MPI part of the hybrid provider's): tags above the library's bound are collective tags, folded.
     */
    public MpiCommunicator dupForCollectives() {
        checkOpen();
        return duplicate(true);
    }

    private MpiCommunicator duplicate(boolean forCollectives) {
        MpiCommunicator made = new MpiCommunicator(session, NativeCommunicators.dup(this, handle), false, forCollectives);
        made.worldRanks = worldRanks();
        return made;
    }

    @Override
    protected Communicator implSplit(int color, int key) {
        long created = NativeCommunicators.split(this, handle, color == UNDEFINED ? Mpi.ABI.undefined() : color, key);
        return created == Mpi.ABI.commNull() ? null : withWorldRanks(new MpiCommunicator(session, created, false));
    }

    /**
     * The ranks of this communicator that share memory with this one ({@code MPI_Comm_split_type}
     * with {@code MPI_COMM_TYPE_SHARED}): a host, as the library sees it; collective.
     */
    public MpiCommunicator splitShared() {
        return (MpiCommunicator) splitType(SplitType.SHARED, rank);
    }

    @Override
    protected Communicator implSplitShared(int key) {
        return withWorldRanks(new MpiCommunicator(session, NativeCommunicators.splitShared(this, handle, key), false));
    }

    /** A communicator made by a split learns its members' world ranks by an allgather among them (they are all here). */
    private MpiCommunicator withWorldRanks(MpiCommunicator made) {
        int[] all = new int[made.size];
        collectives.allgather(made, MemorySegment.ofArray(new int[] {worldRanks()[rank]}), 1, Datatype.INT, MemorySegment.ofArray(all));
        made.worldRanks = all;
        return made;
    }

    @Override
    protected int implWorldRank(int r) {
        return worldRanks()[r];
    }

    /** The world ranks of this communicator's ranks: the world's own are its ranks. */
    private int[] worldRanks() {
        int[] w = worldRanks;
        if (w == null) {
            w = java.util.stream.IntStream.range(0, size).toArray(); // only the world has none set
            worldRanks = w;
        }
        return w;
    }

    /** MPI_Comm_idup is not bound yet: a dup, complete when it returns (it waits for the other ranks). */
    @Override
    protected org.lockstep.api.CommunicatorRequest implIdup() {
        return new org.lockstep.spi.messaging.CompletedCommunicatorRequest(implDup());
    }

    /**
     * {@code MPI_Comm_create_group} over the group of {@code ranks} (in their order): collective over
     * those ranks only. The members' world ranks are known here, so the new communicator needs no exchange.
     */
    @Override
    protected Communicator implCreateGroup(int[] ranks, int tag) {
        int[] parentWorld = worldRanks();
        return createOverGroup(ranks, tag, Arrays.stream(ranks).map(r -> parentWorld[r]).toArray());
    }

    /** A spanning communicator's proposal: this process's next creation number ({@link SpanningCreations}). */
    @Override
    protected long implSpanningProposal() {
        return SpanningCreations.propose();
    }

    /**
     * The communicator of {@code worldRanks} (an intercommunicator's bridge): {@code MPI_Comm_create_group}
     * on the world, tagged by the agreed creation number so that concurrent creations stay apart.
     */
    @Override
    protected Communicator implSpanning(int[] worldRanks, long agreed) {
        int tag = SpanningCreations.agreed(agreed, session.tagUpperBound());
        return session.world().createOverGroup(worldRanks, tag, worldRanks.clone());
    }

    /** {@code MPI_Comm_create_group} of this communicator's {@code ranks}, whose world ranks are {@code memberWorldRanks}. */
    private MpiCommunicator createOverGroup(int[] ranks, int tag, int[] memberWorldRanks) {
        MpiCommunicator made = new MpiCommunicator(session, NativeCommunicators.createGroup(this, handle, ranks, tag), false);
        made.worldRanks = memberWorldRanks;
        return made;
    }

    @Override
    protected void implClose() {
        if (deferred != null) {
            deferred.close("communicator " + handle);
        }
        memory.freeAll();
        if (channelHandle != 0) {
            NativeCommunicators.free(this, channelHandle);
            channelHandle = 0;
        }
        if (channel != null) {
            channel.close();
        }
        if (!isWorld) {
            NativeCommunicators.free(this, handle);
        }
    }

    // ---------------------------------------------------------------- collectives

    /**
     * A duplicate for the collectives: MPI keeps its own collectives apart from point-to-point, but
     * the point-to-point schedules of the non-blocking collectives not bound natively need a context
     * of their own. It is duplicated when this communicator is made, where every member takes part
     * anyway: a dup at the first collective would wait there for every member to reach its first
     * collective, and a non-blocking collective must return without waiting (MPI 4.1 §6.12). Not
     * {@code MPI_Comm_idup} started then and completed at the first collective: Open MPI 4.1 crossed
     * the messages of concurrent idups (an ibarrier on such a channel failed with MPI_ERR_TRUNCATE in
     * the kit's COMM rules). A channel's own channel (nothing uses one) is a dup at first use.
     */
    @Override
    protected Communicator collectiveChannel() {
        checkOpen();
        MpiCommunicator c = channel;
        if (c == null) {
            if (channelHandle != 0) {
                c = new MpiCommunicator(session, channelHandle, false, true);
                channelHandle = 0;
                c.worldRanks = worldRanks();
            } else {
                c = duplicate(true);
            }
            channel = c;
        }
        return c;
    }

    @Override
    protected CollectiveEngine collectiveEngine() {
        return collectives;
    }

    // ---------------------------------------------------------------- helpers

    /** A native call made under the thread guard (one that may block: {@link MpiSession#blockingCall}); its error code is checked. */
    void call(ThreadGuard.NativeCall body, String name) {
        int rc = session.blockingCall(body);
        NativeTypes.rethrowUpcallFailure();
        Mpi.check(rc, name);
    }

    /** The native library's bound ({@code MPI_TAG_UB} of its world). */
    @Override
    protected int implTagUpperBound() {
        return session.tagUpperBound();
    }
}
