package org.lockstep.mpi.hybrid;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.Datatype;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.mpi.binding.Mpi;
import org.lockstep.mpi.comm.MpiCommunicator;
import org.lockstep.mpi.comm.SpanningCreations;
import org.lockstep.spi.collective.AbstractCommunicator;
import org.lockstep.spi.collective.CollectiveEngine;
import org.lockstep.spi.messaging.CompletedCommunicatorRequest;
import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.messaging.ProgressAgents;

/**
 * A communicator of the hybrid provider: its members on this host talk through the local
 * transport (the mailbox transport over this host's device), members on other hosts through
 * native MPI. Each pair of members uses one transport only, so MPI's order between a pair holds;
 * a receive from any source spans both ({@link HybridMatching}). Collectives are two-level where
 * that pays ({@link TwoLevelCollectives}).
 */
final class HybridCommunicator extends AbstractCommunicator {
    private final MpiCommunicator mpi;
    private final Communicator local;
    private final HostLayout layout;
    /** Member rank of each local rank of this host. */
    private final int[] memberOfLocal;
    /** Polls of one transport's request between two progress calls of the other. */
    private static final int OTHER_TRANSPORT_EVERY = 7;
    /** A wait on the host's transport probes MPI at most this often. */
    private final MpiProgressPacing mpiPacing = new MpiProgressPacing();

    /** Whether some member is on another host (a rank's messages to itself are always local). */
    private final boolean anyRemotePeer;
    private final HybridMatching matching = new HybridMatching(this);
    private final TwoLevelCollectives collectives;
    private Communicator channel;
    private final HybridWorld world;

    /** Tags of the creations of spanning communicators: below MPI's least TAG_UB and the local transport's bound. */
    private static final int SPANNING_TAGS = 1 << 14;

    /** The world communicator of a rank on host {@code myHost}, whose waits back off as {@code idlePolicy} says. */
    HybridCommunicator(MpiCommunicator mpi, Communicator local, int myHost, IdleStrategy.Policy idlePolicy) {
        this(mpi, local, myHost, null, true, idlePolicy);
    }

    private HybridCommunicator(MpiCommunicator mpi, Communicator local, int myHost, HybridWorld world) {
        this(mpi, local, myHost, world, true);
    }

    private HybridCommunicator(MpiCommunicator mpi, Communicator local, int myHost, HybridWorld world, boolean withChannel) {
        this(mpi, local, myHost, world, withChannel, world.idlePolicy());
    }

    /** With {@code withChannel}, its collective channel too (a channel itself has none until asked). */
    private HybridCommunicator(MpiCommunicator mpi, Communicator local, int myHost, HybridWorld world, boolean withChannel,
                               IdleStrategy.Policy idlePolicy) {
        this.mpi = mpi;
        this.local = local;
        this.layout = HostLayout.gather(mpi, myHost, local.rank());
        this.world = world != null ? world : HybridWorld.of(mpi, local, layout, idlePolicy);
        this.memberOfLocal = new int[local.size()];
        for (int r = 0; r < mpi.size(); r++) {
            if (layout.sameHost(r)) {
                memberOfLocal[layout.localRankOf()[r]] = r;
            }
        }
        this.anyRemotePeer = local.size() < mpi.size();
        MpiCommunicator leaders = (MpiCommunicator) mpi.split(local.rank() == 0 ? 0 : UNDEFINED, mpi.rank());
        this.collectives = new TwoLevelCollectives(mpi, local, leaders, layout);
        if (withChannel) {
            // every member is in this creation: a channel made at the first collective waited there for every member
            this.channel = new HybridCommunicator(mpi.dupForCollectives(), local.dup(), myHost, this.world, false);
        }
    }

    HostLayout layout() {
        return layout;
    }

    @Override
    public int rank() {
        return mpi.rank();
    }

    @Override
    public int size() {
        return mpi.size();
    }

    // ---------------------------------------------------------------- routing

    boolean isLocal(int member) {
        return layout.sameHost(member);
    }

