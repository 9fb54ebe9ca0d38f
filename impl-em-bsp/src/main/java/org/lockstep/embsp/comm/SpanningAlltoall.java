package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameKind;
import org.lockstep.embsp.net.SendWindow;
import org.lockstep.embsp.sim.BoundaryCache;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;

import static org.lockstep.embsp.comm.CollectiveBuffers.checkLength;
import static org.lockstep.embsp.comm.CollectiveBuffers.extent;
import static org.lockstep.embsp.comm.CollectiveBuffers.max;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * Alltoall(v) across real processors by direct delivery (seed 003 §6 with P &gt; 1): each VP
 * records where it expects each message and tells the other processors it has (RECORDED), and
 * what it will send to their VPs (SUMMARY). Messages to VPs here go straight into their contexts
 * as on one processor; a message to a VP elsewhere that has recorded goes at once, in frames, α
 * in flight, and that processor's agent writes it straight into the receiver's context — in
 * memory if it is swapped in, else on disk, frame edges aligned, the message's unaligned ends into
 * the boundary-block cache. Every message crosses the network once, to its receiver's processor;
 * no indirect area. Messages to receivers that had not recorded wait until all have (the sender
 * then re-reads only their blocks). A processor's VPs leave once all of them have sent and every
 * message for them has arrived.
 */
final class SpanningAlltoall {
    private final CallSynchronisation calls;
    private final Remote remote;

    SpanningAlltoall(CallSynchronisation calls, Remote remote) {
        this.calls = calls;
        this.remote = remote;
    }

    void alltoall(EmCommunicator c, String operation, MemorySegment send, long[] sendCounts, long[] sendDispls,
                  MemorySegment recv, long[] recvCounts, long[] recvDispls) {
        long recvExtent = extent(recvCounts, recvDispls);
        MemorySegment recvAll = slice(recv, 0, recvExtent, operation + " receive buffer");
        MemorySegment temporary = null;
        MemorySegment sendAll;
        if (send == Communicator.IN_PLACE) {
            temporary = c.allocate(recvExtent);
            MemorySegment.copy(recvAll, 0, temporary, 0, recvExtent);
            sendAll = temporary;
        } else {
            sendAll = slice(send, 0, extent(sendCounts, sendDispls), operation + " send buffer");
        }
        if ((long) c.size() * Long.BYTES > remote.framePayload()) {
            throw new LockstepException(ErrorClass.ARG, operation + " across real processors needs " + c.size() * 8L
                    + " bytes of summary in one frame; raise lockstep.embsp.frame above " + remote.framePayload());
        }
        CallState call = calls.enter(c, operation);
        try {
            deliverAll(c, call, sendAll, sendCounts, sendDispls, recvAll, recvCounts, recvDispls);
        } finally {
            if (temporary != null) {
                c.free(temporary);
            }
        }
        calls.leave(c, call);
    }

