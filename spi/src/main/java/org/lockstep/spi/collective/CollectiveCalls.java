package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.spi.messaging.CompletedRequest;
import org.lockstep.spi.messaging.PackedBuffer;

/**
 * What {@link AbstractCommunicator}'s collective templates do, once for every provider: check
 * the arguments ({@link CollectiveArguments}), hand predefined datatypes straight to the engine,
 * and give it derived ones as packed bytes — data movement as {@link Datatype#BYTE}, reductions as
 * the type's basic elements — unpacking the results where the call wrote them. Each collective
 * is written once for its blocking form ({@code start == false}: runs, returns null) and its
 * non-blocking one (returns the request, which unpacks on completion).
 */
final class CollectiveCalls {
    private final Communicator comm;
    private final CollectiveEngine engine;
    private final Communicator channel;

    CollectiveCalls(Communicator comm, CollectiveEngine engine, Communicator channel) {
        this.comm = comm;
        this.engine = engine;
        this.channel = channel;
    }

    private static boolean inPlace(MemorySegment segment) {
        return segment == Communicator.IN_PLACE;
    }

    private Request run(boolean start, Supplier<Request> nonBlocking, Runnable blocking, Runnable after) {
        if (start) {
            Request r = nonBlocking.get();
            return after == null ? r : CompletingRequest.afterSuccess(r, after);
        }
        blocking.run();
        if (after != null) {
            after.run();
        }
        return null;
    }

    private static PackedBuffer reading(MemorySegment buffer, long count, Datatype type) {
        return inPlace(buffer) ? null : PackedBuffer.forReading(buffer, count, type);
    }

    private static MemorySegment segment(PackedBuffer b) {
        return b == null ? Communicator.IN_PLACE : b.segment();
    }

    /** Engine count of {@code count} elements of a derived type in a reduction: its basic elements. */
    private static long basicCount(long count, Datatype type) {
        return type.size() == 0 ? 0 : count * (type.size() / type.basicType().size());
    }

    Request barrier(boolean start) {
        return start ? engine.ibarrier(channel) : run(false, null, () -> engine.barrier(channel), null);
    }

    Request bcast(MemorySegment buffer, long count, Datatype type, int root, boolean start) {
        CollectiveArguments.checkBcast(comm, buffer, count, type, root);
        if (type.isPredefined()) {
            return run(start, () -> engine.ibcast(channel, buffer, count, type, root),
                    () -> engine.bcast(channel, buffer, count, type, root), null);
        }
        boolean isRoot = comm.rank() == root;
        PackedBuffer b = isRoot ? PackedBuffer.forReading(buffer, count, type) : PackedBuffer.forWriting(buffer, count, type);
        return run(start, () -> engine.ibcast(channel, b.segment(), b.bytes(), Datatype.BYTE, root),
                () -> engine.bcast(channel, b.segment(), b.bytes(), Datatype.BYTE, root), isRoot ? null : b::unpack);
    }

    /** Whether the engine can take the call as it is: one predefined type, the same count on both sides. */
    private static boolean direct(Datatype sendType, long sendCount, Datatype recvType, long recvCount) {
        return sendType == recvType && sendType.isPredefined() && sendCount == recvCount;
    }

