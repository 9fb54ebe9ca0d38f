package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.embsp.sim.BoundaryCache;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;

import static org.lockstep.embsp.comm.CollectiveBuffers.checkLength;
import static org.lockstep.embsp.comm.CollectiveBuffers.extent;
import static org.lockstep.embsp.comm.CollectiveBuffers.max;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * Alltoall(v) by direct delivery (seed 003 §6): each receiver records where it expects each
 * message and caches its boundary blocks while swapped in; each sender delivers the aligned
 * interior of every message straight into the receiver's context — on disk, or in memory if the
 * receiver is swapped in — and the unaligned ends into the cache; messages to receivers that had
 * already recorded go at once, the others after every VP has recorded (the sender then re-reads
 * only the blocks of those messages); α writes stay in flight; at the end each VP lays its cached
 * blocks over its memory. No indirect area.
 */
final class Alltoall {
    private final CallSynchronisation calls;

    Alltoall(CallSynchronisation calls) {
        this.calls = calls;
    }

    void alltoall(EmCommunicator c, String operation, MemorySegment send, long[] sendCounts, long[] sendDispls,
                  MemorySegment recv, long[] recvCounts, long[] recvDispls) {
        long recvExtent = extent(recvCounts, recvDispls);
        MemorySegment recvAll = slice(recv, 0, recvExtent, operation + " receive buffer");
        MemorySegment temporary = null;
        MemorySegment sendAll;
        if (send == Communicator.IN_PLACE) {
            // the messages leave from a copy: the receive buffer fills up while they are delivered
            temporary = c.allocate(recvExtent);
            MemorySegment.copy(recvAll, 0, temporary, 0, recvExtent);
            sendAll = temporary;
        } else {
            sendAll = slice(send, 0, extent(sendCounts, sendDispls), operation + " send buffer");
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
        int rank = c.rank();
        int n = c.size();
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
        // the blocks a re-read of the send regions could cost, for the bound
        List<Integer> others = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            if (j != rank) {
                others.add(j);
            }
        }
        List<long[]> sendRanges = sendRanges(mySend, sendCounts, sendDispls, others);
        List<Integer> earlier = new ArrayList<>();
        List<Integer> deferred = new ArrayList<>();
        calls.locked(() -> {
            call.io.messageOf(Math.max(max(sendCounts), max(recvCounts)));
            call.io.rereads(Math.min(call.io.coveringBlocks(sendRanges), me.context().swapBytes()));
            // before any sender can see the table: a swap-out need not write what the messages will overwrite
            me.context().awaitDeliveries(receiving);
            call.recvBuffers[rank] = myRecv;
            call.recvCounts[rank] = recvCounts.clone();
            call.recvDisplacements[rank] = recvDispls.clone();
            earlier.addAll(call.recordedOrder);
            call.recordedOrder.add(rank);
            boolean[] recorded = new boolean[n];
            for (int j : call.recordedOrder) {
                recorded[j] = true;
            }
            for (int j = 0; j < n; j++) {
                if (!recorded[j] && sendCounts[j] > 0) {
                    deferred.add(j);
                }
                if (j != rank) {
                    call.io.push(sendCounts[j]);
                }
            }
            if (call.arrivals.increment() == n) {
                call.arrivals.set(calls.scheduler());
            }
        });
        // what is sent before the wait: the rest leaves after it, from a loan that reads it again
        List<Integer> now = new ArrayList<>(earlier);
        now.add(rank);
        me.context().expectReads(sendRanges(mySend, sendCounts, sendDispls, now));
        try {
            deliverAndWait(c, call, earlier, deferred, mySend, sendAll, sendCounts, sendDispls, cache);
        } finally {
            me.context().endDeliveries();
        }
        cache.overlay(me);
        // the program reads what it received next
        me.context().expectReads(receiving);
    }

    /** Delivers to the receivers that recorded first at once, to the others once every VP has recorded; waits for every delivery. */
    private void deliverAndWait(EmCommunicator c, CallState call, List<Integer> earlier, List<Integer> deferred, Location mySend,
                                MemorySegment sendAll, long[] sendCounts, long[] sendDispls, BoundaryCache cache) {
        Vp me = c.vp();
        int n = c.size();
        List<Integer> now = new ArrayList<>(earlier);
        now.add(c.rank());
        deliver(c, call, now, sendAll, sendCounts, sendDispls, cache);
        if (!deferred.isEmpty()) {
            List<long[]> deferredRanges = sendRanges(mySend, sendCounts, sendDispls, deferred);
            Runnable reload = mySend.isExternal() ? () -> { } : () -> me.context().loan(deferredRanges, me.meters());
            calls.await(c, call, call.arrivals::isSet, call.arrivals, "alltoallv waiting for every rank to record its receive table",
                    reload);
            deliver(c, call, deferred, sendAll, sendCounts, sendDispls, cache);
        }
        calls.countFinished(call, n);
        calls.finalSynchronisation(c, call, "alltoallv waiting for every delivery");
    }

    /** The {start, end} context ranges of the messages to {@code receivers} that are not empty (none from external memory). */
    private static List<long[]> sendRanges(Location mySend, long[] sendCounts, long[] sendDispls, List<Integer> receivers) {
        List<long[]> ranges = new ArrayList<>();
        for (int j : receivers) {
            if (sendCounts[j] > 0 && !mySend.isExternal()) {
                ranges.add(new long[] {mySend.offset() + sendDispls[j], mySend.offset() + sendDispls[j] + sendCounts[j]});
            }
        }
        return ranges;
    }

    private void deliver(EmCommunicator c, CallState call, List<Integer> receivers, MemorySegment sendAll, long[] sendCounts,
                         long[] sendDispls, BoundaryCache cache) {
        int rank = c.rank();
        Deliveries inFlight = calls.deliveries(c);
        try {
            for (int j : receivers) {
                long length = sendCounts[j];
                long expected = call.recvCounts[j][rank];
                checkLength("alltoallv message to rank " + j, expected, length);
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
}
