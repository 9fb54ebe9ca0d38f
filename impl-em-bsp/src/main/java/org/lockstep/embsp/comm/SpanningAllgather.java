package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameKind;
import org.lockstep.embsp.sim.BoundaryCache;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;

import static org.lockstep.embsp.comm.CollectiveBuffers.checkLength;
import static org.lockstep.embsp.comm.CollectiveBuffers.extent;
import static org.lockstep.embsp.comm.CollectiveBuffers.max;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * Allgather(v) across real processors. Among the VPs of one processor, the single-processor
 * algorithm (the later of two does both transfers of the pair). A block from another processor
 * crosses the network once per processor: the first VP here that needs it pulls it (once its
 * owner has published it: RECORDED) and holds it; every other VP here reads it from the holder's
 * context. A VP leaves once every VP here has all blocks and every processor has pulled its own.
 * A VP may thus wait twice in one call — for an owner elsewhere, then for everyone — and be swapped
 * twice: its swap bound is 4μ, not the 2μ of one processor (the whole call still keeps within
 * the thesis's bound).
 */
final class SpanningAllgather {
    private final CallSynchronisation calls;
    private final Remote remote;

    SpanningAllgather(CallSynchronisation calls, Remote remote) {
        this.calls = calls;
        this.remote = remote;
    }

    void allgather(EmCommunicator c, String operation, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts,
                   long[] displs) {
        Vp me = c.vp();
        Group group = c.vpGroup();
        int rank = c.rank();
        int n = c.size();
        MemorySegment all = slice(recv, 0, extent(counts, displs), operation + " receive buffer");
        MemorySegment mine;
        if (send == Communicator.IN_PLACE) {
            mine = all.asSlice(displs[rank], counts[rank]);
        } else {
            checkLength(operation, counts[rank], sendBytes);
            mine = slice(send, 0, sendBytes, operation + " send buffer");
            MemorySegment.copy(mine, 0, all, displs[rank], sendBytes);
        }
        CallState call = calls.enter(c, operation);
        Location target = Location.of(me, all);
        BoundaryCache cache = calls.cacheOf(call);
        if (!target.isExternal()) {
            for (int i = 0; i < n; i++) {
                if (i != rank && group.isLocal(i)) {
                    cache.snapshotEnds(me, target.offset() + displs[i], counts[i]);
                }
            }
        }
        List<Integer> earlier = new ArrayList<>();
        calls.locked(() -> {
            call.io.messageOf(max(counts));
            // a VP may wait twice here (for a block's owner elsewhere to publish, then for everyone): two swaps, not one
            call.io.swapsOnce(me.context().swapBytes());
            call.sendBuffers[rank] = Location.of(me, mine);
            call.recvBuffers[rank] = target;
            call.recvCounts[rank] = counts.clone();
            call.recvDisplacements[rank] = displs.clone();
            earlier.addAll(call.recordedOrder);
            call.recordedOrder.add(rank);
            for (int i : earlier) {
                call.io.pull(counts[i]);
                call.io.push(counts[rank]);
            }
            for (int q = 0; q < group.otherProcessors(); q++) {
                call.io.crosses(counts[rank], remote.framePayload());
            }
            call.io.control(group.otherProcessors(), 0);
            remote.toOthers(group, Frame.of(FrameKind.RECORDED, group.key(), call.sequence, rank, 0, 0), call);
            remote.publish(group, call, rank);
        });
        Deliveries inFlight = calls.deliveries(c);
        try {
            for (int i : earlier) {
                calls.mover().readInto(me, call.sendBuffers[i], all.asSlice(displs[i], counts[i]), cache, inFlight);
                Location theirs = call.recvBuffers[i].slice(call.recvDisplacements[i][rank], call.recvCounts[i][rank]);
                checkLength(operation, call.recvCounts[i][rank], mine.byteSize());
                calls.mover().write(me, mine, theirs, cache, inFlight);
            }
        } finally {
            inFlight.drain();
        }
        // blocks from elsewhere: those already published now, the rest after one wait for their owners
        List<Integer> later = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (!group.isLocal(i) && !fetch(c, call, i, all.asSlice(displs[i], counts[i]), cache, false)) {
                later.add(i);
            }
        }
        if (!later.isEmpty()) {
            calls.await(c, call, () -> later.stream().allMatch(i -> call.span.recorded[i]), call.arrivals,
                    operation + " waiting for ranks on other real processors to publish their blocks");
            for (int i : later) {
                fetch(c, call, i, all.asSlice(displs[i], counts[i]), cache, true);
            }
        }
        calls.locked(() -> {
            call.finished.increment();
            call.finished.wakeAll(calls.scheduler());
        });
        calls.await(c, call, () -> call.finished.count() == group.localMembers()
                && call.span.servedPulls == group.localMembers() * group.otherProcessors(), call.finished,
                operation + " waiting for every rank's exchange");
        cache.overlay(me);
        calls.leave(c, call);
    }

    /**
     * Rank {@code i}'s block (from elsewhere) into {@code into}, without giving up the partition:
     * read from the VP here that holds it, or pulled (and then held) if nobody here has it — once
     * its owner has published it; waits only for a fetch in progress, which depends on nothing.
     *
     * @return false if the owner has not published yet (and {@code published} was false)
     */
    private boolean fetch(EmCommunicator c, CallState call, int i, MemorySegment into, BoundaryCache cache, boolean published) {
        Vp me = c.vp();
        Group group = c.vpGroup();
        SpanningState span = call.span;
        int[] role = new int[1];
        calls.locked(() -> {
            if (span.holders[i] != null) {
                role[0] = READ;
            } else if (span.fetching[i]) {
                role[0] = WAIT;
            } else if (published || span.recorded[i]) {
                span.fetching[i] = true;
                role[0] = FETCH;
            } else {
                role[0] = LATER;
            }
            if (role[0] != LATER) {
                call.io.pull(into.byteSize());
            }
        });
        switch (role[0]) {
            case LATER -> {
                return false;
            }
            case FETCH -> {
                remote.pull(group, call, group.processorOf(i), PullService.SEND_BUFFER, i, 0, into);
                if (me.context().contains(into)) {
                    // the cache's copies of boundary blocks this block shares must not undo it at the overlay
                    cache.writeThrough(me.id(), me.context().offsetOf(into), into);
                }
                calls.locked(() -> {
                    span.holders[i] = Location.of(me, into);
                    span.fetched.wakeAll(calls.scheduler());
                });
                return true;
            }
            case WAIT -> calls.awaitHolding(() -> span.holders[i] != null, "allgather waiting for a VP here to fetch rank " + i + "'s block");
            default -> {
            }
        }
        Deliveries inFlight = calls.deliveries(c);
        try {
            calls.mover().readInto(me, span.holders[i], into, cache, inFlight);
        } finally {
            inFlight.drain();
        }
        return true;
    }

    private static final int READ = 0;
    private static final int WAIT = 1;
    private static final int FETCH = 2;
    private static final int LATER = 3;

    /** A RECORDED frame: rank {@code frame.a()} elsewhere has published (agent). */
    void recorded(CallState call, Frame frame) {
        calls.locked(() -> {
            int r = (int) frame.a();
            if (!call.span.recorded[r]) {
                call.span.recorded[r] = true;
                call.span.recordedElsewhere++;
            }
            call.arrivals.wakeAll(calls.scheduler());
            call.finished.wakeAll(calls.scheduler());
        });
    }
}
