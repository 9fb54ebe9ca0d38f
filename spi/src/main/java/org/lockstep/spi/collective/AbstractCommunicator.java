package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.function.LongSupplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Group;
import org.lockstep.api.Info;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.Keyval;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Message;
import org.lockstep.api.Op;
import org.lockstep.api.PartitionedRequest;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.spi.events.CollectiveEvent;
import org.lockstep.spi.events.CollectiveRecording;
import org.lockstep.spi.messaging.ArgumentChecks;
import org.lockstep.spi.messaging.CompletedRequest;
import org.lockstep.spi.messaging.ConstructingRequest;
import org.lockstep.spi.messaging.PackedBuffer;
import org.lockstep.spi.messaging.PersistentOperation;
import org.lockstep.spi.messaging.UnpackingRequest;

/**
 * Base class of a provider's communicators, after {@code java.nio.channels.spi}: every public
 * method is a {@code final} template that checks its arguments once for every provider, handles
 * {@code PROC_NULL} and derived datatypes (packed into, or unpacked from, a private copy unless
 * contiguous), and then calls a protected {@code impl…} hook that sees only valid ranks and
 * packed bytes. Blocking calls are written once, as their non-blocking form awaited. Collectives
 * go to the provider's {@link CollectiveEngine} (by default {@link PointToPointCollectives}) over
 * the communicator's private collective channel. Each blocking collective is recorded as a
 * {@link CollectiveEvent} when a Flight Recorder recording asks for it.
 */
public abstract class AbstractCommunicator implements Communicator {
    private volatile boolean closed;
    private CollectiveCalls collectives;
    private PointToPointCalls pointToPoint;
    private Group group;
    private volatile String name = "";
    private final CommunicatorAttributes attributes = new CommunicatorAttributes();
    private volatile Info info = Info.EMPTY;

    // ================================================================ hooks

    /**
     * Starts sending the first {@code bytes} bytes of {@code data} to rank {@code dest} (a rank of
     * this communicator, never {@code PROC_NULL}); {@code synchronous}: the request completes only
     * once the matching receive has started.
     */
    protected abstract Request implSend(MemorySegment data, long bytes, int dest, int tag, boolean synchronous);

    /**
     * Starts receiving at most {@code capacity} bytes into {@code buffer} from {@code source} (a
     * rank or {@code ANY_SOURCE}) with {@code tag} (or {@code ANY_TAG}); the status counts bytes.
     */
    protected abstract Request implReceive(MemorySegment buffer, long capacity, int source, int tag);

    /**
     * A blocking send, for a provider whose transport has a faster one than its non-blocking send
     * awaited (a native {@code MPI_Send}); the default is exactly that.
     */
    protected void implSendBlocking(MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        implSend(data, bytes, dest, tag, synchronous).await();
    }

    /** A blocking receive into contiguous memory; the default awaits {@link #implReceive}. */
    protected Status implReceiveBlocking(MemorySegment buffer, long capacity, int source, int tag) {
        return implReceive(buffer, capacity, source, tag).await();
    }

    /** Blocks until a matching message is available ({@code source} a rank or {@code ANY_SOURCE}). */
    protected abstract Status implProbe(int source, int tag);

    /** The status of a matching message available now. */
    protected abstract Optional<Status> implIprobe(int source, int tag);

    /** A communicator with this group and a new context; collective. */
    protected abstract Communicator implDup();

    /** {@link #split}, with a color already checked; collective. */
    protected abstract Communicator implSplit(int color, int key);

    /** The world rank (the process's rank in the provider's world) of rank {@code rank} here. */
    protected abstract int implWorldRank(int rank);

    /**
     * A communicator of the ranks {@code ranks} of this one (in that order; this rank among them),
     * agreed on by them alone ({@code MPI_Comm_create_group}); {@code tag} tells concurrent calls apart.
     */
    protected abstract Communicator implCreateGroup(int[] ranks, int tag);