    Request gather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType,
                   int root, boolean start) {
        CollectiveArguments.checkGather(comm, send, sendCount, sendType, recv, recvCount, recvType, root);
        boolean isRoot = comm.rank() == root;
        // at the root the receive side counts (its send may be IN_PLACE), elsewhere only the send side
        boolean direct = isRoot ? recvType.isPredefined() && (inPlace(send) || direct(sendType, sendCount, recvType, recvCount))
                : sendType.isPredefined();
        if (direct) {
            long count = isRoot ? recvCount : sendCount;
            Datatype type = isRoot ? recvType : sendType;
            return run(start, () -> engine.igather(channel, send, count, type, recv, root),
                    () -> engine.gather(channel, send, count, type, recv, root), null);
        }
        PackedBuffer s = reading(send, sendCount, sendType);
        long all = recvCount * comm.size();
        PackedBuffer r = !isRoot ? null : inPlace(send) ? PackedBuffer.forReading(recv, all, recvType)
                : PackedBuffer.forWriting(recv, all, recvType);
        MemorySegment into = r == null ? null : r.segment();
        long bytes = isRoot ? recvType.byteLength(recvCount) : sendType.byteLength(sendCount);
        return run(start, () -> engine.igather(channel, segment(s), bytes, Datatype.BYTE, into, root),
                () -> engine.gather(channel, segment(s), bytes, Datatype.BYTE, into, root), r == null ? null : r::unpack);
    }

    Request gatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                    long[] displacements, Datatype recvType, int root, boolean start) {
        CollectiveArguments.checkGatherv(comm, send, sendCount, sendType, recv, recvCounts, displacements, recvType, root);
        boolean isRoot = comm.rank() == root;
        Datatype type = isRoot ? recvType : sendType;
        if (type.isPredefined() && (!isRoot || inPlace(send) || sendType == recvType)) {
            return run(start, () -> engine.igatherv(channel, send, sendCount, type, recv, recvCounts, displacements, root),
                    () -> engine.gatherv(channel, send, sendCount, type, recv, recvCounts, displacements, root), null);
        }
        PackedBuffer s = reading(send, sendCount, sendType);
        PackedBlocks r = isRoot ? PackedBlocks.of(recv, recvCounts, displacements, recvType, inPlace(send)) : null;
        MemorySegment into = r == null ? null : r.segment;
        long[] counts = r == null ? null : r.byteCounts;
        long[] displs = r == null ? null : r.byteDisplacements;
        long bytes = inPlace(send) ? 0 : sendType.byteLength(sendCount);
        return run(start, () -> engine.igatherv(channel, segment(s), bytes, Datatype.BYTE, into, counts, displs, root),
                () -> engine.gatherv(channel, segment(s), bytes, Datatype.BYTE, into, counts, displs, root),
                r == null ? null : r::unpack);
    }

    Request scatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType,
                    int root, boolean start) {
        CollectiveArguments.checkScatter(comm, send, sendCount, sendType, recv, recvCount, recvType, root);
        boolean isRoot = comm.rank() == root;
        // at the root the send side counts (its receive may be IN_PLACE), elsewhere only the receive side
        boolean direct = isRoot ? sendType.isPredefined() && (inPlace(recv) || direct(sendType, sendCount, recvType, recvCount))
                : recvType.isPredefined();
        if (direct) {
            long count = isRoot ? sendCount : recvCount;
            Datatype type = isRoot ? sendType : recvType;
            return run(start, () -> engine.iscatter(channel, send, count, type, recv, root),
                    () -> engine.scatter(channel, send, count, type, recv, root), null);
        }
        PackedBuffer s = isRoot ? PackedBuffer.forReading(send, sendCount * comm.size(), sendType) : null;
        PackedBuffer r = inPlace(recv) ? null : PackedBuffer.forWriting(recv, recvCount, recvType);
        MemorySegment from = s == null ? null : s.segment();
        long bytes = isRoot ? sendType.byteLength(sendCount) : recvType.byteLength(recvCount);
        return run(start, () -> engine.iscatter(channel, from, bytes, Datatype.BYTE, segment(r), root),
                () -> engine.scatter(channel, from, bytes, Datatype.BYTE, segment(r), root), r == null ? null : r::unpack);
    }

    Request scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType, MemorySegment recv,
                     long recvCount, Datatype recvType, int root, boolean start) {
        CollectiveArguments.checkScatterv(comm, send, sendCounts, displacements, sendType, recv, recvCount, recvType, root);
        boolean isRoot = comm.rank() == root;
        Datatype type = isRoot ? sendType : recvType;
        if (type.isPredefined() && (!isRoot || inPlace(recv) || sendType == recvType)) {
            return run(start, () -> engine.iscatterv(channel, send, sendCounts, displacements, type, recv, recvCount, root),
                    () -> engine.scatterv(channel, send, sendCounts, displacements, type, recv, recvCount, root), null);
        }
        PackedBlocks s = isRoot ? PackedBlocks.of(send, sendCounts, displacements, sendType, true) : null;
        PackedBuffer r = inPlace(recv) ? null : PackedBuffer.forWriting(recv, recvCount, recvType);
        MemorySegment from = s == null ? null : s.segment;
        long[] counts = s == null ? null : s.byteCounts;
        long[] displs = s == null ? null : s.byteDisplacements;
        long bytes = inPlace(recv) ? 0 : recvType.byteLength(recvCount);
        return run(start, () -> engine.iscatterv(channel, from, counts, displs, Datatype.BYTE, segment(r), bytes, root),
                () -> engine.scatterv(channel, from, counts, displs, Datatype.BYTE, segment(r), bytes, root),
                r == null ? null : r::unpack);
    }

    Request allgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                      Datatype recvType, boolean start) {
        CollectiveArguments.checkAllgather(comm, send, sendCount, sendType, recv, recvCount, recvType);
        if (direct(inPlace(send) ? recvType : sendType, inPlace(send) ? recvCount : sendCount, recvType, recvCount)) {
            return run(start, () -> engine.iallgather(channel, send, recvCount, recvType, recv),
                    () -> engine.allgather(channel, send, recvCount, recvType, recv), null);
        }
        PackedBuffer s = reading(send, sendCount, sendType);
        long all = recvCount * comm.size();
        PackedBuffer r = inPlace(send) ? PackedBuffer.forReading(recv, all, recvType) : PackedBuffer.forWriting(recv, all, recvType);
        long bytes = recvType.byteLength(recvCount);
        return run(start, () -> engine.iallgather(channel, segment(s), bytes, Datatype.BYTE, r.segment()),
                () -> engine.allgather(channel, segment(s), bytes, Datatype.BYTE, r.segment()), r::unpack);
    }

    Request allgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                       long[] displacements, Datatype recvType, boolean start) {
        CollectiveArguments.checkAllgatherv(comm, send, sendCount, sendType, recv, recvCounts, displacements, recvType);
        if ((inPlace(send) || sendType == recvType) && recvType.isPredefined()) {
            return run(start, () -> engine.iallgatherv(channel, send, sendCount, recvType, recv, recvCounts, displacements),
                    () -> engine.allgatherv(channel, send, sendCount, recvType, recv, recvCounts, displacements), null);
        }
        PackedBuffer s = reading(send, sendCount, sendType);
        PackedBlocks r = PackedBlocks.of(recv, recvCounts, displacements, recvType, inPlace(send));
        long bytes = inPlace(send) ? 0 : sendType.byteLength(sendCount);
        return run(start,
                () -> engine.iallgatherv(channel, segment(s), bytes, Datatype.BYTE, r.segment, r.byteCounts, r.byteDisplacements),
                () -> engine.allgatherv(channel, segment(s), bytes, Datatype.BYTE, r.segment, r.byteCounts, r.byteDisplacements),
                r::unpack);
    }

    Request alltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType,
                     boolean start) {
        CollectiveArguments.checkAlltoall(comm, send, sendCount, sendType, recv, recvCount, recvType);
        if (direct(inPlace(send) ? recvType : sendType, inPlace(send) ? recvCount : sendCount, recvType, recvCount)) {
            return run(start, () -> engine.ialltoall(channel, send, recvCount, recvType, recv),
                    () -> engine.alltoall(channel, send, recvCount, recvType, recv), null);
        }
        int n = comm.size();
        PackedBuffer s = reading(send, sendCount * n, sendType);
        PackedBuffer r = inPlace(send) ? PackedBuffer.forReading(recv, recvCount * n, recvType)
                : PackedBuffer.forWriting(recv, recvCount * n, recvType);
        long bytes = recvType.byteLength(recvCount);
        return run(start, () -> engine.ialltoall(channel, segment(s), bytes, Datatype.BYTE, r.segment()),
                () -> engine.alltoall(channel, segment(s), bytes, Datatype.BYTE, r.segment()), r::unpack);
    }

    Request alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType, MemorySegment recv,
                      long[] recvCounts, long[] recvDisplacements, Datatype recvType, boolean start) {
        CollectiveArguments.checkAlltoallv(comm, send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements,
                recvType);
        if ((inPlace(send) || sendType == recvType) && recvType.isPredefined()) {
            return run(start,
                    () -> engine.ialltoallv(channel, send, sendCounts, sendDisplacements, recvType, recv, recvCounts, recvDisplacements),
                    () -> engine.alltoallv(channel, send, sendCounts, sendDisplacements, recvType, recv, recvCounts, recvDisplacements),
                    null);
        }
        PackedBlocks s = inPlace(send) ? null : PackedBlocks.of(send, sendCounts, sendDisplacements, sendType, true);
        PackedBlocks r = PackedBlocks.of(recv, recvCounts, recvDisplacements, recvType, inPlace(send));
        MemorySegment from = s == null ? Communicator.IN_PLACE : s.segment;
        long[] counts = s == null ? null : s.byteCounts;
        long[] displs = s == null ? null : s.byteDisplacements;
        return run(start,
                () -> engine.ialltoallv(channel, from, counts, displs, Datatype.BYTE, r.segment, r.byteCounts, r.byteDisplacements),
                () -> engine.alltoallv(channel, from, counts, displs, Datatype.BYTE, r.segment, r.byteCounts, r.byteDisplacements),
                r::unpack);
    }

    /**
     * Alltoallw over the engine's alltoallv of bytes: every block, whatever its datatype, is
     * packed into (or received as) consecutive bytes, and unpacked into its place afterwards.
     */
    Request alltoallw(MemorySegment send, long[] sendCounts, long[] sendByteDisplacements, Datatype[] sendTypes,
                      MemorySegment recv, long[] recvCounts, long[] recvByteDisplacements, Datatype[] recvTypes, boolean start) {
        int n = comm.size();
        TypedBlocks r = TypedBlocks.of(n, recv, recvCounts, recvByteDisplacements, recvTypes, true, "alltoallw receive");
        TypedBlocks s = inPlace(send) ? null
                : TypedBlocks.of(n, send, sendCounts, sendByteDisplacements, sendTypes, false, "alltoallw send");
        if (s != null) {
            TypedBlocks.checkOwnBlock(s, r, comm.rank());
        }
        MemorySegment into = r.packed();
        MemorySegment from;
        if (s == null) {
            r.packInto(into);
            from = Communicator.IN_PLACE;
        } else {
            from = s.packed();
            s.packInto(from);
        }
        long[] counts = s == null ? null : s.byteCounts;
        long[] displs = s == null ? null : s.byteOffsets;
        return run(start,
                () -> engine.ialltoallv(channel, from, counts, displs, Datatype.BYTE, into, r.byteCounts, r.byteOffsets),
                () -> engine.alltoallv(channel, from, counts, displs, Datatype.BYTE, into, r.byteCounts, r.byteOffsets),
                () -> r.unpackFrom(into));
    }

    Request reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root, boolean start) {
        CollectiveArguments.checkReduce(comm, send, recv, count, type, op, root);
        if (type.isPredefined()) {
            return run(start, () -> engine.ireduce(channel, send, recv, count, type, op, root),
                    () -> engine.reduce(channel, send, recv, count, type, op, root), null);
        }
        boolean isRoot = comm.rank() == root;
        PackedBuffer s = reading(send, count, type);
        PackedBuffer r = !isRoot ? null : inPlace(send) ? PackedBuffer.forReading(recv, count, type)
                : PackedBuffer.forWriting(recv, count, type);
        MemorySegment into = r == null ? null : r.segment();
        long n = basicCount(count, type);
        Datatype basic = type.basicType();
        return run(start, () -> engine.ireduce(channel, segment(s), into, n, basic, op, root),
                () -> engine.reduce(channel, segment(s), into, n, basic, op, root), r == null ? null : r::unpack);
    }

    /** Allreduce, scan and exscan: the same packing. */
    Request allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, boolean start) {
        CollectiveArguments.checkAllreduce(comm, send, recv, count, type, op);
        if (type.isPredefined()) {
            return run(start, () -> engine.iallreduce(channel, send, recv, count, type, op),
                    () -> engine.allreduce(channel, send, recv, count, type, op), null);
        }
        PackedBuffer s = reading(send, count, type);
        PackedBuffer r = inPlace(send) ? PackedBuffer.forReading(recv, count, type) : PackedBuffer.forWriting(recv, count, type);
        long n = basicCount(count, type);
        Datatype basic = type.basicType();
        return run(start, () -> engine.iallreduce(channel, segment(s), r.segment(), n, basic, op),
                () -> engine.allreduce(channel, segment(s), r.segment(), n, basic, op), r::unpack);
    }

    Request scan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, boolean exclusive, boolean start) {
        CollectiveArguments.checkScan(comm, send, recv, count, type, op);
        if (type.isPredefined()) {
            return exclusive
                    ? run(start, () -> engine.iexscan(channel, send, recv, count, type, op),
                            () -> engine.exscan(channel, send, recv, count, type, op), null)
                    : run(start, () -> engine.iscan(channel, send, recv, count, type, op),
                            () -> engine.scan(channel, send, recv, count, type, op), null);
        }
        PackedBuffer s = reading(send, count, type);
        PackedBuffer r = inPlace(send) ? PackedBuffer.forReading(recv, count, type) : PackedBuffer.forWriting(recv, count, type);
        long n = basicCount(count, type);
        Datatype basic = type.basicType();
        // exscan leaves rank 0's receive buffer alone
        Runnable after = exclusive && comm.rank() == 0 ? null : r::unpack;
        return exclusive
                ? run(start, () -> engine.iexscan(channel, segment(s), r.segment(), n, basic, op),
                        () -> engine.exscan(channel, segment(s), r.segment(), n, basic, op), after)
                : run(start, () -> engine.iscan(channel, segment(s), r.segment(), n, basic, op),
                        () -> engine.scan(channel, segment(s), r.segment(), n, basic, op), after);
    }

    Request reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op, boolean start) {
        CollectiveArguments.checkReduceScatter(comm, send, recv, recvCounts, type, op);
        if (type.isPredefined()) {
            return run(start, () -> engine.ireduceScatter(channel, send, recv, recvCounts, type, op),
                    () -> engine.reduceScatter(channel, send, recv, recvCounts, type, op), null);
        }
        long total = 0;
        long[] basicCounts = new long[recvCounts.length];
        for (int i = 0; i < recvCounts.length; i++) {
            total += recvCounts[i];
            basicCounts[i] = basicCount(recvCounts[i], type);
        }
        long own = recvCounts[comm.rank()];
        PackedBuffer s = reading(send, total, type);
        PackedBuffer r = inPlace(send) ? PackedBuffer.forReading(recv, total, type) : PackedBuffer.forWriting(recv, own, type);
        Datatype basic = type.basicType();
        long ownBytes = type.byteLength(own);
        return run(start, () -> engine.ireduceScatter(channel, segment(s), r.segment(), basicCounts, basic, op),
                () -> engine.reduceScatter(channel, segment(s), r.segment(), basicCounts, basic, op), () -> r.unpack(ownBytes));
    }

    Request reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op, boolean start) {
        CollectiveArguments.checkReduceScatterBlock(comm, send, recv, recvCount, type, op);
        if (type.isPredefined()) {
            return run(start, () -> engine.ireduceScatterBlock(channel, send, recv, recvCount, type, op),
                    () -> engine.reduceScatterBlock(channel, send, recv, recvCount, type, op), null);
        }
        long total = recvCount * comm.size();
        PackedBuffer s = reading(send, total, type);
        PackedBuffer r = inPlace(send) ? PackedBuffer.forReading(recv, total, type)
                : PackedBuffer.forWriting(recv, recvCount, type);
        Datatype basic = type.basicType();
        long n = basicCount(recvCount, type);
        long ownBytes = type.byteLength(recvCount);
        return run(start, () -> engine.ireduceScatterBlock(channel, segment(s), r.segment(), n, basic, op),
                () -> engine.reduceScatterBlock(channel, segment(s), r.segment(), n, basic, op), () -> r.unpack(ownBytes));
    }

    /** A request that is already complete, for non-blocking calls with nothing to do. */
    static Request done() {
        return CompletedRequest.of(ScheduleRequest.COMPLETED);
    }
}
