package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.mpi.abi.MpiAbi;
import org.lockstep.mpi.binding.Mpi;
import org.lockstep.mpi.binding.MpiErrors;
import org.lockstep.mpi.binding.NativeMemory;
import org.lockstep.spi.collective.AbstractCommunicator;
import org.lockstep.spi.collective.CollectiveEngine;
import org.lockstep.spi.collective.CollectiveTag;

/**
 * A communicator that is a native {@code MPI_Comm}. Point-to-point messages travel as
 * {@code MPI_BYTE}s, so that a receive accepts any message of the right length as the API
 * promises; collectives use the element's MPI type ({@link NativeCollectives}). Arguments are
 * checked as on every provider before the library sees them; what the library still rejects comes
 * back as its own error class and text.
 */
public final class MpiCommunicator extends AbstractCommunicator {
    private final MpiSession session;
    private final long handle;
    private final int rank;
    private final int size;
    private final boolean isWorld;
    /** A collective channel: its tags are the SPI's collective tags, folded into the library's bound. */
    private final boolean foldsCollectiveTags;
    private final List<MemorySegment> allocations = new ArrayList<>();
    private final NativeCollectives collectives;
    private MpiCommunicator channel;
    private int[] worldRanks;

    private MpiCommunicator(MpiSession session, long handle, boolean isWorld) {
        this(session, handle, isWorld, false);
    }

