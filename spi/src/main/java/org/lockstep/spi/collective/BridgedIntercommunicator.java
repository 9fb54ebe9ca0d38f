package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Group;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.spi.messaging.ArgumentChecks;

/**
 * An intercommunicator over a <em>bridge</em>: an intracommunicator of both groups (the group whose
 * rank 0 has the lower world rank first), which carries the point-to-point traffic with remote
 * ranks shifted into its numbering. Collectives run on two private channels: a duplicate of the
 * bridge for the messages between the groups, a duplicate of the local communicator for the steps
 * inside a group (a rooted collective's data crosses once, between the root and the other group's
 * rank 0, and spreads by the local group's own collective).
 */
final class BridgedIntercommunicator extends IntercommunicatorPersistentTemplates {
    private final Group localGroup;
    private final Group remoteGroup;
    private final boolean localFirst;
    private final Communicator bridge;
    private final Communicator crossing;
    private final Communicator inside;
    private final IntercommunicatorCollectives collectives;
    private final IntercommunicatorNonBlocking nonBlocking;
    private volatile boolean closed;

    BridgedIntercommunicator(Group localGroup, Group remoteGroup, boolean localFirst, Communicator bridge, Communicator crossing,
                             Communicator inside) {
        this.localGroup = localGroup;
        this.remoteGroup = remoteGroup;
        this.localFirst = localFirst;
        this.bridge = bridge;
        this.crossing = crossing;
        this.inside = inside;
        this.collectives = new IntercommunicatorCollectives(localGroup.rank(), localGroup.size(), remoteGroup.size(),
                localFirst ? localGroup.size() : 0, crossing, inside);
        this.nonBlocking = new IntercommunicatorNonBlocking(localGroup.rank(), localGroup.size(), remoteGroup.size(),
                localFirst ? localGroup.size() : 0, crossing);
    }

    /** The bridge's rank of remote rank {@code r}. */
    private int bridgeRankOfRemote(int r) {
        return localFirst ? localGroup.size() + r : r;
    }

    private int remoteOffset() {
        return localFirst ? localGroup.size() : 0;
    }

    @Override
    void checkOpen() {
        if (closed) {
            throw new LockstepException(ErrorClass.COMM, "intercommunicator of rank " + rank() + " is closed");
        }
    }

    private int destination(int dest) {
        checkOpen();
        ArgumentChecks.checkDestination(dest, remoteSize());
        return dest == Communicator.PROC_NULL ? dest : bridgeRankOfRemote(dest);
    }

    private int source(int source) {
        checkOpen();
        ArgumentChecks.checkSource(source, remoteSize());
        return source < 0 ? source : bridgeRankOfRemote(source);
    }

    /** A bridge status with the source as a remote rank. */
    private Status remote(Status s) {
        return s.source() < 0 ? s : new Status(s.source() - remoteOffset(), s.tag(), s.byteCount(), s.cancelled(), s.error());
    }

    private TruncationException remote(TruncationException e) {
        return new TruncationException(remote(e.status()), e.messageBytes());
    }

    @Override
    public int rank() {
        return localGroup.rank();
    }

    @Override
    public int size() {
        return localGroup.size();
    }

    @Override
    public int remoteSize() {
        return remoteGroup.size();
    }

    @Override
    public Group group() {
        return localGroup;
    }

    @Override
    public Group remoteGroup() {
        return remoteGroup;
    }

    // ---------------------------------------------------------------- point-to-point

    @Override
    public void send(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        bridge.send(buffer, count, type, destination(dest), tag);
    }

