package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.spi.collective.CollectiveEngine;
import org.lockstep.spi.events.CollectiveRecording;

import static org.lockstep.embsp.comm.CollectiveBuffers.bytes;
import static org.lockstep.embsp.comm.CollectiveBuffers.checkRoot;
import static org.lockstep.embsp.comm.CollectiveBuffers.prefix;
import static org.lockstep.embsp.comm.CollectiveBuffers.scaled;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;
import static org.lockstep.embsp.comm.CollectiveBuffers.uniform;

/**
 * The collectives of PEMS2 (seed 003 chapters 6–7) through the SPI's collective hook: which
 * algorithm serves which call. Each family is a class of its own, working in bytes; this class
 * turns counts and datatypes into bytes and hands the call on.
 *
 * <ul>
 *   <li>{@link Barrier}; {@link Broadcast}, {@link Gather}, {@link Scatter} (rooted);
 *       {@link Allgather}; {@link Alltoall} (direct delivery); {@link StagedExchange} (small Allgather(v),
 *       Alltoall); {@link Reductions}; {@link Scans};
 *       {@link CommunicatorCalls} (dup, split).</li>
 *   <li>Every call keeps to one rule: a VP is swapped out and in at most once per virtual
 *       superstep, and only when another VP wants its partition ({@link CallSynchronisation}).</li>
 *   <li>What a call did and may do is counted apart from the algorithms ({@link CallMeter},
 *       {@link IoBounds}).</li>
 *   <li>Each blocking call names the family that ran it in its Flight Recorder event
 *       ({@link CollectiveRecording#algorithm}); "across processors" when the group spans real
 *       processors.</li>
 * </ul>
 */
final class EmCollectives implements CollectiveEngine {
    private final Barrier barrier;
    private final Broadcast broadcast;
    private final Gather gather;
    private final Scatter scatter;
    private final Allgather allgather;
    private final Alltoall alltoall;
    private final StagedExchange staged;
    private final Reductions reductions;
    private final Scans scans;
    private final CommunicatorCalls communicators;
    /** The families for groups that span real processors; null with one processor. */
    private final SpanningCollectives spanning;
    /** PEMS1's Alltoallv through the indirect area, when asked for ({@code lockstep.embsp.delivery=indirect}). */
    private final IndirectAlltoall indirect;

    EmCollectives(CommWorld world) {
        CallSynchronisation calls = new CallSynchronisation(world);
        this.barrier = new Barrier(calls);
        this.broadcast = new Broadcast(calls);
        this.gather = new Gather(calls);
        this.scatter = new Scatter(calls);
        this.allgather = new Allgather(calls);
        this.alltoall = new Alltoall(calls);
        this.staged = new StagedExchange(calls, world.options().stagedCollective());
        this.reductions = new Reductions(calls);
        this.scans = new Scans(calls);
        this.communicators = new CommunicatorCalls(calls);
        this.indirect = world.options().delivery() == org.lockstep.embsp.EmBspOptions.Delivery.INDIRECT
                ? new IndirectAlltoall(calls, world.remote()) : null;
        this.spanning = world.remote() == null ? null : new SpanningCollectives(calls, world.remote(), communicators, indirect);
    }

    SpanningCollectives spanning() {
        return spanning;
    }

    /** Whether {@code c}'s group spans real processors: then the spanning family serves the call. */
    private static boolean spans(EmCommunicator c) {
        return c.vpGroup().spansProcessors();
    }

    private static EmCommunicator cast(Communicator channel) {
        return (EmCommunicator) channel;
    }