    /** Starts a {@link #dup} that does not block ({@code MPI_Comm_idup}); collective. */
    protected abstract CommunicatorRequest implIdup();

    /**
     * Which ranks share memory with this one, for {@link #splitType}: ranks returning the same value
     * share it. The default, 0, says every rank of the communicator does (one device).
     */
    protected int implSharedMemoryDomain() {
        return 0;
    }

    /** {@link #splitType}{@code (SHARED, key)}: by default a split by {@link #implSharedMemoryDomain()}. */
    protected Communicator implSplitShared(int key) {
        return implSplit(implSharedMemoryDomain(), key);
    }

    /**
     * This rank's proposal for the context of a communicator that spans ranks of several
     * communicators (an intercommunicator's bridge), reserved here; the members agree on the
     * largest of theirs. The default: such communicators are not supported.
     */
    protected long implSpanningProposal() {
        throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, getClass().getSimpleName()
                + " cannot make a communicator that spans ranks of several communicators (an intercommunicator)");
    }

    /**
     * The communicator of the processes {@code worldRanks} (in that order, this rank among them) on
     * the context {@code agreed}, the largest of its members' {@link #implSpanningProposal()}s; collective over them.
     */
    protected Communicator implSpanning(int[] worldRanks, long agreed) {
        throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, getClass().getSimpleName()
                + " cannot make a communicator that spans ranks of several communicators (an intercommunicator)");
    }

    protected abstract MemorySegment implAllocate(long byteSize);

    protected abstract void implFree(MemorySegment segment);

    /** Releases what this communicator holds; called once, by the first {@link #close()}. */
    protected abstract void implClose();

    /**
     * A communicator with this one's group whose point-to-point operations use a context private
     * to collectives. It must be the same object for the life of this communicator: the default
     * algorithms count the collectives started on it, and that count is part of their tags.
     */
    protected abstract Communicator collectiveChannel();

    /** The algorithms this communicator's collectives run; providers override to replace some or all. */
    protected CollectiveEngine collectiveEngine() {
        return PointToPointCollectives.INSTANCE;
    }

    /** Fails with {@link ErrorClass#COMM} once the communicator is closed. */
    protected final void checkOpen() {
        if (closed) {
            throw new LockstepException(ErrorClass.COMM, "communicator of rank " + rank() + " is closed");
        }
    }

    protected final boolean isClosed() {
        return closed;
    }

    private CollectiveCalls collectives() {
        checkOpen();
        CollectiveCalls c = collectives;
        if (c == null) {
            c = new CollectiveCalls(this, collectiveEngine(), collectiveChannel());
            collectives = c;
        }
        return c;
    }

    // ================================================================ point-to-point

    @Override
    public final void send(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        blockingSend(buffer, count, type, dest, tag, false);
    }

    @Override
    public final void ssend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        blockingSend(buffer, count, type, dest, tag, true);
    }

    private void blockingSend(MemorySegment buffer, long count, Datatype type, int dest, int tag, boolean synchronous) {
        checkOpen();
        long bytes = ArgumentChecks.checkBuffer(buffer, count, type, false);
        ArgumentChecks.checkDestination(dest, size());
        ArgumentChecks.checkSendTag(tag);
        if (dest != PROC_NULL) {
            MemorySegment data = type.isContiguous() ? buffer : PackedBuffer.forReading(buffer, count, type).segment();
            implSendBlocking(data, bytes, dest, tag, synchronous);
        }
    }

    @Override
    public final Request isend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startSend(buffer, count, type, dest, tag, false);
    }

    @Override
    public final Request issend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startSend(buffer, count, type, dest, tag, true);
    }

    private Request startSend(MemorySegment buffer, long count, Datatype type, int dest, int tag, boolean synchronous) {
        checkOpen();
        long bytes = ArgumentChecks.checkBuffer(buffer, count, type, false);
        ArgumentChecks.checkDestination(dest, size());
        ArgumentChecks.checkSendTag(tag);
        if (dest == PROC_NULL) {
            return CompletedRequest.of(Status.of(PROC_NULL, tag, 0));
        }
        MemorySegment data = type.isContiguous() ? buffer : PackedBuffer.forReading(buffer, count, type).segment();
        return implSend(data, bytes, dest, tag, synchronous);
    }

    @Override
    public final Status recv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        checkOpen();
        long capacity = ArgumentChecks.checkBuffer(buffer, count, type, true);
        ArgumentChecks.checkSource(source, size());
        ArgumentChecks.checkReceiveTag(tag);
        if (source == PROC_NULL) {
            return Status.of(PROC_NULL, ANY_TAG, 0);
        }
        if (type.isContiguous()) {
            return implReceiveBlocking(buffer, capacity, source, tag);
        }
        PackedBuffer packed = PackedBuffer.forWriting(buffer, count, type);
        try {
            Status s = implReceiveBlocking(packed.segment(), capacity, source, tag);
            packed.unpack(s.byteCount());
            return s;
        } catch (TruncationException truncated) {
            packed.unpack(truncated.status().byteCount());
            throw truncated;
        }
    }

    @Override
    public final Request irecv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        checkOpen();
        long capacity = ArgumentChecks.checkBuffer(buffer, count, type, true);
        ArgumentChecks.checkSource(source, size());
        ArgumentChecks.checkReceiveTag(tag);
        if (source == PROC_NULL) {
            return CompletedRequest.of(Status.of(PROC_NULL, ANY_TAG, 0));
        }
        if (type.isContiguous()) {
            return implReceive(buffer, capacity, source, tag);
        }
        PackedBuffer packed = PackedBuffer.forWriting(buffer, count, type);
        return new UnpackingRequest(implReceive(packed.segment(), capacity, source, tag), packed);
    }

    @Override
    public final Status probe(int source, int tag) {
        checkProbe(source, tag);
        return source == PROC_NULL ? Status.of(PROC_NULL, ANY_TAG, 0) : implProbe(source, tag);
    }

    @Override
    public final Optional<Status> iprobe(int source, int tag) {
        checkProbe(source, tag);
        return source == PROC_NULL ? Optional.of(Status.of(PROC_NULL, ANY_TAG, 0)) : implIprobe(source, tag);
    }

    private void checkProbe(int source, int tag) {
        checkOpen();
        ArgumentChecks.checkSource(source, size());
        ArgumentChecks.checkReceiveTag(tag);
    }

    private PointToPointCalls pointToPoint() {
        PointToPointCalls p = pointToPoint;
        if (p == null) {
            p = new PointToPointCalls(this);
            pointToPoint = p;
        }
        return p;
    }

    @Override
    public final void rsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        blockingSend(buffer, count, type, dest, tag, false);
    }

    @Override
    public final Request irsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startSend(buffer, count, type, dest, tag, false);
    }

    @Override
    public final void bsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        pointToPoint().bsend(buffer, count, type, dest, tag);
    }

    @Override
    public final Request ibsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return pointToPoint().bsend(buffer, count, type, dest, tag);
    }

    @Override
    public final void attachBuffer(MemorySegment buffer) {
        pointToPoint().attach(buffer);
    }

    @Override
    public final MemorySegment detachBuffer() {
        return pointToPoint().detach();
    }

    @Override
    public final Status sendrecvReplace(MemorySegment buffer, long count, Datatype type, int dest, int sendTag, int source,
                                        int recvTag) {
        return pointToPoint().sendrecvReplace(buffer, count, type, dest, sendTag, source, recvTag);
    }

    @Override
    public final Message mprobe(int source, int tag) {
        checkProbe(source, tag);
        return pointToPoint().mprobe(source, tag);
    }

    @Override
    public final Optional<Message> improbe(int source, int tag) {
        checkProbe(source, tag);
        return pointToPoint().improbe(source, tag);
    }

    @Override
    public final Status mrecv(MemorySegment buffer, long count, Datatype type, Message message) {
        return pointToPoint().imrecv(buffer, count, type, message).await();
    }

    @Override
    public final Request imrecv(MemorySegment buffer, long count, Datatype type, Message message) {
        return pointToPoint().imrecv(buffer, count, type, message);
    }

    @Override
    public final PersistentRequest sendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return pointToPoint().sendInit(buffer, count, type, dest, tag, "send", false, false);
    }

    @Override
    public final PersistentRequest ssendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return pointToPoint().sendInit(buffer, count, type, dest, tag, "ssend", true, false);
    }

    @Override
    public final PersistentRequest bsendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return pointToPoint().sendInit(buffer, count, type, dest, tag, "bsend", false, true);
    }

    @Override
    public final PersistentRequest rsendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return pointToPoint().sendInit(buffer, count, type, dest, tag, "rsend", false, false);
    }

    @Override
    public final PersistentRequest recvInit(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        return pointToPoint().recvInit(buffer, count, type, source, tag);
    }

    @Override
    public final PartitionedRequest psendInit(MemorySegment buffer, int partitions, long count, Datatype type, int dest, int tag) {
        return pointToPoint().psendInit(buffer, partitions, count, type, dest, tag);
    }

    @Override
    public final PartitionedRequest precvInit(MemorySegment buffer, int partitions, long count, Datatype type, int source, int tag) {
        return pointToPoint().precvInit(buffer, partitions, count, type, source, tag);
    }

    // ================================================================ communicators, memory, life cycle

    @Override
    public final Communicator dup() {
        checkOpen();
        return asDuplicate(implDup(), info);
    }

    @Override
    public final Communicator dup(Info hints) {
        checkOpen();
        checkHints(hints);
        return asDuplicate(implDup(), hints);
    }

    private static void checkHints(Info hints) {
        if (hints == null) {
            throw new LockstepException(ErrorClass.ARG, "hints are null (Info.EMPTY for none)");
        }
    }

    /**
     * The duplicate {@code made} with the hints {@code hints}, holding what this communicator's
     * copiers give; closed again if a copier throws.
     */
    private Communicator asDuplicate(Communicator made, Info hints) {
        if (!(made instanceof AbstractCommunicator copy)) {
            throw new LockstepException(ErrorClass.INTERN, getClass().getSimpleName() + "'s duplicate is not an AbstractCommunicator"
                    + " and cannot take the hints and attributes");
        }
        copy.info = hints;
        try {
            attributes.copyInto(this, copy.attributes);
        } catch (RuntimeException e) {
            try {
                made.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return made;
    }

    @Override
    public final Communicator split(int color, int key) {
        checkOpen();
        if (color < 0 && color != UNDEFINED) {
            throw new LockstepException(ErrorClass.ARG, "split color " + color + " is negative and not UNDEFINED");
        }
        return implSplit(color, key);
    }

    @Override
    public final Group group() {
        checkOpen();
        Group g = group;
        if (g == null) {
            int[] world = new int[size()];
            for (int r = 0; r < world.length; r++) {
                world[r] = implWorldRank(r);
            }
            g = Group.of(implWorldRank(rank()), world);
            group = g;
        }
        return g;
    }

    @Override
    public final Group.Comparison compare(Communicator other) {
        if (other == null) {
            throw new LockstepException(ErrorClass.COMM, "cannot compare with a null communicator");
        }
        if (other == this) {
            return Group.Comparison.IDENT;
        }
        return switch (group().compare(other.group())) {
            case IDENT -> Group.Comparison.CONGRUENT;
            case SIMILAR -> Group.Comparison.SIMILAR;
            default -> Group.Comparison.UNEQUAL;
        };
    }

    /** This communicator's ranks of {@code g}'s members, in {@code g}'s order; GROUP if one is not here. */
    private int[] ranksOf(Group g) {
        Group mine = group();
        int[] ranks = new int[g.size()];
        for (int i = 0; i < ranks.length; i++) {
            ranks[i] = mine.rankOfWorld(g.worldRank(i));
            if (ranks[i] == UNDEFINED) {
                throw new LockstepException(ErrorClass.GROUP, "process " + g.worldRank(i) + " of the group is not in this communicator");
            }
        }
        return ranks;
    }

    @Override
    public final Communicator create(Group g) {
        checkOpen();
        if (g == null) {
            throw new LockstepException(ErrorClass.GROUP, "group is null");
        }
        ranksOf(g);
        int mine = g.rankOfWorld(implWorldRank(rank()));
        return split(mine == UNDEFINED ? UNDEFINED : 0, mine);
    }

    @Override
    public final Communicator createGroup(Group g, int tag) {
        checkOpen();
        if (g == null) {
            throw new LockstepException(ErrorClass.GROUP, "group is null");
        }
        ArgumentChecks.checkSendTag(tag);
        int[] ranks = ranksOf(g);
        if (g.rankOfWorld(implWorldRank(rank())) == UNDEFINED) {
            throw new LockstepException(ErrorClass.GROUP, "createGroup is collective over the group's members only: rank " + rank()
                    + " is not one");
        }
        return implCreateGroup(ranks, tag);
    }

    @Override
    public final Communicator splitType(SplitType type, int key) {
        checkOpen();
        if (type == null) {
            throw new LockstepException(ErrorClass.ARG, "split type is null");
        }
        return implSplitShared(key);
    }

    @Override
    public final CommunicatorRequest idup() {
        checkOpen();
        CommunicatorRequest started = implIdup();
        return new ConstructingRequest(started, () -> asDuplicate(started.communicator(), info));
    }

    @Override
    public final Intercommunicator createIntercommunicator(int localLeader, Communicator peer, int remoteLeader, int tag) {
        checkOpen();
        return IntercommunicatorCreation.create(this, localLeader, peer, remoteLeader, tag, new IntercommunicatorCreation.Spanning() {
            @Override
            public long propose() {
                return implSpanningProposal();
            }

            @Override
            public Communicator make(int[] worldRanks, long agreed) {
                return implSpanning(worldRanks, agreed);
            }
        });
    }

    @Override
    public final void setName(String newName) {
        checkOpen();
        if (newName == null) {
            throw new LockstepException(ErrorClass.ARG, "communicator name is null");
        }
        name = newName;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final void setInfo(Info hints) {
        checkOpen();
        checkHints(hints);
        info = hints;
    }

    @Override
    public final Info info() {
        checkOpen();
        return info;
    }

    @Override
    public final <T> void setAttribute(Keyval<T> key, T value) {
        checkOpen();
        attributes.set(this, key, value);
    }

    @Override
    public final <T> Optional<T> attribute(Keyval<T> key) {
        checkOpen();
        return attributes.get(key);
    }

    @Override
    public final void deleteAttribute(Keyval<?> key) {
        checkOpen();
        attributes.delete(this, key);
    }

    @Override
    public final MemorySegment allocate(long byteSize) {
        checkOpen();
        if (byteSize < 0) {
            throw new LockstepException(ErrorClass.ARG, "cannot allocate " + byteSize + " bytes");
        }
        return implAllocate(byteSize);
    }

    @Override
    public final void free(MemorySegment segment) {
        if (segment == null) {
            throw new LockstepException(ErrorClass.ARG, "cannot free a null segment");
        }
        implFree(segment);
    }

    /**
     * Ends this rank's use of the communicator; later calls fail with {@link ErrorClass#COMM}.
     * Idempotent. The attributes' deleters run first, while the communicator still answers them.
     */
    @Override
    public final void close() {
        if (!closed) {
            try {
                attributes.deleteAll(this);
            } finally {
                closed = true;
                implClose();
            }
        }
    }

    // ================================================================ collectives

    /**
     * Runs a blocking collective, recorded as a {@link CollectiveEvent} when a Flight Recorder
     * recording asks for it ({@code bytes} is evaluated only then).
     */
    private void recorded(String operation, LongSupplier bytes, Runnable call) {
        CollectiveEvent event = CollectiveRecording.begin();
        if (event == null) {
            call.run();
            return;
        }
        try {
            call.run();
        } finally {
            long recordedBytes;
            try {
                recordedBytes = bytes.getAsLong();
            } catch (LockstepException badCount) {
                recordedBytes = 0; // the call itself reported it
            }
            CollectiveRecording.end(event, operation, this, recordedBytes);
        }
    }

    private static long sum(long[] counts) {
        long total = 0;
        if (counts != null) {
            for (long c : counts) {
                total += c;
            }
        }
        return total;
    }

    @Override
    public final void barrier() {
        recorded("barrier", () -> 0, () -> collectives().barrier(false));
    }

    @Override
    public final void bcast(MemorySegment buffer, long count, Datatype type, int root) {
        recorded("bcast", () -> type.byteLength(count), () -> collectives().bcast(buffer, count, type, root, false));
    }

    @Override
    public final void gather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        recorded("gather", () -> type.byteLength(count),
                () -> collectives().gather(send, count, type, recv, count, type, root, false));
    }

    @Override
    public final void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                              long[] displacements, int root) {
        recorded("gatherv", () -> type.byteLength(sendCount),
                () -> collectives().gatherv(send, sendCount, type, recv, recvCounts, displacements, type, root, false));
    }

    @Override
    public final void scatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        recorded("scatter", () -> type.byteLength(count),
                () -> collectives().scatter(send, count, type, recv, count, type, root, false));
    }

    @Override
    public final void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv,
                               long recvCount, int root) {
        recorded("scatterv", () -> type.byteLength(recvCount),
                () -> collectives().scatterv(send, sendCounts, displacements, type, recv, recvCount, type, root, false));
    }

    @Override
    public final void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        recorded("allgather", () -> type.byteLength(count),
                () -> collectives().allgather(send, count, type, recv, count, type, false));
    }

    @Override
    public final void allgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                 long[] displacements) {
        recorded("allgatherv", () -> type.byteLength(sendCount),
                () -> collectives().allgatherv(send, sendCount, type, recv, recvCounts, displacements, type, false));
    }

    @Override
    public final void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        recorded("alltoall", () -> type.byteLength(count) * size(),
                () -> collectives().alltoall(send, count, type, recv, count, type, false));
    }

    @Override
    public final void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        recorded("alltoallv", () -> type.byteLength(sum(recvCounts)),
                () -> collectives().alltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements, type, false));
    }

    @Override
    public final void alltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        recorded("alltoallw", () -> 0, () -> collectives().alltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts,
                recvDisplacements, recvTypes, false));
    }

    @Override
    public final void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        recorded("reduce", () -> type.byteLength(count), () -> collectives().reduce(send, recv, count, type, op, root, false));
    }

    @Override
    public final void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        recorded("allreduce", () -> type.byteLength(count), () -> collectives().allreduce(send, recv, count, type, op, false));
    }

    @Override
    public final void reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        recorded("reduce_scatter", () -> type.byteLength(sum(recvCounts)), () -> collectives().reduceScatter(send, recv, recvCounts, type, op, false));
    }

    @Override
    public final void reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        recorded("reduce_scatter_block", () -> type.byteLength(recvCount) * size(), () -> collectives().reduceScatterBlock(send, recv, recvCount, type, op, false));
    }

    @Override
    public final void scan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        recorded("scan", () -> type.byteLength(count), () -> collectives().scan(send, recv, count, type, op, false, false));
    }

    @Override
    public final void exscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        recorded("exscan", () -> type.byteLength(count), () -> collectives().scan(send, recv, count, type, op, true, false));
    }

    @Override
    public final Request ibarrier() {
        return collectives().barrier(true);
    }

    @Override
    public final Request ibcast(MemorySegment buffer, long count, Datatype type, int root) {
        return collectives().bcast(buffer, count, type, root, true);
    }

    @Override
    public final Request igather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return collectives().gather(send, count, type, recv, count, type, root, true);
    }

    @Override
    public final Request igatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                  long[] displacements, int root) {
        return collectives().gatherv(send, sendCount, type, recv, recvCounts, displacements, type, root, true);
    }

    @Override
    public final Request iscatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return collectives().scatter(send, count, type, recv, count, type, root, true);
    }

    @Override
    public final Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                                   MemorySegment recv, long recvCount, int root) {
        return collectives().scatterv(send, sendCounts, displacements, type, recv, recvCount, type, root, true);
    }

    @Override
    public final Request iallgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return collectives().allgather(send, count, type, recv, count, type, true);
    }

    @Override
    public final Request iallgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                     long[] displacements) {
        return collectives().allgatherv(send, sendCount, type, recv, recvCounts, displacements, type, true);
    }

    @Override
    public final Request ialltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return collectives().alltoall(send, count, type, recv, count, type, true);
    }

    @Override
    public final Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return collectives().alltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements, type, true);
    }

    @Override
    public final Request ialltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        return collectives().alltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements,
                recvTypes, true);
    }

    @Override
    public final Request ireduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        return collectives().reduce(send, recv, count, type, op, root, true);
    }

    @Override
    public final Request iallreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return collectives().allreduce(send, recv, count, type, op, true);
    }

    @Override
    public final Request ireduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        return collectives().reduceScatter(send, recv, recvCounts, type, op, true);
    }

    @Override
    public final Request ireduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        return collectives().reduceScatterBlock(send, recv, recvCount, type, op, true);
    }

    @Override
    public final Request iscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return collectives().scan(send, recv, count, type, op, false, true);
    }

    @Override
    public final Request iexscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return collectives().scan(send, recv, count, type, op, true, true);
    }

    // ---- the general forms: send and receive sides with their own counts and datatypes

    @Override
    public final void gather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                             Datatype recvType, int root) {
        collectives().gather(send, sendCount, sendType, recv, recvCount, recvType, root, false);
    }

    @Override
    public final void gatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                              long[] displacements, Datatype recvType, int root) {
        collectives().gatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, root, false);
    }

    @Override
    public final void scatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                              Datatype recvType, int root) {
        collectives().scatter(send, sendCount, sendType, recv, recvCount, recvType, root, false);
    }

    @Override
    public final void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType, MemorySegment recv,
                               long recvCount, Datatype recvType, int root) {
        collectives().scatterv(send, sendCounts, displacements, sendType, recv, recvCount, recvType, root, false);
    }

    @Override
    public final void allgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                Datatype recvType) {
        collectives().allgather(send, sendCount, sendType, recv, recvCount, recvType, false);
    }

    @Override
    public final void allgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                 long[] displacements, Datatype recvType) {
        collectives().allgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, false);
    }

    @Override
    public final void alltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                               Datatype recvType) {
        collectives().alltoall(send, sendCount, sendType, recv, recvCount, recvType, false);
    }

    @Override
    public final void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        collectives().alltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements, recvType, false);
    }

    @Override
    public final Request igather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                 Datatype recvType, int root) {
        return collectives().gather(send, sendCount, sendType, recv, recvCount, recvType, root, true);
    }

    @Override
    public final Request igatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                  long[] displacements, Datatype recvType, int root) {
        return collectives().gatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, root, true);
    }

    @Override
    public final Request iscatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                  Datatype recvType, int root) {
        return collectives().scatter(send, sendCount, sendType, recv, recvCount, recvType, root, true);
    }

    @Override
    public final Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType,
                                   MemorySegment recv, long recvCount, Datatype recvType, int root) {
        return collectives().scatterv(send, sendCounts, displacements, sendType, recv, recvCount, recvType, root, true);
    }

    @Override
    public final Request iallgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                    Datatype recvType) {
        return collectives().allgather(send, sendCount, sendType, recv, recvCount, recvType, true);
    }

    @Override
    public final Request iallgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                     long[] recvCounts, long[] displacements, Datatype recvType) {
        return collectives().allgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, true);
    }

    @Override
    public final Request ialltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                   Datatype recvType) {
        return collectives().alltoall(send, sendCount, sendType, recv, recvCount, recvType, true);
    }

    @Override
    public final Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        return collectives().alltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements,
                recvType, true);
    }

    // ---- persistent collectives: each start runs the non-blocking form (arguments are checked at each start)

    private PersistentRequest persistent(String what, java.util.function.Supplier<Request> start) {
        checkOpen();
        return new PersistentOperation(what, start);
    }

    @Override
    public final PersistentRequest barrierInit() {
        return persistent("barrier", this::ibarrier);
    }

    @Override
    public final PersistentRequest bcastInit(MemorySegment buffer, long count, Datatype type, int root) {
        return persistent("bcast", () -> ibcast(buffer, count, type, root));
    }

    @Override
    public final PersistentRequest gatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return persistent("gather", () -> igather(send, count, type, recv, root));
    }

    @Override
    public final PersistentRequest gathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                                               long[] recvCounts, long[] displacements, int root) {
        return persistent("gatherv", () -> igatherv(send, sendCount, type, recv, recvCounts, displacements, root));
    }

    @Override
    public final PersistentRequest scatterInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return persistent("scatter", () -> iscatter(send, count, type, recv, root));
    }

    @Override
    public final PersistentRequest scattervInit(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                                                MemorySegment recv, long recvCount, int root) {
        return persistent("scatterv", () -> iscatterv(send, sendCounts, displacements, type, recv, recvCount, root));
    }

    @Override
    public final PersistentRequest allgatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return persistent("allgather", () -> iallgather(send, count, type, recv));
    }

    @Override
    public final PersistentRequest allgathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                                                  long[] recvCounts, long[] displacements) {
        return persistent("allgatherv", () -> iallgatherv(send, sendCount, type, recv, recvCounts, displacements));
    }

    @Override
    public final PersistentRequest alltoallInit(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return persistent("alltoall", () -> ialltoall(send, count, type, recv));
    }

    @Override
    public final PersistentRequest alltoallvInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                                 MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return persistent("alltoallv", () -> ialltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements));
    }

    @Override
    public final PersistentRequest alltoallwInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                                                 Datatype[] sendTypes, MemorySegment recv, long[] recvCounts,
                                                 long[] recvDisplacements, Datatype[] recvTypes) {
        return persistent("alltoallw", () -> ialltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts,
                recvDisplacements, recvTypes));
    }

    @Override
    public final PersistentRequest reduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        return persistent("reduce", () -> ireduce(send, recv, count, type, op, root));
    }

    @Override
    public final PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return persistent("allreduce", () -> iallreduce(send, recv, count, type, op));
    }

    @Override
    public final PersistentRequest reduceScatterInit(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type,
                                                     Op op) {
        return persistent("reduceScatter", () -> ireduceScatter(send, recv, recvCounts, type, op));
    }

    @Override
    public final PersistentRequest reduceScatterBlockInit(MemorySegment send, MemorySegment recv, long recvCount, Datatype type,
                                                          Op op) {
        return persistent("reduceScatterBlock", () -> ireduceScatterBlock(send, recv, recvCount, type, op));
    }

    @Override
    public final PersistentRequest scanInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return persistent("scan", () -> iscan(send, recv, count, type, op));
    }

    @Override
    public final PersistentRequest exscanInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return persistent("exscan", () -> iexscan(send, recv, count, type, op));
    }
}