    @Override
    public void ssend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        bridge.ssend(buffer, count, type, destination(dest), tag);
    }

    @Override
    public Status recv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        try {
            return remote(bridge.recv(buffer, count, type, source(source), tag));
        } catch (TruncationException e) {
            throw remote(e);
        }
    }

    @Override
    public Request isend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return bridge.isend(buffer, count, type, destination(dest), tag);
    }

    @Override
    public Request issend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return bridge.issend(buffer, count, type, destination(dest), tag);
    }

    @Override
    public Request irecv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        Request r = bridge.irecv(buffer, count, type, source(source), tag);
        return new Request() {
            @Override
            public Status await() {
                try {
                    return remote(r.await());
                } catch (TruncationException e) {
                    throw remote(e);
                }
            }

            @Override
            public Optional<Status> test() {
                try {
                    return r.test().map(BridgedIntercommunicator.this::remote);
                } catch (TruncationException e) {
                    throw remote(e);
                }
            }

            @Override
            public boolean isComplete() {
                return r.isComplete();
            }

            @Override
            public void cancel() {
                r.cancel();
            }
        };
    }

    @Override
    public Status probe(int source, int tag) {
        return remote(bridge.probe(source(source), tag));
    }

    @Override
    public Optional<Status> iprobe(int source, int tag) {
        return bridge.iprobe(source(source), tag).map(this::remote);
    }

    // ---------------------------------------------------------------- collectives ({@link IntercommunicatorCollectives})

    private IntercommunicatorCollectives collectives() {
        checkOpen();
        return collectives;
    }

    @Override
    public void barrier() {
        collectives().barrier();
    }

    @Override
    public void bcast(MemorySegment buffer, long count, Datatype type, int root) {
        collectives().bcast(buffer, count, type, root);
    }

    @Override
    public void gather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        collectives().gather(send, count, type, recv, root);
    }

    @Override
    public void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                        long[] displacements, int root) {
        collectives().gatherv(send, sendCount, type, recv, recvCounts, displacements, root);
    }

    @Override
    public void scatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        collectives().scatter(send, count, type, recv, root);
    }

    @Override
    public void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv,
                         long recvCount, int root) {
        collectives().scatterv(send, sendCounts, displacements, type, recv, recvCount, root);
    }

    @Override
    public void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        collectives().allgather(send, count, type, recv);
    }

    @Override
    public void allgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                           long[] displacements) {
        collectives().allgatherv(send, sendCount, type, recv, recvCounts, displacements);
    }

    @Override
    public void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        collectives().alltoall(send, count, type, recv);
    }

    @Override
    public void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv,
                          long[] recvCounts, long[] recvDisplacements) {
        collectives().alltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements);
    }

    @Override
    public void alltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes, MemorySegment recv,
                          long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        collectives().alltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements, recvTypes);
    }

    @Override
    public void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        collectives().reduce(send, recv, count, type, op, root);
    }

    @Override
    public void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        collectives().allreduce(send, recv, count, type, op);
    }

    @Override
    public void reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        collectives().reduceScatter(send, recv, recvCounts, type, op);
    }

    @Override
    public void reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        collectives().reduceScatterBlock(send, recv, recvCount, type, op);
    }

    // ---------------------------------------------------------------- non-blocking collectives

    private IntercommunicatorNonBlocking nonBlocking() {
        checkOpen();
        return nonBlocking;
    }

    @Override
    public Request ibarrier() {
        return nonBlocking().ibarrier();
    }

    @Override
    public Request ibcast(MemorySegment buffer, long count, Datatype type, int root) {
        return nonBlocking().ibcast(buffer, count, type, root);
    }

    @Override
    public Request igather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return nonBlocking().igather(send, count, type, recv, root);
    }

    @Override
    public Request igatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                            long[] displacements, int root) {
        return nonBlocking().igatherv(send, sendCount, type, recv, recvCounts, displacements, root);
    }

    @Override
    public Request iscatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return nonBlocking().iscatter(send, count, type, recv, root);
    }

    @Override
    public Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv,
                             long recvCount, int root) {
        return nonBlocking().iscatterv(send, sendCounts, displacements, type, recv, recvCount, root);
    }

    @Override
    public Request iallgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return nonBlocking().iallgather(send, count, type, recv);
    }

    @Override
    public Request iallgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                               long[] displacements) {
        return nonBlocking().iallgatherv(send, sendCount, type, recv, recvCounts, displacements);
    }

    @Override
    public Request ialltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return nonBlocking().ialltoall(send, count, type, recv);
    }

    @Override
    public Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv,
                              long[] recvCounts, long[] recvDisplacements) {
        return nonBlocking().ialltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements);
    }

    @Override
    public Request ialltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                              MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        return nonBlocking().ialltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements,
                recvTypes);
    }

    @Override
    public Request ireduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        return nonBlocking().ireduce(send, recv, count, type, op, root);
    }

    @Override
    public Request iallreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return nonBlocking().iallreduce(send, recv, count, type, op);
    }

    @Override
    public Request ireduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        return nonBlocking().ireduceScatter(send, recv, recvCounts, type, op);
    }

    @Override
    public Request ireduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        return nonBlocking().ireduceScatterBlock(send, recv, recvCount, type, op);
    }

    // ---------------------------------------------------------------- constructors

    @Override
    public Intercommunicator dup() {
        checkOpen();
        Communicator newInside = inside.dup();
        Communicator newBridge = bridge.dup();
        return new BridgedIntercommunicator(localGroup, remoteGroup, localFirst, newBridge, newBridge.dup(), newInside);
    }

    @Override
    public Communicator merge(boolean high) {
        checkOpen();
        byte[] mine = {(byte) (high ? 1 : 0)};
        byte[] theirs = new byte[1];
        if (rank() == 0) {
            crossing.sendrecv(MemorySegment.ofArray(mine), 1, Datatype.BYTE, bridgeRankOfRemote(0), IntercommunicatorCollectives.CROSSING,
                    MemorySegment.ofArray(theirs), 1, Datatype.BYTE, bridgeRankOfRemote(0), IntercommunicatorCollectives.CROSSING);
        }
        inside.bcast(MemorySegment.ofArray(theirs), 1, Datatype.BYTE, 0);
        boolean first = mine[0] == theirs[0] ? localFirst : !high;
        return bridge.split(0, (first ? 0 : remoteSize()) + rank());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        crossing.close();
        inside.close();
        bridge.close();
    }

    @Override
    public String toString() {
        return "intercommunicator rank " + rank() + " of " + size() + " with a remote group of " + remoteSize();
    }
}