    private MpiCommunicator(MpiSession session, long handle, boolean isWorld, boolean foldsCollectiveTags) {
        this.session = session;
        this.handle = handle;
        this.isWorld = isWorld;
        this.foldsCollectiveTags = foldsCollectiveTags;
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

    /** A native blocking send ({@code MPI_Send}, {@code MPI_Ssend}) instead of a request awaited. */
    @Override
    protected void implSendBlocking(MemorySegment buffer, long bytes, int dest, int tag, boolean synchronous) {
        int nativeTag = nativeTag(tag);
        java.lang.invoke.MethodHandle function = synchronous ? Mpi.SSEND : Mpi.SEND;
        String call = synchronous ? "MPI_Ssend" : "MPI_Send";
        int n = messageLength(bytes);
        MemorySegment data = buffer == null || buffer.isNative() ? nativeOrNull(buffer) : stagedIn(Scratch.get().staging(0, bytes), buffer, bytes);
        ThreadGuard guard = session.guard();
        guard.enter();
        int rc;
        try {
            rc = (int) function.invokeExact(data, n, session.types().bytes(), dest, nativeTag, handle);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
        Mpi.check(rc, call);
    }

    @Override
    protected Request implSend(MemorySegment buffer, long bytes, int dest, int tag, boolean synchronous) {
        int nativeTag = nativeTag(tag);
        java.lang.invoke.MethodHandle function = synchronous ? Mpi.ISSEND : Mpi.ISEND;
        String call = synchronous ? "MPI_Issend" : "MPI_Isend";
        Status done = Status.of(dest, tag, bytes);
        int n = messageLength(bytes);
        MpiRequest.Staged staged = stageIn(buffer, bytes, false);
        MpiRequest request = MpiRequest.create(session, call, MpiRequest.Kind.SEND, done, staged);
        // a local of its own: in a signature-polymorphic call a conditional expression would be typed Object
        MemorySegment data = staged.copy() != null ? staged.copy() : nativeOrNull(buffer);
        ThreadGuard guard = session.guard();
        guard.enter();
        int rc;
        try {
            rc = (int) function.invokeExact(data, n, session.types().bytes(), dest, nativeTag, handle, request.handleAddress());
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
        if (rc != 0) {
            throw request.startFailed(rc);
        }
        return request;
    }

    /** A native blocking receive ({@code MPI_Recv}, or {@code MPI_Mprobe} + {@code MPI_Mrecv} where truncation keeps nothing). */
    @Override
    protected Status implReceiveBlocking(MemorySegment buffer, long capacity, int source, int tag) {
        int nativeTag = nativeTag(tag);
        int n = messageLength(capacity);
        if (!Mpi.ABI.truncationKeepsPrefix()) {
            return probedReceive(buffer, capacity, source, nativeTag);
        }
        Scratch scratch = Scratch.get();
        boolean heap = buffer != null && !buffer.isNative();
        MemorySegment data = heap ? scratch.staging(0, capacity) : nativeOrNull(buffer);
        ThreadGuard guard = session.guard();
        guard.enter();
        int rc;
        try {
            rc = (int) Mpi.RECV.invokeExact(data, n, session.types().bytes(), nativeSource(source), nativeTag, handle, scratch.status);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
        boolean truncated = rc != 0 && MpiErrors.errorClass(rc) == Mpi.ABI.truncateClass();
        if (rc != 0 && !truncated) {
            Mpi.check(rc, "MPI_Recv");
        }
        long length = Mpi.ABI.statusBytes(scratch.status);
        return received(buffer, data, capacity, length, heap, scratch.status, truncated);
    }

    /**
     * A blocking receive that learns the message's length first ({@code MPI_Mprobe}, then
     * {@code MPI_Mrecv}), for libraries whose truncated receives keep nothing: a message longer
     * than the buffer is received whole into scratch memory and its first part copied.
     */
    private Status probedReceive(MemorySegment buffer, long capacity, int source, int nativeTag) {
        Scratch scratch = Scratch.get();
        ThreadGuard guard = session.guard();
        guard.enter();
        try {
            Mpi.check((int) Mpi.MPROBE.invokeExact(nativeSource(source), nativeTag, handle, scratch.words, scratch.status), "MPI_Mprobe");
            long length = Mpi.ABI.statusBytes(scratch.status);
            boolean truncated = length > capacity;
            boolean heap = buffer != null && !buffer.isNative();
            MemorySegment data = truncated ? scratch.staging(0, length) : heap ? scratch.staging(0, capacity) : nativeOrNull(buffer);
            int n = messageLength(truncated ? length : capacity);
            Mpi.check((int) Mpi.MRECV.invokeExact(data, n, session.types().bytes(), scratch.words, scratch.status), "MPI_Mrecv");
            return received(buffer, data, capacity, length, heap || truncated, scratch.status, truncated);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
    }

    /** The status of a completed receive of a {@code length}-byte message; copies staged bytes to the heap; throws on truncation. */
    private static Status received(MemorySegment buffer, MemorySegment data, long capacity, long length, boolean staged,
                                   MemorySegment nativeStatus, boolean truncated) {
        long delivered = Math.min(length, capacity);
        if (staged && delivered > 0) {
            MemorySegment.copy(data, 0, buffer, 0, delivered);
        }
        Status status = new Status(Mpi.ABI.statusSource(nativeStatus), Mpi.ABI.statusTag(nativeStatus), delivered, false,
                truncated ? ErrorClass.TRUNCATE : null);
        if (truncated) {
            throw new TruncationException(status, length);
        }
        return status;
    }

    @Override
    protected Request implReceive(MemorySegment buffer, long capacity, int source, int tag) {
        int nativeTag = nativeTag(tag);
        int n = messageLength(capacity);
        MpiRequest.Staged staged = stageIn(buffer, capacity, true);
        MpiRequest request = MpiRequest.receive(session, capacity, staged);
        MemorySegment data = staged.copy() != null ? staged.copy() : nativeOrNull(buffer);
        ThreadGuard guard = session.guard();
        guard.enter();
        int rc;
        try {
            rc = (int) Mpi.IRECV.invokeExact(data, n, session.types().bytes(), nativeSource(source), nativeTag, handle,
                    request.handleAddress());
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
        if (rc != 0) {
            throw request.startFailed(rc);
        }
        return request;
    }

    @Override
    protected Status implProbe(int source, int tag) {
        int nativeTag = nativeTag(tag);
        Scratch scratch = Scratch.get();
        ThreadGuard guard = session.guard();
        guard.enter();
        int rc;
        try {
            rc = (int) Mpi.PROBE.invokeExact(nativeSource(source), nativeTag, handle, scratch.status);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
        Mpi.check(rc, "MPI_Probe");
        return probed(scratch.status);
    }

    @Override
    protected Optional<Status> implIprobe(int source, int tag) {
        int nativeTag = nativeTag(tag);
        Scratch scratch = Scratch.get();
        ThreadGuard guard = session.guard();
        guard.enter();
        int rc;
        try {
            rc = (int) Mpi.IPROBE.invokeExact(nativeSource(source), nativeTag, handle, scratch.words, scratch.status);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
        Mpi.check(rc, "MPI_Iprobe");
        return scratch.words.get(ValueLayout.JAVA_INT, 0) == 0 ? Optional.empty() : Optional.of(probed(scratch.status));
    }

    private static Status probed(MemorySegment status) {
        MpiAbi abi = Mpi.ABI;
        return Status.of(abi.statusSource(status), abi.statusTag(status), abi.statusBytes(status));
    }

    // ---------------------------------------------------------------- memory

    @Override
    protected MemorySegment implAllocate(long byteSize) {
        Scratch scratch = Scratch.get();
        try {
            Mpi.check((int) Mpi.ALLOC_MEM.invokeExact(Math.max(byteSize, 1L), Mpi.ABI.infoNull(), scratch.words), "MPI_Alloc_mem");
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        }
        MemorySegment memory = scratch.words.get(ValueLayout.ADDRESS, 0).reinterpret(byteSize);
        synchronized (allocations) {
            allocations.add(memory);
        }
        return memory;
    }

    @Override
    protected void implFree(MemorySegment segment) {
        checkOpen();
        boolean known;
        synchronized (allocations) {
            known = allocations.removeIf(m -> m.address() == segment.address() && m.byteSize() == segment.byteSize());
        }
        if (!known) {
            throw new LockstepException(ErrorClass.ARG, "free of memory this communicator did not allocate (or freed already)");
        }
        freeNative(segment);
    }

    private static void freeNative(MemorySegment memory) {
        try {
            Mpi.check((int) Mpi.FREE_MEM.invokeExact(memory), "MPI_Free_mem");
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        }
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
        Scratch scratch = Scratch.get();
        call(() -> (int) Mpi.COMM_DUP.invokeExact(handle, scratch.words), "MPI_Comm_dup");
        MpiCommunicator made = new MpiCommunicator(session, Mpi.ABI.readHandle(scratch.words, 0), false, forCollectives);
        made.worldRanks = worldRanks();
        return made;
    }

    @Override
    protected Communicator implSplit(int color, int key) {
        int nativeColor = color == UNDEFINED ? Mpi.ABI.undefined() : color;
        Scratch scratch = Scratch.get();
        call(() -> (int) Mpi.COMM_SPLIT.invokeExact(handle, nativeColor, key, scratch.words), "MPI_Comm_split");
        long created = Mpi.ABI.readHandle(scratch.words, 0);
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
        Scratch scratch = Scratch.get();
        call(() -> (int) Mpi.COMM_SPLIT_TYPE.invokeExact(handle, Mpi.ABI.commTypeShared(), key, Mpi.ABI.infoNull(), scratch.words),
                "MPI_Comm_split_type");
        return withWorldRanks(new MpiCommunicator(session, Mpi.ABI.readHandle(scratch.words, 0), false));
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
        MpiCommunicator made = new MpiCommunicator(session, NativeGroups.createGroup(this, handle, ranks, tag), false);
        made.worldRanks = memberWorldRanks;
        return made;
    }

    @Override
    protected void implClose() {
        List<MemorySegment> left;
        synchronized (allocations) {
            left = new ArrayList<>(allocations);
            allocations.clear();
        }
        left.forEach(MpiCommunicator::freeNative);
        if (!isWorld) {
            MemorySegment cell = NativeMemory.allocate(8);
            try {
                Mpi.ABI.writeHandle(cell, 0, handle);
                call(() -> (int) Mpi.COMM_FREE.invokeExact(cell), "MPI_Comm_free");
            } finally {
                NativeMemory.free(cell);
            }
        }
    }

    // ---------------------------------------------------------------- collectives

    /**
     * A duplicate made at the first collective: MPI keeps its own collectives apart from point-to-point,
     * but the point-to-point schedules of the non-blocking collectives not yet bound natively need a
     * context of their own.
     */
    @Override
    protected Communicator collectiveChannel() {
        checkOpen();
        MpiCommunicator c = channel;
        if (c == null) {
            c = duplicate(true);
            channel = c;
        }
        return c;
    }

    @Override
    protected CollectiveEngine collectiveEngine() {
        return collectives;
    }

    // ---------------------------------------------------------------- helpers

    /** A native call made under the thread guard; its error code is checked. */
    void call(NativeCall body, String name) {
        ThreadGuard guard = session.guard();
        guard.enter();
        int rc;
        try {
            rc = body.invoke();
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
        NativeTypes.rethrowUpcallFailure();
        Mpi.check(rc, name);
    }

    @FunctionalInterface
    interface NativeCall {
        int invoke() throws Throwable;
    }

    /**
     * The library's tag for {@code tag}: its wildcard for {@code ANY_TAG}; on a collective channel the
     * SPI's collective tags folded into the library's bound ({@link CollectiveTag#fold}); elsewhere the
     * tag itself, which must be within the bound.
     */
    private int nativeTag(int tag) {
        if (tag == ANY_TAG) {
            return Mpi.ABI.anyTag();
        }
        int bound = session.tagUpperBound();
        if (foldsCollectiveTags) {
            try {
                return CollectiveTag.fold(tag, bound);
            } catch (IllegalArgumentException e) {
                throw new LockstepException(ErrorClass.INTERN, "a collective's tag does not fit this MPI library's MPI_TAG_UB: "
                        + e.getMessage(), e);
            }
        }
        if (tag > bound) {
            throw new LockstepException(ErrorClass.TAG, "tag " + tag + " is above this MPI library's MPI_TAG_UB, "
                    + bound + " (" + session.library().path() + ")");
        }
        return tag;
    }

    /** A point-to-point length as MPI's {@code int} count of bytes. */
    static int messageLength(long bytes) {
        if (bytes > Integer.MAX_VALUE) {
            throw new LockstepException(ErrorClass.COUNT, "a message of " + bytes + " bytes is above the 2^31-1 bytes an MPI "
                    + "count of MPI_BYTE can carry on this provider; send it in parts");
        }
        return (int) bytes;
    }

    private static int nativeSource(int source) {
        return source == ANY_SOURCE ? Mpi.ABI.anySource() : source;
    }

    static MemorySegment nativeOrNull(MemorySegment buffer) {
        return buffer == null ? MemorySegment.NULL : buffer;
    }

    static MemorySegment stagedIn(MemorySegment copy, MemorySegment heap, long bytes) {
        MemorySegment.copy(heap, 0, copy, 0, bytes);
        return copy;
    }

    /** For a non-blocking call: a native copy of a heap buffer (filled for a send), or none for native memory. */
    static MpiRequest.Staged stageIn(MemorySegment buffer, long bytes, boolean receive) {
        if (buffer == null || buffer.isNative()) {
            return new MpiRequest.Staged(null, null, 0);
        }
        MemorySegment copy = NativeMemory.allocate(bytes);
        if (!receive) {
            MemorySegment.copy(buffer, 0, copy, 0, bytes);
            return new MpiRequest.Staged(copy, null, 0);
        }
        return new MpiRequest.Staged(copy, buffer, -1);
    }

    /** The native library's bound ({@code MPI_TAG_UB} of its world). */
    @Override
    protected int implTagUpperBound() {
        return session.tagUpperBound();
    }
}
