package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * The non-blocking collectives of a {@link BridgedIntercommunicator} (MPI 4.1 §6.12 on
 * intercommunicators), as linear exchanges across the groups: every rank trades its blocks
 * directly with the remote ranks that need them, so a call posts all its messages when it starts
 * and needs no step inside its own group; reductions are done by each receiver, in the remote
 * group's rank order. Each call is one {@link Schedule} on the crossing channel: its messages in
 * the first round, unpacking and reducing in the second. All calls' messages carry one tag,
 * {@link #TAG}, apart from the blocking collectives' {@link IntercommunicatorCollectives#CROSSING}:
 * since every rank starts these calls in the same order and posts each call's messages at its
 * start, the messages of successive calls between two ranks pair in order.
 */
final class IntercommunicatorNonBlocking {
    /** The step (and so the tag) of every message of these calls on the crossing channel. */
    static final int TAG = 1;

    private final int rank;
    private final int size;
    private final int remoteSize;
    private final int remoteOffset;
    private final Communicator crossing;

    IntercommunicatorNonBlocking(int rank, int size, int remoteSize, int remoteOffset, Communicator crossing) {
        this.rank = rank;
        this.size = size;
        this.remoteSize = remoteSize;
        this.remoteOffset = remoteOffset;
        this.crossing = crossing;
    }

    /** One call's schedule with its unpacking: what lands in scratch is copied into the user's buffer once all has arrived. */
    private final class Call {
        final Schedule schedule = Schedule.onPrivateChannel(crossing);
        final List<Runnable> afterwards = new ArrayList<>();

        /** Sends {@code count} elements of {@code type} from {@code buffer} to remote rank {@code r} (packed now if need be). */
        void send(int r, MemorySegment buffer, long count, Datatype type) {
            schedule.send(remoteOffset + r, outgoing(buffer, count, type), TAG);
        }

        /** As {@link #send}, after checking the buffer holds the elements. */
        void checkedSend(int r, MemorySegment buffer, long count, Datatype type, String what) {
            checkBuffer(buffer, count, type, false, what);
            send(r, buffer, count, type);
        }

        /** Receives {@code count} elements of {@code type} from remote rank {@code r} into {@code buffer}. */
        void recv(int r, MemorySegment buffer, long count, Datatype type) {
            long bytes = type.byteLength(count);
            if (bytes == 0) {
                schedule.recv(remoteOffset + r, Buffers.EMPTY, TAG);
                return;
            }
            if (type.isContiguous()) {
                schedule.recv(remoteOffset + r, buffer.asSlice(0, bytes), TAG);
                return;
            }
            MemorySegment packed = schedule.scratch(bytes);
            schedule.recv(remoteOffset + r, packed, TAG);
            afterwards.add(() -> type.unpackPartial(packed, 0, buffer, count, bytes));
        }

        /** Receives remote rank {@code r}'s {@code count} elements into fresh scratch, packed. */
        MemorySegment recvPacked(int r, long count, Datatype type) {
            MemorySegment packed = schedule.scratch(type.byteLength(count));
            schedule.recv(remoteOffset + r, packed, TAG);
            return packed;
        }

        MemorySegment outgoing(MemorySegment buffer, long count, Datatype type) {
            long bytes = type.byteLength(count);
            if (bytes == 0) {
                return Buffers.EMPTY;
            }
            if (type.isContiguous()) {
                return buffer.asSlice(0, bytes);
            }
            MemorySegment packed = schedule.scratch(bytes);
            type.packAll(buffer, count, packed);
            return packed;
        }

        Request start() {
            schedule.endRound();
            for (Runnable r : afterwards) {
                schedule.local(r);
            }
            return schedule.start();
        }
    }

    /** Completes once every remote rank has started it (each rank tells each remote rank it has). */
    Request ibarrier() {
        Call call = new Call();
        MemorySegment none = Buffers.EMPTY;
        for (int r = 0; r < remoteSize; r++) {
            call.schedule.recv(remoteOffset + r, none, TAG);
            call.schedule.send(remoteOffset + r, none, TAG);
        }
        return call.start();
    }

    Request ibcast(MemorySegment buffer, long count, Datatype type, int root) {
        checkRoot(root);
        Call call = new Call();
        if (root == Intercommunicator.ROOT) {
            checkBuffer(buffer, count, type, false, "ibcast's buffer");
            MemorySegment data = call.outgoing(buffer, count, type);
            for (int r = 0; r < remoteSize; r++) {
                call.schedule.send(remoteOffset + r, data, TAG);
            }
        } else if (root != Communicator.PROC_NULL) {
            checkBuffer(buffer, count, type, true, "ibcast's buffer");
            call.recv(root, buffer, count, type);
        }
        return call.start();
    }

    Request igather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        long[] counts = filled(remoteSize, count);
        return igatherv(send, count, type, recv, counts, displacements(counts), root);
    }

    Request igatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements,
                     int root) {
        checkRoot(root);
        Call call = new Call();
        if (root == Intercommunicator.ROOT) {
            IntercommunicatorCollectives.notInPlace(recv, "igatherv's receive buffer");
            CollectiveArguments.blocks(recv, recvCounts, displacements, type, remoteSize, true, "igatherv receive");
            for (int r = 0; r < remoteSize; r++) {
                call.recv(r, block(recv, displacements[r], type), recvCounts[r], type);
            }
        } else if (root != Communicator.PROC_NULL) {
            IntercommunicatorCollectives.notInPlace(send, "igatherv's send buffer");
            call.checkedSend(root, send, sendCount, type, "igatherv's send buffer");
        }
        return call.start();
    }

    Request iscatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        long[] counts = filled(remoteSize, count);
        return iscatterv(send, counts, displacements(counts), type, recv, count, root);
    }

    Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv, long recvCount,
                      int root) {
        checkRoot(root);
        Call call = new Call();
        if (root == Intercommunicator.ROOT) {
            IntercommunicatorCollectives.notInPlace(send, "iscatterv's send buffer");
            CollectiveArguments.blocks(send, sendCounts, displacements, type, remoteSize, false, "iscatterv send");
            for (int r = 0; r < remoteSize; r++) {
                call.send(r, block(send, displacements[r], type), sendCounts[r], type);
            }
        } else if (root != Communicator.PROC_NULL) {
            IntercommunicatorCollectives.notInPlace(recv, "iscatterv's receive buffer");
            checkBuffer(recv, recvCount, type, true, "iscatterv's receive buffer");
            call.recv(root, recv, recvCount, type);
        }
        return call.start();
    }

    Request iallgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        long[] counts = filled(remoteSize, count);
        return iallgatherv(send, count, type, recv, counts, displacements(counts));
    }

    Request iallgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements) {
        IntercommunicatorCollectives.notInPlace(send, "iallgatherv's send buffer");
        CollectiveArguments.blocks(recv, recvCounts, displacements, type, remoteSize, true, "iallgatherv receive");
        checkBuffer(send, sendCount, type, false, "iallgatherv's send buffer");
        Call call = new Call();
        MemorySegment data = call.outgoing(send, sendCount, type);
        for (int r = 0; r < remoteSize; r++) {
            call.recv(r, block(recv, displacements[r], type), recvCounts[r], type);
            call.schedule.send(remoteOffset + r, data, TAG);
        }
        return call.start();
    }

    Request ialltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        long[] counts = filled(remoteSize, count);
        long[] displacements = displacements(counts);
        return ialltoallv(send, counts, displacements, type, recv, counts, displacements);
    }

    Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv,
                       long[] recvCounts, long[] recvDisplacements) {
        IntercommunicatorCollectives.notInPlace(send, "ialltoallv's send buffer");
        CollectiveArguments.blocks(send, sendCounts, sendDisplacements, type, remoteSize, false, "ialltoallv send");
        CollectiveArguments.blocks(recv, recvCounts, recvDisplacements, type, remoteSize, true, "ialltoallv receive");
        Call call = new Call();
        for (int r = 0; r < remoteSize; r++) {
            call.recv(r, block(recv, recvDisplacements[r], type), recvCounts[r], type);
            call.send(r, block(send, sendDisplacements[r], type), sendCounts[r], type);
        }
        return call.start();
    }

    Request ialltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes, MemorySegment recv,
                       long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        IntercommunicatorCollectives.notInPlace(send, "ialltoallw's send buffer");
        TypedBlocks.of(remoteSize, send, sendCounts, sendDisplacements, sendTypes, false, "ialltoallw send");
        TypedBlocks.of(remoteSize, recv, recvCounts, recvDisplacements, recvTypes, true, "ialltoallw receive");
        Call call = new Call();
        for (int r = 0; r < remoteSize; r++) {
            call.recv(r, recvCounts[r] == 0 ? Buffers.EMPTY : recv.asSlice(recvDisplacements[r]), recvCounts[r], recvTypes[r]);
            call.send(r, sendCounts[r] == 0 ? Buffers.EMPTY : send.asSlice(sendDisplacements[r]), sendCounts[r], sendTypes[r]);
        }
        return call.start();
    }

    /** The root gets the reduction, in remote rank order, of the remote group's vectors. */
    Request ireduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        checkRoot(root);
        Call call = new Call();
        if (root == Intercommunicator.ROOT) {
            IntercommunicatorCollectives.notInPlace(recv, "ireduce's receive buffer");
            reduceInto(call, recv, 0, count, type, op);
        } else if (root != Communicator.PROC_NULL) {
            IntercommunicatorCollectives.notInPlace(send, "ireduce's send buffer");
            CollectiveArguments.checkOp(op, type);
            call.checkedSend(root, send, count, type, "ireduce's send buffer");
        }
        return call.start();
    }

    /** Every rank gets the reduction of the remote group's vectors: each sends its vector to every remote rank. */
    Request iallreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        IntercommunicatorCollectives.notInPlace(send, "iallreduce's send buffer");
        checkBuffer(send, count, type, false, "iallreduce's send buffer");
        Call call = new Call();
        MemorySegment data = call.outgoing(send, count, type);
        for (int r = 0; r < remoteSize; r++) {
            call.schedule.send(remoteOffset + r, data, TAG);
        }
        reduceInto(call, recv, 0, count, type, op);
        return call.start();
    }

    /**
     * Local rank i gets {@code recvCounts[i]} elements of the reduction of the remote group's
     * vectors. A sender does not know the other group's counts, so each sends its whole vector and
     * each receiver reduces its own part.
     */
    Request ireduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        IntercommunicatorCollectives.notInPlace(send, "ireduce_scatter's send buffer");
        CollectiveArguments.checkCounts(recvCounts, size, "ireduce_scatter recvCounts");
        long total = 0;
        long offset = 0;
        for (int i = 0; i < size; i++) {
            if (i == rank) {
                offset = total;
            }
            total = Math.addExact(total, recvCounts[i]);
        }
        checkBuffer(send, total, type, false, "ireduce_scatter's send buffer");
        Call call = new Call();
        MemorySegment data = call.outgoing(send, total, type);
        for (int r = 0; r < remoteSize; r++) {
            call.schedule.send(remoteOffset + r, data, TAG);
        }
        reduceInto(call, recv, offset, recvCounts[rank], type, op, total);
        return call.start();
    }

    /**
     * Each group's vectors hold its size times its {@code recvCount} elements, the same number in
     * both groups (MPI 4.1 §6.11.2), so a sender knows the other group's blocks and sends each
     * remote rank only its own.
     */
    Request ireduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        IntercommunicatorCollectives.notInPlace(send, "ireduce_scatter_block's send buffer");
        if (recvCount < 0) {
            throw new LockstepException(ErrorClass.COUNT, "ireduce_scatter_block recvCount " + recvCount + " is negative");
        }
        long total = Math.multiplyExact(recvCount, (long) size);
        if (remoteSize > 0 && total % remoteSize != 0) {
            throw new LockstepException(ErrorClass.COUNT, "ireduce_scatter_block: " + total + " elements (" + size + " ranks x "
                    + recvCount + ") do not split into the remote group's " + remoteSize + " blocks");
        }
        checkBuffer(send, total, type, false, "ireduce_scatter_block's send buffer");
        Call call = new Call();
        MemorySegment data = call.outgoing(send, total, type);
        long blockBytes = remoteSize == 0 ? 0 : type.byteLength(total / remoteSize);
        for (int r = 0; r < remoteSize; r++) {
            call.schedule.send(remoteOffset + r, Buffers.slice(data, r * blockBytes, blockBytes), TAG);
        }
        reduceInto(call, recv, 0, recvCount, type, op);
        return call.start();
    }

    private void reduceInto(Call call, MemorySegment recv, long offset, long count, Datatype type, Op op) {
        reduceInto(call, recv, offset, count, type, op, count);
    }

    /**
     * Receives every remote rank's vector of {@code sent} elements and reduces elements
     * {@code [offset, offset + count)} of them, in remote rank order, into {@code recv}:
     * {@code x0 op (x1 op (... op x(n-1)))}, which an associative op makes the rank-order result.
     */
    private void reduceInto(Call call, MemorySegment recv, long offset, long count, Datatype type, Op op, long sent) {
        CollectiveArguments.checkOp(op, type);
        checkBuffer(recv, count, type, true, "the reduction's receive buffer");
        MemorySegment[] parts = new MemorySegment[remoteSize];
        for (int r = 0; r < remoteSize; r++) {
            parts[r] = call.recvPacked(r, sent, type);
        }
        long from = type.byteLength(offset);
        long bytes = type.byteLength(count);
        call.afterwards.add(() -> {
            if (remoteSize == 0 || bytes == 0) {
                return;
            }
            MemorySegment result = Buffers.slice(parts[remoteSize - 1], from, bytes);
            for (int r = remoteSize - 2; r >= 0; r--) {
                op.apply(Buffers.slice(parts[r], from, bytes), result, count, type);
            }
            type.unpackPartial(result, 0, recv, count, bytes);
        });
    }

    /** {@code count} elements of {@code type} fit in {@code buffer} (and it may be written, if it is). */
    private static void checkBuffer(MemorySegment buffer, long count, Datatype type, boolean written, String what) {
        Datatype.checkUsable(type);
        if (count < 0) {
            throw new LockstepException(ErrorClass.COUNT, what + ": count " + count + " is negative");
        }
        long span = count == 0 ? 0 : type.span(count);
        if (span > 0 && (buffer == null || buffer.byteSize() < span)) {
            throw new LockstepException(ErrorClass.BUFFER, what + " has " + (buffer == null ? "no" : buffer.byteSize())
                    + " bytes but " + count + " elements of " + type + " span " + span);
        }
        if (written && span > 0 && buffer.isReadOnly()) {
            throw new LockstepException(ErrorClass.BUFFER, what + " is read-only but is written");
        }
    }

    private void checkRoot(int root) {
        IntercommunicatorCollectives.checkRoot(root, remoteSize);
    }

    private static MemorySegment block(MemorySegment buffer, long displacement, Datatype type) {
        return buffer == null ? Buffers.EMPTY : buffer.asSlice(displacement * type.extent());
    }

    private static long[] filled(int n, long value) {
        long[] a = new long[n];
        Arrays.fill(a, value);
        return a;
    }

    private static long[] displacements(long[] counts) {
        long[] d = new long[counts.length];
        for (int i = 1; i < counts.length; i++) {
            d[i] = d[i - 1] + counts[i - 1];
        }
        return d;
    }
}