    @Override
    public void barrier(Communicator channel) {
        EmCommunicator c = cast(channel);
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp counting barrier across processors");
            spanning.barrier.barrier(c);
        } else {
            CollectiveRecording.algorithm("em-bsp counting barrier");
            barrier.barrier(c);
        }
    }

    @Override
    public Request ibarrier(Communicator channel) {
        EmCommunicator c = cast(channel);
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp counting barrier across processors");
            return spanning.barrier.ibarrier(c);
        }
        CollectiveRecording.algorithm("em-bsp counting barrier");
        return barrier.ibarrier(c);
    }

    @Override
    public void bcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        EmCommunicator c = cast(channel);
        checkRoot(c, root);
        MemorySegment data = slice(buffer, 0, bytes(type, count), "bcast buffer");
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp pull bcast across processors");
            spanning.rooted.bcast(c, data, root);
        } else {
            CollectiveRecording.algorithm("em-bsp pull bcast");
            broadcast.bcast(c, data, root);
        }
    }

    @Override
    public Request ibcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        EmCommunicator c = cast(channel);
        checkRoot(c, root);
        MemorySegment data = slice(buffer, 0, bytes(type, count), "ibcast buffer");
        if (spans(c)) {
            // across processors the broadcast completes at the call: the request is complete
            CollectiveRecording.algorithm("em-bsp pull bcast across processors");
            spanning.rooted.bcast(c, data, root);
            return EmRequest.completed(c.world(), c.vp(), org.lockstep.api.Status.of(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0));
        }
        CollectiveRecording.algorithm("em-bsp pull bcast");
        return broadcast.ibcast(c, data, root);
    }

    @Override
    public void gather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        EmCommunicator c = cast(channel);
        long b = bytes(type, count);
        // only the root lays out the blocks: O(p) arrays at every waiting VP would make the heap O(p²)
        boolean atRoot = c.rank() == root;
        gatherBytes(c, "gather", send, b, recv, atRoot ? uniform(b, c.size()) : null, atRoot ? prefix(b, c.size()) : null, root);
    }

    @Override
    public void gatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                        long[] recvCounts, long[] displacements, int root) {
        EmCommunicator c = cast(channel);
        long[] counts = c.rank() == root ? scaled(recvCounts, type, c.size(), "gatherv recvCounts") : null;
        long[] displs = c.rank() == root ? scaled(displacements, type, c.size(), "gatherv displacements") : null;
        gatherBytes(c, "gatherv", send, bytes(type, sendCount), recv, counts, displs, root);
    }

    @Override
    public void scatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        EmCommunicator c = cast(channel);
        long b = bytes(type, count);
        boolean atRoot = c.rank() == root;
        scatterBytes(c, "scatter", send, atRoot ? uniform(b, c.size()) : null, atRoot ? prefix(b, c.size()) : null, recv, b, root);
    }

    @Override
    public void scatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                         MemorySegment recv, long recvCount, int root) {
        EmCommunicator c = cast(channel);
        long[] counts = c.rank() == root ? scaled(sendCounts, type, c.size(), "scatterv sendCounts") : null;
        long[] displs = c.rank() == root ? scaled(displacements, type, c.size(), "scatterv displacements") : null;
        scatterBytes(c, "scatterv", send, counts, displs, recv, bytes(type, recvCount), root);
    }

    @Override
    public void allgather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        EmCommunicator c = cast(channel);
        long b = bytes(type, count);
        allgatherBytes(c, "allgather", send, b, recv, uniform(b, c.size()), prefix(b, c.size()));
    }

    @Override
    public void allgatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                           long[] recvCounts, long[] displacements) {
        EmCommunicator c = cast(channel);
        allgatherBytes(c, "allgatherv", send, bytes(type, sendCount), recv,
                scaled(recvCounts, type, c.size(), "allgatherv recvCounts"),
                scaled(displacements, type, c.size(), "allgatherv displacements"));
    }

    @Override
    public void alltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        EmCommunicator c = cast(channel);
        long b = bytes(type, count);
        if (indirect == null && !spans(c) && staged.takesAlltoall(c.size(), b)) {
            CollectiveRecording.algorithm("em-bsp staged alltoall (message area)");
            staged.alltoall(c, "alltoall", send, b, recv);
            return;
        }
        long[] counts = uniform(b, c.size());
        long[] displs = prefix(b, c.size());
        alltoallBytes(c, "alltoall", send, counts, displs, recv, counts, displs);
    }

    @Override
    public void alltoallv(Communicator channel, MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                          MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        EmCommunicator c = cast(channel);
        int n = c.size();
        long[] rc = scaled(recvCounts, type, n, "alltoallv recvCounts");
        long[] rd = scaled(recvDisplacements, type, n, "alltoallv recvDisplacements");
        if (send == Communicator.IN_PLACE) {
            alltoallBytes(c, "alltoallv", send, rc, rd, recv, rc, rd);
        } else {
            alltoallBytes(c, "alltoallv", send, scaled(sendCounts, type, n, "alltoallv sendCounts"),
                    scaled(sendDisplacements, type, n, "alltoallv sendDisplacements"), recv, rc, rd);
        }
    }

    @Override
    public void reduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        EmCommunicator c = cast(channel);
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp rank-order fold across processors");
            spanning.folds.reduce(c, send, recv, count, type, op, root);
        } else {
            CollectiveRecording.algorithm("em-bsp rank-order fold");
            reductions.reduce(c, send, recv, count, type, op, root);
        }
    }

    @Override
    public void allreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        EmCommunicator c = cast(channel);
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp rank-order fold across processors");
            spanning.folds.allreduce(c, send, recv, count, type, op);
        } else {
            CollectiveRecording.algorithm("em-bsp rank-order fold");
            reductions.allreduce(c, send, recv, count, type, op);
        }
    }

    @Override
    public Request iallreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        EmCommunicator c = cast(channel);
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp rank-order fold across processors");
            return spanning.folds.iallreduce(c, send, recv, count, type, op);
        }
        CollectiveRecording.algorithm("em-bsp rank-order fold");
        return reductions.iallreduce(c, send, recv, count, type, op);
    }

    @Override
    public void reduceScatterBlock(Communicator channel, MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        EmCommunicator c = cast(channel);
        reduceScatterCounts(c, "reduce_scatter_block", send, recv, uniform(recvCount, c.size()), type, op);
    }

    @Override
    public void reduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        EmCommunicator c = cast(channel);
        if (recvCounts == null || recvCounts.length != c.size()) {
            throw new LockstepException(ErrorClass.COUNT, "reduce_scatter recvCounts must have one entry per rank (" + c.size() + ")");
        }
        reduceScatterCounts(c, "reduce_scatter", send, recv, recvCounts, type, op);
    }

    @Override
    public void scan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        scanBytes(cast(channel), "scan", send, recv, count, type, op, true);
    }

    @Override
    public void exscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        scanBytes(cast(channel), "exscan", send, recv, count, type, op, false);
    }

    /** {@code MPI_Comm_dup}. */
    EmCommunicator dup(EmCommunicator c) {
        return communicators.dup(c);
    }

    /** {@code MPI_Comm_split}. */
    EmCommunicator split(EmCommunicator c, int color, int key) {
        return spans(c) ? spanning.split.split(c, color, key) : communicators.split(c, color, key);
    }

    private void gatherBytes(EmCommunicator c, String operation, MemorySegment send, long sendBytes, MemorySegment recv,
                             long[] counts, long[] displs, int root) {
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp direct delivery gather across processors");
            spanning.rooted.gather(c, operation, send, sendBytes, recv, counts, displs, root);
        } else {
            CollectiveRecording.algorithm("em-bsp direct delivery gather");
            gather.gather(c, operation, send, sendBytes, recv, counts, displs, root);
        }
    }

    private void scatterBytes(EmCommunicator c, String operation, MemorySegment send, long[] counts, long[] displs,
                              MemorySegment recv, long recvBytes, int root) {
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp pull scatter across processors");
            spanning.rooted.scatter(c, operation, send, counts, displs, recv, recvBytes, root);
        } else {
            CollectiveRecording.algorithm("em-bsp pull scatter");
            scatter.scatter(c, operation, send, counts, displs, recv, recvBytes, root);
        }
    }

    private void allgatherBytes(EmCommunicator c, String operation, MemorySegment send, long sendBytes, MemorySegment recv,
                                long[] counts, long[] displs) {
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp pairwise allgather across processors");
            spanning.allgather.allgather(c, operation, send, sendBytes, recv, counts, displs);
        } else if (staged.takesAllgather(counts)) {
            CollectiveRecording.algorithm("em-bsp staged allgather (message area)");
            staged.allgather(c, operation, send, sendBytes, recv, counts, displs);
        } else {
            CollectiveRecording.algorithm("em-bsp pairwise allgather");
            allgather.allgather(c, operation, send, sendBytes, recv, counts, displs);
        }
    }

    private void alltoallBytes(EmCommunicator c, String operation, MemorySegment send, long[] sendCounts, long[] sendDispls,
                               MemorySegment recv, long[] recvCounts, long[] recvDispls) {
        if (indirect != null) {
            CollectiveRecording.algorithm("em-bsp indirect area alltoall (PEMS1)");
            indirect.alltoall(c, operation, send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
        } else if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp direct delivery alltoall across processors");
            spanning.alltoall.alltoall(c, operation, send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
        } else {
            CollectiveRecording.algorithm("em-bsp direct delivery alltoall");
            alltoall.alltoall(c, operation, send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
        }
    }

    private void reduceScatterCounts(EmCommunicator c, String operation, MemorySegment send, MemorySegment recv, long[] counts,
                                     Datatype type, Op op) {
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp rank-order fold across processors");
            spanning.folds.reduceScatter(c, operation, send, recv, counts, type, op);
        } else {
            CollectiveRecording.algorithm("em-bsp rank-order fold");
            reductions.reduceScatter(c, operation, send, recv, counts, type, op);
        }
    }

    private void scanBytes(EmCommunicator c, String operation, MemorySegment send, MemorySegment recv, long count, Datatype type,
                           Op op, boolean inclusive) {
        if (spans(c)) {
            CollectiveRecording.algorithm("em-bsp rank-order prefix across processors");
            spanning.folds.scan(c, operation, send, recv, count, type, op, inclusive);
        } else {
            CollectiveRecording.algorithm("em-bsp rank-order prefix");
            scans.scan(c, operation, send, recv, count, type, op, inclusive);
        }
    }
}
