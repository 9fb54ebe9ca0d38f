package org.lockstep.mpi.hybrid;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.mpi.comm.MpiCommunicator;
import org.lockstep.spi.collective.AbstractCommunicator;
import org.lockstep.spi.collective.CollectiveEngine;
import org.lockstep.spi.messaging.ArgumentChecks;
import org.lockstep.spi.messaging.IdleStrategy;

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

    /** Whether some member is on another host (a rank's messages to itself are always local). */
    private final boolean anyRemotePeer;
    private final HybridMatching matching = new HybridMatching(this);
    private final TwoLevelCollectives collectives;
    private boolean closed;

    HybridCommunicator(MpiCommunicator mpi, Communicator local, int myHost) {
        this.mpi = mpi;
        this.local = local;
        this.layout = HostLayout.gather(mpi, myHost, local.rank());
        this.memberOfLocal = new int[local.size()];
        for (int r = 0; r < mpi.size(); r++) {
            if (layout.sameHost(r)) {
                memberOfLocal[layout.localRankOf()[r]] = r;
            }
        }
        this.anyRemotePeer = local.size() < mpi.size();
        MpiCommunicator leaders = (MpiCommunicator) mpi.split(local.rank() == 0 ? 0 : UNDEFINED, mpi.rank());
        this.collectives = new TwoLevelCollectives(mpi, local, leaders, layout);
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

    // ---------------------------------------------------------------- point-to-point

    @Override
    public void send(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        awaitBoth(isend(buffer, count, type, dest, tag), dest);
    }

    @Override
    public void ssend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        awaitBoth(issend(buffer, count, type, dest, tag), dest);
    }

    @Override
    public Request isend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        checkSend(dest);
        return dest != PROC_NULL && isLocal(dest) ? local.isend(buffer, count, type, layout.localRankOf()[dest], tag)
                : mpi.isend(buffer, count, type, dest, tag);
    }

    @Override
    public Request issend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        checkSend(dest);
        return dest != PROC_NULL && isLocal(dest) ? local.issend(buffer, count, type, layout.localRankOf()[dest], tag)
                : mpi.issend(buffer, count, type, dest, tag);
    }

    /**
     * Completes a request of one transport while also moving the other: a rank blocked on one must
     * still progress what it started on the other (a large MPI send needs its sender's progress),
     * or two ranks could wait for each other through different transports.
     */
    private Status awaitBoth(Request request, int peer) {
        if (!anyRemotePeer || peer == PROC_NULL || request.isComplete()) {
            return request.await();
        }
        boolean onLocal = peer == ANY_SOURCE ? false : isLocal(peer);
        IdleStrategy idle = new IdleStrategy();
        for (int round = 1;; round++) {
            Optional<Status> done = request.test();
            if (done.isPresent()) {
                return done.get();
            }
            if ((round & OTHER_TRANSPORT_EVERY) == 0) {
                iprobeOn(!onLocal, ANY_SOURCE, ANY_TAG); // a probe makes the other transport progress
            }
            idle.idle();
        }
    }

    @Override
    public Status recv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        checkReceive(source, tag);
        if (source == PROC_NULL) {
            return mpi.recv(buffer, count, type, source, tag);
        }
        if (spansBoth(source)) {
            return matching.post(buffer, count, type, source, tag).await();
        }
        return awaitBoth(irecv(buffer, count, type, source, tag), source);
    }

    @Override
    public Request irecv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        checkReceive(source, tag);
        if (source == PROC_NULL) {
            return mpi.irecv(buffer, count, type, source, tag);
        }
        if (spansBoth(source)) {
            return matching.post(buffer, count, type, source, tag);
        }
        if (!onLocal(source)) {
            return mpi.irecv(buffer, count, type, source, tag);
        }
        int localSource = source == ANY_SOURCE ? ANY_SOURCE : layout.localRankOf()[source];
        return new LocalRequest(local.irecv(buffer, count, type, localSource, tag));
    }

    @Override
    public Status probe(int source, int tag) {
        checkReceive(source, tag);
        if (source == PROC_NULL) {
            return mpi.probe(source, tag);
        }
        if (source == ANY_SOURCE && anyRemotePeer) {
            IdleStrategy idle = new IdleStrategy();
            while (true) {
                Optional<Status> s = matching.iprobeEither(source, tag);
                if (s.isPresent()) {
                    return s.get();
                }
                idle.idle();
            }
        }
        return onLocal(source) ? fromLocal(local.probe(source == ANY_SOURCE ? ANY_SOURCE : layout.localRankOf()[source], tag))
                : mpi.probe(source, tag);
    }

    @Override
    public Optional<Status> iprobe(int source, int tag) {
        checkReceive(source, tag);
        if (source == PROC_NULL) {
            return mpi.iprobe(source, tag);
        }
        if (source == ANY_SOURCE && anyRemotePeer) {
            return matching.iprobeEither(source, tag);
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

    private void checkSend(int dest) {
        checkOpen();
        ArgumentChecks.checkDestination(dest, size());
    }

    private void checkReceive(int source, int tag) {
        checkOpen();
        ArgumentChecks.checkSource(source, size());
        ArgumentChecks.checkReceiveTag(tag);
    }

    private void checkOpen() {
        if (closed) {
            throw new LockstepException(ErrorClass.COMM, "communicator is closed");
        }
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

    // ---------------------------------------------------------------- memory, communicators, collectives

    /** Device memory of this host's transport: a local receive into it may take a single copy, and MPI reads it as any memory. */
    @Override
    public MemorySegment allocate(long byteSize) {
        checkOpen();
        return local.allocate(byteSize);
    }

    @Override
    public void free(MemorySegment segment) {
        checkOpen();
        local.free(segment);
    }

    @Override
    public Communicator dup() {
        checkOpen();
        MpiCommunicator mpiCopy = (MpiCommunicator) mpi.dup();
        return new HybridCommunicator(mpiCopy, local.dup(), layout.myHost());
    }

    @Override
    public Communicator split(int color, int key) {
        checkOpen();
        if (color < 0 && color != UNDEFINED) {
            throw new LockstepException(ErrorClass.ARG, "split color " + color + " is negative and not UNDEFINED");
        }
        MpiCommunicator mpiPart = (MpiCommunicator) mpi.split(color, key);
        Communicator localPart = local.split(color, key);
        if (mpiPart == null) {
            return null;
        }
        return new HybridCommunicator(mpiPart, localPart, layout.myHost());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        collectives.close();
        local.close();
        mpi.close();
    }

    @Override
    protected Communicator collectiveChannel() {
        checkOpen();
        return this;
    }

    @Override
    protected CollectiveEngine collectiveEngine() {
        return collectives;
    }
}