    private void deliverAll(EmCommunicator c, CallState call, MemorySegment sendAll, long[] sendCounts, long[] sendDispls,
                            MemorySegment recvAll, long[] recvCounts, long[] recvDispls) {
        Vp me = c.vp();
        Group group = c.vpGroup();
        int rank = c.rank();
        int n = c.size();
        SpanningState span = call.span;
        Location myRecv = Location.of(me, recvAll);
        Location mySend = Location.of(me, sendAll);
        BoundaryCache cache = calls.cacheOf(call);
        List<long[]> receiving = new ArrayList<>();
        if (!myRecv.isExternal()) {
            for (int j = 0; j < n; j++) {
                cache.snapshotEnds(me, myRecv.offset() + recvDispls[j], recvCounts[j]);
                receiving.add(new long[] {myRecv.offset() + recvDispls[j], myRecv.offset() + recvDispls[j] + recvCounts[j]});
            }
        }
        List<long[]> sendRanges = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            if (j != rank && sendCounts[j] > 0 && !mySend.isExternal()) {
                sendRanges.add(new long[] {mySend.offset() + sendDispls[j], mySend.offset() + sendDispls[j] + sendCounts[j]});
            }
        }
        List<Integer> now = new ArrayList<>();
        List<Integer> deferred = new ArrayList<>();
        calls.locked(() -> {
            call.io.messageOf(Math.max(max(sendCounts), max(recvCounts)));
            call.io.rereads(Math.min(call.io.coveringBlocks(sendRanges), me.context().swapBytes()));
            // before any sender here or elsewhere can see the table: a swap-out need not write what the messages will overwrite
            me.context().awaitDeliveries(receiving);
            call.recvBuffers[rank] = myRecv;
            call.recvCounts[rank] = recvCounts.clone();
            call.recvDisplacements[rank] = recvDispls.clone();
            call.recordedOrder.add(rank);
            for (int j = 0; j < n; j++) {
                boolean recorded = group.isLocal(j) ? call.recvBuffers[j] != null : span.recorded[j];
                if (recorded) {
                    now.add(j);
                } else if (sendCounts[j] > 0) {
                    deferred.add(j);
                }
                if (group.isLocal(j)) {
                    if (j != rank) {
                        call.io.push(sendCounts[j]);
                    }
                } else {
                    call.io.crosses(sendCounts[j], remote.framePayload());
                    call.io.push(recvCounts[j]);
                }
            }
            for (int i = 0; i < n; i++) {
                if (!group.isLocal(i) && span.summaries[i] != null) {
                    check(call, i, rank);
                }
            }
            call.arrivals.increment();
            call.arrivals.wakeAll(calls.scheduler());
            call.finished.wakeAll(calls.scheduler());
            call.io.control(2L * group.otherProcessors(), (long) n * Long.BYTES);
            remote.toOthers(group, Frame.of(FrameKind.RECORDED, group.key(), call.sequence, rank, 0, 0), call);
            remote.toOthers(group, Frame.of(FrameKind.SUMMARY, group.key(), call.sequence, rank, 0, 0)
                    .with(MemorySegment.ofArray(sendCounts.clone())), call);
        });
        me.context().expectReads(sendRanges);
        try {
            deliverAndWait(c, call, now, deferred, mySend, sendAll, sendCounts, sendDispls, cache);
        } finally {
            me.context().endDeliveries();
        }
        cache.overlay(me);
        // the program reads what it received next
        me.context().expectReads(receiving);
        failIfFailed(call);
    }

    /** Delivers to the receivers that have recorded at once, to the others once every VP has recorded; waits for every delivery. */
    private void deliverAndWait(EmCommunicator c, CallState call, List<Integer> now, List<Integer> deferred, Location mySend,
                                MemorySegment sendAll, long[] sendCounts, long[] sendDispls, BoundaryCache cache) {
        Vp me = c.vp();
        Group group = c.vpGroup();
        SpanningState span = call.span;
        SendWindow window = remote.window(call);
        deliver(c, call, now, sendAll, sendCounts, sendDispls, cache, window);
        if (!deferred.isEmpty()) {
            List<long[]> deferredRanges = new ArrayList<>();
            for (int j : deferred) {
                deferredRanges.add(new long[] {mySend.offset() + sendDispls[j], mySend.offset() + sendDispls[j] + sendCounts[j]});
            }
            Runnable reload = mySend.isExternal() ? () -> { } : () -> me.context().loan(deferredRanges, me.meters());
            calls.await(c, call, () -> allRecorded(group, call) || span.failure != null, call.arrivals,
                    "alltoallv waiting for every rank to record its receive table", reload);
            failIfFailed(call);
            deliver(c, call, deferred, sendAll, sendCounts, sendDispls, cache, window);
        }
        calls.locked(() -> {
            call.finished.increment();
            call.finished.wakeAll(calls.scheduler());
        });
        calls.await(c, call, () -> span.failure != null || call.finished.count() == group.localMembers() && allRecorded(group, call)
                && span.summariesReceived == group.remoteMembers() && span.deliveredBytes == expectedIncoming(group, call),
                call.finished, "alltoallv waiting for every delivery");
    }

    private static boolean allRecorded(Group group, CallState call) {
        return call.arrivals.count() == group.localMembers() && call.span.recordedElsewhere == group.remoteMembers();
    }

    /** Bytes the VPs here expect from elsewhere (every VP here has recorded). */
    private static long expectedIncoming(Group group, CallState call) {
        long total = 0;
        for (int j = 0; j < group.size(); j++) {
            if (group.isLocal(j)) {
                for (int i = 0; i < group.size(); i++) {
                    if (!group.isLocal(i)) {
                        total += call.recvCounts[j][i];
                    }
                }
            }
        }
        return total;
    }

    private static void failIfFailed(CallState call) {
        if (call.span.failure != null) {
            throw call.span.failure;
        }
    }

    private void deliver(EmCommunicator c, CallState call, List<Integer> receivers, MemorySegment sendAll, long[] sendCounts,
                         long[] sendDispls, BoundaryCache cache, SendWindow window) {
        Group group = c.vpGroup();
        int rank = c.rank();
        Deliveries inFlight = calls.deliveries(c);
        try {
            for (int j : receivers) {
                long length = sendCounts[j];
                if (!group.isLocal(j)) {
                    if (length > 0) {
                        remote.stream(window, group.processorOf(j), FrameKind.DATA, group, call, rank, j,
                                sendAll.asSlice(sendDispls[j], length));
                    }
                    continue;
                }
                checkLength("alltoallv message to rank " + j, call.recvCounts[j][rank], length);
                if (length == 0) {
                    continue;
                }
                Location target = call.recvBuffers[j].slice(call.recvDisplacements[j][rank], length);
                calls.mover().write(c.vp(), sendAll.asSlice(sendDispls[j], length), target, cache, inFlight);
            }
        } finally {
            inFlight.drain();
        }
    }

    /** Whether sender {@code i}'s summary agrees with receiver {@code j}'s table; records the failure if not (lock held). */
    private void check(CallState call, int i, int j) {
        long sent = call.span.summaries[i][j];
        long expected = call.recvCounts[j][i];
        if (sent != expected && call.span.failure == null) {
            call.span.failure = new LockstepException(ErrorClass.COUNT, "alltoallv: rank " + i + " sends " + sent
                    + " bytes to rank " + j + ", which expects " + expected);
            call.arrivals.wakeAll(calls.scheduler());
            call.finished.wakeAll(calls.scheduler());
        }
    }

    /** A SUMMARY frame: what rank {@code a} elsewhere sends to each rank (agent). */
    void summary(Group group, CallState call, Frame frame) {
        int i = (int) frame.a();
        long[] lengths = frame.payload().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
        calls.locked(() -> {
            call.span.summaries[i] = lengths;
            call.span.summariesReceived++;
            for (int j = 0; j < group.size(); j++) {
                if (group.isLocal(j) && call.recvBuffers[j] != null) {
                    check(call, i, j);
                }
            }
            call.finished.wakeAll(calls.scheduler());
        });
    }

    /** A DATA frame: part of rank a's message to rank b here (agent); the receiver has recorded. */
    void data(CallState call, Frame frame) {
        int i = (int) frame.a();
        int j = (int) frame.b();
        if (call.span.failure != null) {
            return;
        }
        long key = (long) i * call.n + j;
        AlignedWriter writer = call.span.incoming.get(key);
        if (writer == null) {
            Location[] target = new Location[1];
            calls.locked(() -> target[0] = call.recvBuffers[j].slice(call.recvDisplacements[j][i], call.recvCounts[j][i]));
            writer = new AlignedWriter(target[0], calls.block(), call.cache);
            call.span.incoming.put(key, writer);
        }
        Deliveries writes = remote.agentDeliveries();
        long placed;
        try {
            placed = writer.accept(frame.c(), frame.payload(), remote.agentScratch(), calls.mover(), remote.agentActor(call), writes);
        } finally {
            writes.drain();
        }
        boolean complete = writer.complete();
        if (complete) {
            call.span.incoming.remove(key);
        }
        calls.locked(() -> {
            call.span.deliveredBytes += placed;
            call.finished.wakeAll(calls.scheduler());
        });
    }
}