    boolean hasMembersOn(boolean onLocal) {
        return onLocal || anyRemotePeer;
    }

    /** A probe on one transport, its status's source a member rank. */
    Optional<Status> iprobeOn(boolean onLocal, int member, int tag) {
        if (onLocal) {
            int source = member == ANY_SOURCE ? ANY_SOURCE : layout.localRankOf()[member];
            return local.iprobe(source, tag).map(this::fromLocal);
        }
        return mpi.iprobe(member, tag);
    }

    /** A blocking receive on one transport from {@code member}, its status's source a member rank. */
    Status receiveOn(boolean onLocal, MemorySegment buffer, long count, Datatype type, int member, int tag) {
        if (!onLocal) {
            return mpi.recv(buffer, count, type, member, tag);
        }
        try {
            return fromLocal(local.recv(buffer, count, type, layout.localRankOf()[member], tag));
        } catch (TruncationException e) {
            throw new TruncationException(fromLocal(e.status()), e.messageBytes());
        }
    }

    private Status fromLocal(Status s) {
        if (s.source() < 0 || s.cancelled()) {
            return s;
        }
        return new Status(memberOfLocal[s.source()], s.tag(), s.byteCount(), s.cancelled(), s.error());
    }

    // ---------------------------------------------------------------- point-to-point (checked, packed bytes: AbstractCommunicator)

    @Override
    protected Request implSend(MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        if (isLocal(dest)) {
            int to = layout.localRankOf()[dest];
            return onBoth(true, synchronous ? local.issend(data, bytes, Datatype.BYTE, to, tag) : local.isend(data, bytes, Datatype.BYTE, to, tag));
        }
        return onBoth(false, synchronous ? mpi.issend(data, bytes, Datatype.BYTE, dest, tag) : mpi.isend(data, bytes, Datatype.BYTE, dest, tag));
    }

    @Override
    protected void implSendBlocking(MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        implSend(data, bytes, dest, tag, synchronous).await();
    }

    /**
     * A request of one transport that, while waited on, also moves the other transport and the
     * receives pending in {@link HybridMatching}: a rank blocked on one must still progress what it
     * started elsewhere (a large MPI send needs its sender's progress; a wildcard receive posted
     * before an {@code ssend} must match while the rank waits in it), as MPI's progress rule asks.
     * So must a rank with a window open (its agent is registered) where every peer is local: the
     * window is native, and a library may move its accesses and locks only while the target is in
     * MPI (MPICH's windows within a host).
     */
    private Request onBoth(boolean onLocal, Request request) {
        if (anyRemotePeer || ProgressAgents.present()) {
            return new ProgressingRequest(request, onLocal);
        }
        return onLocal ? new LocalRequest(request) : request;
    }

    /** A back-off for a wait of this rank's, by how many ranks share the machine's cores. */
    IdleStrategy newIdleStrategy() {
        return new IdleStrategy(world.idlePolicy());
    }

    /**
     * Moves what a rank waiting on {@code onLocal}'s transport has pending elsewhere, and its
     * progress agents (the targets of its point-to-point windows, whose origins may wait for this
     * rank's wait to end); whether anything moved.
     */
    boolean progressBeside(boolean onLocal, int round) {
        boolean moved = matching.hasPending() && matching.progress();
        moved |= ProgressAgents.advance();
        if ((round & OTHER_TRANSPORT_EVERY) == 0 && (!onLocal || mpiPacing.due())) {
            iprobeOn(!onLocal, ANY_SOURCE, ANY_TAG); // a probe makes the other transport progress
        }
        return moved;
    }

    @Override
    protected Status implReceiveBlocking(MemorySegment buffer, long capacity, int source, int tag) {
        return implReceive(buffer, capacity, source, tag).await();
    }

