package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.embsp.io.ContextStore;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.io.IoDriver;
import org.lockstep.embsp.io.IoHandle;
import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameKind;
import org.lockstep.embsp.net.SendWindow;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Vp;

import static org.lockstep.embsp.comm.CollectiveBuffers.extent;
import static org.lockstep.embsp.comm.CollectiveBuffers.max;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * PEMS1's Alltoallv through the indirect area (seed 003 §2.2), kept as the baseline PEMS2's direct
 * delivery is measured against ({@code lockstep.embsp.delivery=indirect}). Two internal supersteps:
 * each sender writes every message block-aligned into the receiver's slot of the indirect area
 * (α writes in flight; a message for another real processor goes there in frames and that
 * processor's agent writes it); after a barrier each receiver reads its slots back and copies the
 * messages into its context. Every message is written and read once more than with direct
 * delivery, each VP may be swapped twice, and a message must fit its fixed slot
 * ({@code lockstep.embsp.indirectSlot}) — PEMS1's bound on ω.
 */
final class IndirectAlltoall {
    private final CallSynchronisation calls;
    private final Remote remote;

    IndirectAlltoall(CallSynchronisation calls, Remote remote) {
        this.calls = calls;
        this.remote = remote;
    }

    private ContextStore area() {
        return calls.world().machine().indirectArea();
    }

    private long slot() {
        return calls.world().options().indirectSlot();
    }

    void alltoall(EmCommunicator c, String operation, MemorySegment send, long[] sendCounts, long[] sendDispls,
                  MemorySegment recv, long[] recvCounts, long[] recvDispls) {
        Group group = c.vpGroup();
        Vp me = c.vp();
        int rank = c.rank();
        int n = c.size();
        MemorySegment recvAll = slice(recv, 0, extent(recvCounts, recvDispls), operation + " receive buffer");
        MemorySegment sendAll = send == Communicator.IN_PLACE ? null : slice(send, 0, extent(sendCounts, sendDispls), operation + " send buffer");
        for (int j = 0; j < n; j++) {
            if (sendCounts[j] > slot() || recvCounts[j] > slot()) {
                throw new LockstepException(ErrorClass.COUNT, operation + " with indirect delivery: a message of "
                        + Math.max(sendCounts[j], recvCounts[j]) + " bytes exceeds its slot of the indirect area ("
                        + "lockstep.embsp.indirectSlot = " + slot() + "); PEMS1 needs a bound on every message");
            }
        }
        if (send == Communicator.IN_PLACE) {
            sendAll = recvAll;
        }
        CallState call = calls.enter(c, operation);
        MemorySegment from = sendAll;
        SpanningState span = call.span;
        calls.locked(() -> {
            call.io.messageOf(Math.max(max(sendCounts), max(recvCounts)));
            call.io.indirect();
            call.io.swapsOnce(me.context().swapBytes());
            call.recvBuffers[rank] = org.lockstep.embsp.sim.Location.of(me, recvAll);
            call.recvCounts[rank] = recvCounts.clone();
            call.recvDisplacements[rank] = recvDispls.clone();
            call.sendCounts[rank] = sendCounts.clone();
            for (int j = 0; j < n; j++) {
                if (j != rank) {
                    // its sender's write (here, or by this processor's agent) and this VP's read
                    call.io.writesAndReads(recvCounts[j]);
                    if (!group.isLocal(j)) {
                        call.io.crosses(sendCounts[j], remote.framePayload());
                    }
                }
            }
            if (span != null) {
                for (int i = 0; i < n; i++) {
                    if (!group.isLocal(i) && span.summaries[i] != null) {
                        checkSummary(call, i, rank);
                    }
                }
                call.io.control(2L * group.otherProcessors(), (long) n * Long.BYTES);
                remote.toOthers(group, Frame.of(FrameKind.SUMMARY, group.key(), call.sequence, rank, 0, 0)
                        .with(MemorySegment.ofArray(sendCounts.clone())), call);
            }
        });
        // superstep 1: every message into its receiver's slot
        long[] own = new long[] {sendDispls[rank], recvDispls[rank], sendCounts[rank]};
        byte[] mine = from.asSlice(own[0], own[2]).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        writeMessages(c, call, from, sendCounts, sendDispls);
        calls.locked(() -> {
            call.arrivals.increment();
            call.arrivals.wakeAll(calls.scheduler());
            call.finished.wakeAll(calls.scheduler());
        });
        calls.await(c, call, () -> failedOr(call, () -> written(group, call)), call.finished,
                operation + " (indirect) waiting for every message to reach the indirect area");
        failIfFailed(call);
        // superstep 2: this VP's slots into its context
        MemorySegment.copy(MemorySegment.ofArray(mine), 0, recvAll, recvDispls[rank], own[2]);
        readMessages(c, call, recvAll, recvCounts, recvDispls);
        calls.locked(() -> {
            if (call.finished.increment() == group.localMembers() && span != null) {
                call.io.control(group.otherProcessors(), 0);
                remote.toOthers(group, Frame.of(FrameKind.COUNT, group.key(), call.sequence, SpanningState.FINISHED,
                        group.localMembers(), 0), call);
            }
            call.finished.wakeAll(calls.scheduler());
        });
        // the slots are free again only when every receiver has read its own
        calls.await(c, call, () -> call.finished.count() == group.localMembers()
                && (span == null || span.allReported(SpanningState.FINISHED)), call.finished,
                operation + " (indirect) waiting for every receiver to read its slots");
        calls.leave(c, call);
    }

    private static boolean failedOr(CallState call, java.util.function.BooleanSupplier condition) {
        return call.span != null && call.span.failure != null || condition.getAsBoolean();
    }

    private static void failIfFailed(CallState call) {
        if (call.span != null && call.span.failure != null) {
            throw call.span.failure;
        }
    }

    /** Every sender here has written, and every message from elsewhere for the receivers here has arrived. */
    private static boolean written(Group group, CallState call) {
        if (call.arrivals.count() != group.localMembers()) {
            return false;
        }
        SpanningState span = call.span;
        if (span == null) {
            return true;
        }
        long expected = 0;
        for (int j = 0; j < group.size(); j++) {
            if (group.isLocal(j)) {
                for (int i = 0; i < group.size(); i++) {
                    if (!group.isLocal(i)) {
                        expected += call.recvCounts[j][i];
                    }
                }
            }
        }
        return span.summariesReceived == group.remoteMembers() && span.deliveredBytes == expected;
    }

    /** Superstep 1: each message to its receiver's slot — here through the staging slots, α in flight; elsewhere in frames. */
    private void writeMessages(EmCommunicator c, CallState call, MemorySegment from, long[] sendCounts, long[] sendDispls) {
        Group group = c.vpGroup();
        Vp me = c.vp();
        int rank = c.rank();
        Deliveries inFlight = calls.deliveries(c);
        SendWindow window = call.span == null ? null : remote.window(call);
        long chunk = me.partition().slotSize();
        try {
            for (int j = 0; j < c.size(); j++) {
                long length = sendCounts[j];
                if (j == rank || length == 0) {
                    continue;
                }
                MemorySegment message = from.asSlice(sendDispls[j], length);
                if (!group.isLocal(j)) {
                    remote.stream(window, group.processorOf(j), FrameKind.SLOT_DATA, group, call, rank, j, message);
                    continue;
                }
                int receiver = group.vpOf(j);
                long base = rank * slot();
                for (long done = 0; done < length; done += chunk) {
                    long n = Math.min(chunk, length - done);
                    int s = inFlight.acquireSlot();
                    MemorySegment staging = me.partition().slot(s);
                    MemorySegment.copy(message, done, staging, 0, n);
                    long rounded = roundUp(n);
                    me.context().lock().readLock().lock();
                    IoHandle h = area().submit(IoDriver.Direction.WRITE, receiver, base + done, staging.asSlice(0, rounded),
                            IoCategory.DELIVERY_WRITE, me.meters());
                    inFlight.add(h, s, me.context());
                }
            }
        } finally {
            inFlight.drain();
        }
    }

    /** Superstep 2: this VP's slots, block by block through staging, into its receive buffer. */
    private void readMessages(EmCommunicator c, CallState call, MemorySegment recvAll, long[] recvCounts, long[] recvDispls) {
        Group group = c.vpGroup();
        Vp me = c.vp();
        int rank = c.rank();
        MemorySegment staging = me.partition().slot(0);
        long chunk = staging.byteSize();
        for (int i = 0; i < c.size(); i++) {
            long length = recvCounts[i];
            if (i == rank) {
                continue;
            }
            long sent = group.isLocal(i) ? call.sendCounts[i][rank] : call.span.summaries[i][rank];
            if (sent != length) {
                throw new LockstepException(ErrorClass.COUNT, "alltoallv: rank " + i + " sends " + sent + " bytes to rank " + rank
                        + ", which expects " + length);
            }
            for (long done = 0; done < length; done += chunk) {
                long n = Math.min(chunk, length - done);
                area().transfer(IoDriver.Direction.READ, me.id(), i * slot() + done, staging.asSlice(0, roundUp(n)),
                        IoCategory.DELIVERY_READ, me.meters());
                MemorySegment.copy(staging, 0, recvAll, recvDispls[i] + done, n);
            }
        }
    }

    private long roundUp(long x) {
        long b = calls.block();
        return -Math.floorDiv(-x, b) * b;
    }

    /** A SUMMARY's lengths against a receiver's table (lock held). */
    private void checkSummary(CallState call, int i, int j) {
        long sent = call.span.summaries[i][j];
        if (sent != call.recvCounts[j][i] && call.span.failure == null) {
            call.span.failure = new LockstepException(ErrorClass.COUNT, "alltoallv: rank " + i + " sends " + sent
                    + " bytes to rank " + j + ", which expects " + call.recvCounts[j][i]);
            call.finished.wakeAll(calls.scheduler());
        }
    }

    /** A SLOT_DATA frame: part of rank a's message to rank b here, for b's slot of the indirect area (agent). */
    void slotData(Group group, CallState call, Frame frame) {
        int i = (int) frame.a();
        int j = (int) frame.b();
        long length = frame.payload().byteSize();
        MemorySegment chunk = remote.agentChunk();
        MemorySegment.copy(frame.payload(), 0, chunk, 0, length);
        area().transfer(IoDriver.Direction.WRITE, group.vpOf(j), i * slot() + frame.c(), chunk.asSlice(0, roundUp(length)),
                IoCategory.DELIVERY_WRITE, remote.agentActor(call).meters());
        calls.locked(() -> {
            call.span.deliveredBytes += length;
            call.finished.wakeAll(calls.scheduler());
        });
    }
}
