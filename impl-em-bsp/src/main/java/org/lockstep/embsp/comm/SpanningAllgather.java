package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameKind;
import org.lockstep.embsp.sim.BoundaryCache;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;

import static org.lockstep.embsp.comm.CollectiveBuffers.checkLength;
import static org.lockstep.embsp.comm.CollectiveBuffers.extent;
import static org.lockstep.embsp.comm.CollectiveBuffers.max;
import static org.lockstep.embsp.comm.CollectiveBuffers.ownBlock;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * Allgather(v) across real processors. Among the VPs of one processor, the single-processor
 * algorithm (the later of two does both transfers of the pair). A block from another processor
 * crosses the network once per processor: the first VP here that needs it pulls it (once its
 * owner has published it: RECORDED) and holds it; every other VP here reads it from the holder's
 * context. A block not yet published when a VP arrives is not waited for: the VP registers what
 * it misses and waits once, to the end. Once every VP here has arrived and every block elsewhere
 * has been published, one VP here — the fetcher: the last to arrive, or else the first that
 * misses a block, woken by the last RECORDED frame — gets every missing block and delivers it
 * straight into the contexts of the VPs that miss it (unaligned ends through the call's cache).
 * So every VP waits, and is swapped out and in, at most once: 2μ, as on one processor.
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
        MemorySegment mine = ownBlock(operation, send, sendBytes, all, counts, displs, rank);
        CallState call = calls.enter(c, operation);
        Location target = Location.of(me, all);
        BoundaryCache cache = calls.cacheOf(call);
        if (!target.isExternal()) {
            for (int i = 0; i < n; i++) {
                if (i != rank) {
                    // the fetcher may deliver blocks from elsewhere while this VP is swapped out: their ends go to the cache
                    cache.snapshotEnds(me, target.offset() + displs[i], counts[i]);
                }
            }
        }
        List<Integer> earlier = new ArrayList<>();
        calls.locked(() -> {
            call.io.messageOf(max(counts));
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
        // blocks from elsewhere published by now; the others are registered as missing, for the fetcher
        SpanningState span = call.span;
        for (int i = 0; i < n; i++) {
            if (!group.isLocal(i)) {
                int block = i;
                boolean[] missing = new boolean[1];
                calls.locked(() -> {
                    if (!span.recorded[block] && span.holders[block] == null && !span.fetching[block]) {
                        span.missing.add(new int[] {rank, block});
                        missing[0] = true;
                    }
                });
                if (!missing[0]) {
                    fetch(c, call, i, all.asSlice(displs[i], counts[i]), cache, true);
                }
            }
        }
        boolean[] fetcher = new boolean[1];
        calls.locked(() -> {
            call.finished.increment();
            fetcher[0] = claimFetcher(group, call, rank);
            call.finished.wakeAll(calls.scheduler());
        });
        if (!fetcher[0]) {
            calls.await(c, call, () -> span.fetcher == rank || span.failure != null || everyoneHasEverything(group, call),
                    call.finished, operation + " waiting for every rank's exchange");
            if (span.failure != null) {
                throw span.failure;
            }
        }
        if (span.fetcher == rank) {
            deliverMissing(c, call, all, displs, cache);
        }
        // the pulls from elsewhere depend on VPs there, which may wait for a partition held by a VP waiting so for us:
        // this wait gives the partition up when it is wanted (served pulls wake call.finished)
        calls.await(c, call, () -> everyoneHasEverything(group, call) || span.failure != null, call.finished,
                "allgather waiting for the other real processors to pull this processor's blocks");
        if (span.failure != null) {
            throw span.failure;
        }
        cache.overlay(me);
        calls.leave(c, call);
    }

    /** Whether every VP here has arrived and holds every block, and every pull from elsewhere was served (lock held). */
    private static boolean everyoneHasEverything(Group group, CallState call) {
        return call.finished.count() == group.localMembers() && call.span.missing.isEmpty()
                && call.span.servedPulls == group.localMembers() * group.otherProcessors();
    }

    /**
     * Makes {@code candidate} the fetcher if blocks are missing here, every VP here has arrived and
     * every block elsewhere is published (lock held); else the last RECORDED frame picks one.
     */
    private static boolean claimFetcher(Group group, CallState call, int candidate) {
        SpanningState span = call.span;
        if (span.fetcher >= 0 || span.missing.isEmpty() || call.finished.count() != group.localMembers()
                || span.recordedElsewhere != call.n - group.localMembers()) {
            return false;
        }
        span.fetcher = candidate;
        return true;
    }

    /**
     * The fetcher's part: for every block some VPs here miss, a copy in its own buffer (pulled, or
     * read from the holder here) that it delivers into theirs; then the waiters are woken.
     */
    private void deliverMissing(EmCommunicator c, CallState call, MemorySegment all, long[] displs, BoundaryCache cache) {
        int rank = c.rank();
        SpanningState span = call.span;
        List<int[]> missing = new ArrayList<>();
        calls.locked(() -> missing.addAll(span.missing));
        missing.sort((a, b) -> a[1] != b[1] ? Integer.compare(a[1], b[1]) : Integer.compare(a[0], b[0]));
        for (int[] m : missing) {
            if (m[0] == rank) {
                fetch(c, call, m[1], all.asSlice(displs[m[1]], call.recvCounts[rank][m[1]]), cache, true);
            }
        }
        Deliveries inFlight = calls.deliveries(c);
        try {
            for (int[] m : missing) {
                int receiver = m[0];
                int block = m[1];
                if (receiver == rank) {
                    continue;
                }
                MemorySegment copy = all.asSlice(displs[block], call.recvCounts[rank][block]);
                checkLength("allgather block of rank " + block, call.recvCounts[receiver][block], copy.byteSize());
                Location theirs = call.recvBuffers[receiver].slice(call.recvDisplacements[receiver][block], copy.byteSize());
                calls.locked(() -> call.io.push(copy.byteSize()));
                calls.mover().write(c.vp(), copy, theirs, cache, inFlight);
            }
        } finally {
            inFlight.drain();
        }
        calls.locked(() -> {
            span.missing.clear();
            call.finished.wakeAll(calls.scheduler());
        });
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
    void recorded(Group group, CallState call, Frame frame) {
        calls.locked(() -> {
            int r = (int) frame.a();
            if (!call.span.recorded[r]) {
                call.span.recorded[r] = true;
                call.span.recordedElsewhere++;
            }
            if (!call.span.missing.isEmpty()) {
                claimFetcher(group, call, call.span.missing.getFirst()[0]);
            }
            call.arrivals.wakeAll(calls.scheduler());
            call.finished.wakeAll(calls.scheduler());
        });
    }
}