    @Override
    protected Request implReceive(MemorySegment buffer, long capacity, int source, int tag) {
        if (spansBoth(source) || !onLocal(source) && mpi.session().probesBeforeReceive()) {
            // where the library keeps nothing of a truncated posted receive (MPICH), a receive from
            // another host waits in the matching queue and takes its message by a probed receive
            return matching.post(buffer, capacity, Datatype.BYTE, source, tag);
        }
        if (!onLocal(source)) {
            return onBoth(false, mpi.irecv(buffer, capacity, Datatype.BYTE, source, tag));
        }
        int localSource = source == ANY_SOURCE ? ANY_SOURCE : layout.localRankOf()[source];
        return onBoth(true, local.irecv(buffer, capacity, Datatype.BYTE, localSource, tag));
    }

    /**
     * A probe sees only what no posted receive takes (MPI 4.1 §3.8.1): while receives wait in
     * {@link HybridMatching}, it goes through there, and a blocking one moves both transports as
     * it waits.
     */
    @Override
    protected Status implProbe(int source, int tag) {
        if (!anyRemotePeer) {
            return fromLocal(local.probe(source == ANY_SOURCE ? ANY_SOURCE : layout.localRankOf()[source], tag));
        }
        boolean onLocal = onLocal(source);
        IdleStrategy idle = newIdleStrategy();
        for (int round = 1;; round++) {
            Optional<Status> s = implIprobe(source, tag);
            if (s.isPresent()) {
                return s.get();
            }
            idle.idle(progressBeside(onLocal, round));
        }
    }

    @Override
    protected Optional<Status> implIprobe(int source, int tag) {
        if (spansBoth(source)) {
            return matching.iprobeUnclaimed(source, tag);
        }
        return iprobeOn(onLocal(source), source, tag);
    }

    /** Whether a receive from {@code source} must be matched over both transports (or queue behind one that is). */
    private boolean spansBoth(int source) {
        return matching.hasPending() || source == ANY_SOURCE && anyRemotePeer;
    }

    /** The transport of a specific source, or of a wildcard when only one transport has peers. */
    private boolean onLocal(int source) {
        return source == ANY_SOURCE ? !anyRemotePeer : isLocal(source);
    }

    /** A local transport's request whose status names the sender by member rank. */
    private final class LocalRequest implements Request {
        private final Request inner;

        LocalRequest(Request inner) {
            this.inner = inner;
        }

        @Override
        public Status await() {
            try {
                return fromLocal(inner.await());
            } catch (TruncationException e) {
                throw new TruncationException(fromLocal(e.status()), e.messageBytes());
            }
        }

        @Override
        public Optional<Status> test() {
            try {
                return inner.test().map(HybridCommunicator.this::fromLocal);
            } catch (TruncationException e) {
                throw new TruncationException(fromLocal(e.status()), e.messageBytes());
            }
        }

        @Override
        public boolean isComplete() {
            return inner.isComplete();
        }

        @Override
        public void cancel() {
            inner.cancel();
        }
    }

    /** A request of either transport, waited on by moving both ({@link #onBoth}); its status names the sender by member rank. */
    private final class ProgressingRequest implements Request {
        private final Request inner;
        private final boolean onLocal;

        ProgressingRequest(Request inner, boolean onLocal) {
            this.inner = onLocal ? new LocalRequest(inner) : inner;
            this.onLocal = onLocal;
        }

        @Override
        public Status await() {
            if (inner.isComplete()) {
                return inner.await();
            }
            IdleStrategy idle = newIdleStrategy();
            for (int round = 1;; round++) {
                Optional<Status> done = inner.test();
                if (done.isPresent()) {
                    return done.get();
                }
                idle.idle(progressBeside(onLocal, round));
            }
        }

        @Override
        public Optional<Status> test() {
            Optional<Status> done = inner.test();
            if (done.isEmpty()) {
                progressBeside(onLocal, 0);
            }
            return done;
        }

        @Override
        public boolean isComplete() {
            return inner.isComplete();
        }

        @Override
        public void cancel() {
            inner.cancel();
        }
    }

    // ---------------------------------------------------------------- memory, communicators, collectives

    /** Device memory of this host's transport: a local receive into it may take a single copy, and MPI reads it as any memory. */
    @Override
    protected MemorySegment implAllocate(long byteSize) {
        return local.allocate(byteSize);
    }

    @Override
    protected void implFree(MemorySegment segment) {
        checkOpen();
        local.free(segment);
    }

    @Override
    protected Communicator implDup() {
        MpiCommunicator mpiCopy = (MpiCommunicator) mpi.dup();
        return new HybridCommunicator(mpiCopy, local.dup(), world.host(), world);
    }

    @Override
    protected Communicator implSplit(int color, int key) {
        MpiCommunicator mpiPart = (MpiCommunicator) mpi.split(color, key);
        Communicator localPart = local.split(color, key);
        if (mpiPart == null) {
            return null;
        }
        return new HybridCommunicator(mpiPart, localPart, world.host(), world);
    }

    @Override
    protected int implWorldRank(int r) {
        return mpi.group().worldRank(r);
    }

    /** A dup of both transports, complete when it returns (it waits for the other ranks). */
    @Override
    protected CommunicatorRequest implIdup() {
        return new CompletedCommunicatorRequest(implDup());
    }

    /** Both transports' createGroup: native MPI over all of {@code ranks}, the local transport over those on this host. */
    @Override
    protected Communicator implCreateGroup(int[] ranks, int tag) {
        MpiCommunicator mpiPart = (MpiCommunicator) mpi.createGroup(mpi.group().incl(ranks), tag);
        int[] localRanks = Arrays.stream(ranks).filter(layout::sameHost).map(r -> layout.localRankOf()[r]).toArray();
        Communicator localPart = local.createGroup(local.group().incl(localRanks), tag);
        return new HybridCommunicator(mpiPart, localPart, world.host(), world);
    }

    @Override
    protected long implSpanningProposal() {
        return SpanningCreations.propose();
    }

    /**
     * A communicator of world ranks {@code worldRanks} (an intercommunicator's bridge), made from the
     * worlds since its members share no other communicator: native MPI's createGroup over all of
     * them, the local transport's over those on this host, both tagged by the agreed creation.
     */
    @Override
    protected Communicator implSpanning(int[] worldRanks, long agreed) {
        int tag = SpanningCreations.agreed(agreed, SPANNING_TAGS);
        MpiCommunicator mpiPart = (MpiCommunicator) world.mpi().createGroup(world.mpi().group().incl(worldRanks), tag);
        int[] here = Arrays.stream(worldRanks).map(w -> world.localRankOf()[w]).filter(l -> l >= 0).toArray();
        Communicator localPart = world.local().createGroup(world.local().group().incl(here), tag);
        return new HybridCommunicator(mpiPart, localPart, world.host(), world);
    }

    @Override
    protected void implClose() {
        collectives.close();
        if (channel != null) {
            channel.close();
        }
        local.close();
        mpi.close();
    }

    /**
     * A duplicate made with the communicator: the two-level collectives keep to their own
     * communicators, but the point-to-point schedules of the others need a context of their own
     * (whose MPI part folds their tags into the library's bound). Made where every member takes part,
     * since a first non-blocking collective must not wait for the others (MPI 4.1 §6.12); a
     * channel's own channel (nothing uses one) is made at first use.
     */
    @Override
    protected Communicator collectiveChannel() {
        checkOpen();
        if (channel == null) {
            channel = new HybridCommunicator(mpi.dupForCollectives(), local.dup(), world.host(), world, false);
        }
        return channel;
    }

    @Override
    protected CollectiveEngine collectiveEngine() {
        return collectives;
    }

    /** Native {@code MPI_Win}s over the native part, whose ranks are this communicator's: one window across every host. */
    @Override
    protected org.lockstep.spi.window.WindowFactory implWindows() {
        return new org.lockstep.mpi.comm.NativeWindows(mpi);
    }

    /** The native library's bound: messages between hosts go through it ({@code MPI_TAG_UB}). */
    @Override
    protected int implTagUpperBound() {
        return mpi.session().tagUpperBound();
    }
}
