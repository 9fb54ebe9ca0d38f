package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

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
import static org.lockstep.embsp.comm.CollectiveBuffers.checkRoot;
import static org.lockstep.embsp.comm.CollectiveBuffers.extent;
import static org.lockstep.embsp.comm.CollectiveBuffers.max;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * The rooted collectives across real processors. The root publishes its buffer and tells the
 * other processors (ROOT_READY); the root's own processor runs the single-processor algorithm.
 * <ul>
 *   <li><b>Bcast</b>: on every other processor one VP pulls the root's message once (P−1 copies
 *       cross the network, not one per VP) and delivers it to the VPs there that wait; those that
 *       come later read it from its context. Every VP waits at most once. The root leaves once
 *       every processor has pulled.</li>
 *   <li><b>Scatter(v)</b>: each VP elsewhere pulls its own block from the root's context.</li>
 *   <li><b>Gather(v)</b>: each VP elsewhere sends its block in frames (α in flight) to the root's
 *       processor, whose agent delivers it straight into the root's context.</li>
 * </ul>
 */
final class SpanningRooted {
    private final CallSynchronisation calls;
    private final Remote remote;

    SpanningRooted(CallSynchronisation calls, Remote remote) {
        this.calls = calls;
        this.remote = remote;
    }

    /** The root's side: its buffer is published, the other processors told, waiting pulls answered (lock held). */
    private void publishRoot(EmCommunicator c, CallState call, int root, Location buffer, long[] counts, long[] displs) {
        Group group = c.vpGroup();
        call.root = root;
        call.rootBuffer = buffer;
        call.rootCounts = counts;
        call.rootDisplacements = displs;
        call.rootReady.set(calls.scheduler());
        call.io.control(group.otherProcessors(), 0);
        remote.toOthers(group, Frame.of(FrameKind.ROOT_READY, group.key(), call.sequence, root, 0, 0), call);
        remote.publish(group, call, -1);
    }

    /** Waits, swapping out if the partition is wanted, until the root's processor says the root has published. */
    private void awaitRemoteRoot(EmCommunicator c, CallState call, String operation, int root) {
        calls.await(c, call, () -> call.span.remoteRootReady.isSet() || call.span.failure != null, call.span.remoteRootReady,
                operation + " waiting for root " + root + " on real processor " + c.vpGroup().processorOf(root));
        failIfFailed(call);
    }

    private static void failIfFailed(CallState call) {
        if (call.span.failure != null) {
            throw call.span.failure;
        }
    }

    /**
     * A ROOT_READY frame (agent). A Bcast whose VPs here have all arrived and wait wakes the first
     * of them to fetch the message (see {@link #fromElsewhere}).
     */
    void rootReady(Group group, CallState call) {
        calls.locked(() -> {
            SpanningState span = call.span;
            span.remoteRootReady.set(calls.scheduler());
            if (span.fetcher < 0 && !span.waiting.isEmpty() && call.arrivals.count() == group.localMembers()) {
                span.fetcher = span.waiting.removeFirst();
                call.rootReady.wakeAll(calls.scheduler());
            }
        });
    }

    // ------------------------------------------------------------------ bcast

    void bcast(EmCommunicator c, MemorySegment data, int root) {
        Group group = c.vpGroup();
        long length = data.byteSize();
        CallState call = calls.enter(c, "bcast");
        if (c.rank() == root) {
            calls.locked(() -> {
                call.io.messageOf(length);
                call.io.eachOtherPulls(call.n, length);
                for (int q = 0; q < group.otherProcessors(); q++) {
                    call.io.crosses(length, remote.framePayload());
                }
                publishRoot(c, call, root, Location.of(c.vp(), data), null, null);
            });
            calls.await(c, call, () -> call.finished.count() == group.localMembers() - 1
                    && call.span.servedPulls == group.otherProcessors(), call.finished, "bcast root waiting for every rank to read");
            calls.leave(c, call);
            return;
        }
        if (group.isLocal(root)) {
            calls.rootedSynchronisation(c, call, "bcast waiting for root " + root);
            checkLength("bcast", call.rootBuffer.length(), length);
            calls.mover().read(c.vp(), call.rootBuffer, data, calls.deliveries(c));
            countFinished(call);
            calls.leave(c, call);
            return;
        }
        fromElsewhere(c, call, data, root);
    }

    /**
     * Bcast on a processor without the root. The root's message crosses once: one VP here, the
     * fetcher, pulls it holding its partition — only once the root has published, so that the
     * pull depends on no VP — and delivers it straight into the VPs that wait for it. Each VP
     * waits at most once, so it is swapped out and in at most once (seed 003: once per virtual
     * superstep); a VP whose turn needs a second wait would be swapped twice.
     * <ul>
     *   <li>The first VP to arrive after the root has published fetches; VPs that arrive after it
     *       has the copy read it from its context, and it waits (its only wait) until they have.</li>
     *   <li>A VP that arrives earlier registers its buffer and waits. When the root publishes after
     *       every VP here has arrived, the first of them is woken to fetch: everybody here has a
     *       buffer registered by then, so it delivers to all and leaves without a second wait.</li>
     * </ul>
     */
    private void fromElsewhere(EmCommunicator c, CallState call, MemorySegment data, int root) {
        Group group = c.vpGroup();
        Vp me = c.vp();
        int rank = c.rank();
        long length = data.byteSize();
        SpanningState span = call.span;
        BoundaryCache cache = calls.cacheOf(call);
        int[] role = new int[1];
        calls.locked(() -> {
            call.io.messageOf(length);
            call.io.eachOtherPulls(call.n, length);
            call.arrivals.increment();
            if (call.rootReady.isSet()) {
                role[0] = READ;
            } else if (span.fetcher < 0 && span.remoteRootReady.isSet()) {
                span.fetcher = rank;
                role[0] = FETCH;
            } else {
                Location buffer = Location.of(me, data);
                if (!buffer.isExternal()) {
                    // the fetcher may deliver while this VP is swapped out: its unaligned ends go to the cache
                    cache.snapshotEnds(me, buffer.offset(), length);
                }
                call.recvBuffers[rank] = buffer;
                span.waiting.add(rank);
                role[0] = WAIT;
            }
        });
        switch (role[0]) {
            case READ -> {
                checkLength("bcast", call.rootBuffer.length(), length);
                calls.mover().read(me, call.rootBuffer, data, calls.deliveries(c));
                countFinished(call);
            }
            case FETCH -> {
                fetchAndDeliver(c, call, data, root, cache);
                calls.await(c, call, () -> call.finished.count() == group.localMembers() - 1 || span.failure != null, call.finished,
                        "bcast: this processor's copy of root " + root + "'s message waiting for the VPs here to read it");
                failIfFailed(call);
            }
            default -> {
                calls.await(c, call, () -> span.delivered[rank] || span.fetcher == rank || span.failure != null, call.rootReady,
                        "bcast waiting for root " + root + "'s message from real processor " + group.processorOf(root));
                // the cached boundary blocks hold what was delivered while this VP was out (nothing, for the fetcher)
                cache.overlay(me);
                failIfFailed(call);
                if (span.fetcher == rank) {
                    fetchAndDeliver(c, call, data, root, cache);
                } else {
                    checkLength("bcast", call.rootBuffer.length(), length);
                }
            }
        }
        calls.leave(c, call);
    }

    private static final int READ = 0;
    private static final int FETCH = 1;
    private static final int WAIT = 2;

    /**
     * The fetcher's part: pulls the root's message into {@code data} (its own memory), makes it the
     * copy later VPs read, and delivers it into every waiting VP's buffer (a buffer of another
     * length gets nothing: its VP fails as a local reader would).
     */
    private void fetchAndDeliver(EmCommunicator c, CallState call, MemorySegment data, int root, BoundaryCache cache) {
        Group group = c.vpGroup();
        SpanningState span = call.span;
        try {
            remote.pull(group, call, group.processorOf(root), PullService.ROOT, root, 0, data);
        } catch (LockstepException e) {
            calls.locked(() -> {
                span.failure = e;
                call.rootReady.wakeAll(calls.scheduler());
                call.finished.wakeAll(calls.scheduler());
            });
            throw e;
        }
        java.util.List<Integer> waiting = new java.util.ArrayList<>();
        calls.locked(() -> {
            call.rootBuffer = Location.of(c.vp(), data);
            call.rootReady.set(calls.scheduler());
            waiting.addAll(span.waiting);
            span.waiting.clear();
        });
        Deliveries writes = calls.deliveries(c);
        try {
            for (int w : waiting) {
                Location buffer = call.recvBuffers[w];
                if (buffer.length() == data.byteSize()) {
                    calls.mover().write(c.vp(), data, buffer, cache, writes);
                }
            }
        } finally {
            writes.drain();
        }
        calls.locked(() -> {
            for (int w : waiting) {
                span.delivered[w] = true;
                call.finished.increment();
            }
            call.rootReady.wakeAll(calls.scheduler());
            call.finished.wakeAll(calls.scheduler());
        });
    }

    private void countFinished(CallState call) {
        calls.locked(() -> {
            call.finished.increment();
            call.finished.wakeAll(calls.scheduler());
        });
    }

    // ------------------------------------------------------------------ scatter

    void scatter(EmCommunicator c, String operation, MemorySegment send, long[] counts, long[] displs, MemorySegment recv,
                 long recvBytes, int root) {
        checkRoot(c, root);
        Group group = c.vpGroup();
        Vp me = c.vp();
        if (c.rank() == root) {
            MemorySegment all = slice(send, 0, extent(counts, displs), operation + " send buffer");
            if (recv != Communicator.IN_PLACE) {
                checkLength(operation, counts[root], recvBytes);
                MemorySegment.copy(all, displs[root], slice(recv, 0, recvBytes, operation + " receive buffer"), 0, recvBytes);
            }
            CallState call = calls.enter(c, operation);
            calls.locked(() -> {
                call.io.messageOf(max(counts));
                for (int i = 0; i < c.size(); i++) {
                    if (i != root && group.isLocal(i)) {
                        call.io.pull(counts[i]);
                    } else if (i != root) {
                        call.io.crosses(counts[i], remote.framePayload());
                    }
                }
                publishRoot(c, call, root, Location.of(me, all), counts.clone(), displs.clone());
            });
            calls.await(c, call, () -> call.finished.count() == group.localMembers() - 1
                    && call.span.servedPulls == group.remoteMembers(), call.finished, operation + " root waiting for every rank to read");
            calls.leave(c, call);
            return;
        }
        MemorySegment data = slice(recv, 0, recvBytes, operation + " receive buffer");
        CallState call = calls.enter(c, operation);
        if (group.isLocal(root)) {
            calls.rootedSynchronisation(c, call, operation + " waiting for root " + root);
            checkLength(operation, call.rootCounts[c.rank()], recvBytes);
            calls.mover().read(me, call.rootBuffer.slice(call.rootDisplacements[c.rank()], recvBytes), data, calls.deliveries(c));
            countFinished(call);
        } else {
            awaitRemoteRoot(c, call, operation, root);
            remote.pull(group, call, group.processorOf(root), PullService.ROOT_BLOCK, c.rank(), 0, data);
        }
        calls.leave(c, call);
    }

    // ------------------------------------------------------------------ gather

    void gather(EmCommunicator c, String operation, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts,
                long[] displs, int root) {
        checkRoot(c, root);
        Group group = c.vpGroup();
        Vp me = c.vp();
        if (c.rank() == root) {
            MemorySegment all = slice(recv, 0, extent(counts, displs), operation + " receive buffer");
            if (send != Communicator.IN_PLACE) {
                checkLength(operation, counts[root], sendBytes);
                MemorySegment.copy(slice(send, 0, sendBytes, operation + " send buffer"), 0, all, displs[root], sendBytes);
            }
            CallState call = calls.enter(c, operation);
            Location target = Location.of(me, all);
            BoundaryCache cache = calls.cacheOf(call);
            if (!target.isExternal()) {
                for (int i = 0; i < c.size(); i++) {
                    if (i != root) {
                        cache.snapshotEnds(me, target.offset() + displs[i], counts[i]);
                    }
                }
            }
            calls.locked(() -> {
                call.io.messageOf(max(counts));
                for (int i = 0; i < c.size(); i++) {
                    if (i != root) {
                        call.io.push(counts[i]);
                    }
                }
                publishRoot(c, call, root, target, counts.clone(), displs.clone());
            });
            calls.await(c, call, () -> call.span.failure != null || call.finished.count() == group.localMembers() - 1
                    && call.span.completeBlocks == group.remoteMembers(), call.finished, operation + " root waiting for every rank's block");
            cache.overlay(me);
            failIfFailed(call);
            calls.leave(c, call);
            return;
        }
        MemorySegment data = slice(send, 0, sendBytes, operation + " send buffer");
        CallState call = calls.enter(c, operation);
        if (group.isLocal(root)) {
            calls.rootedSynchronisation(c, call, operation + " waiting for root " + root);
            checkLength(operation, call.rootCounts[c.rank()], sendBytes);
            Deliveries inFlight = calls.deliveries(c);
            try {
                calls.mover().write(me, data, call.rootBuffer.slice(call.rootDisplacements[c.rank()], sendBytes), call.cache, inFlight);
            } finally {
                inFlight.drain();
            }
            countFinished(call);
        } else {
            awaitRemoteRoot(c, call, operation, root);
            calls.locked(() -> call.io.crosses(sendBytes, remote.framePayload()));
            SendWindow window = remote.window(call);
            remote.stream(window, group.processorOf(root), FrameKind.DATA, group, call, c.rank(), sendBytes, data);
        }
        calls.leave(c, call);
    }

    /** A DATA frame of a Gather: part of a block for the root here (agent). */
    void gathered(Group group, CallState call, Frame frame) {
        int sender = (int) frame.a();
        long total = frame.b();
        long key = sender;
        AlignedWriter writer = call.span.incoming.get(key);
        if (writer == null) {
            long[] expected = new long[1];
            Location[] place = new Location[1];
            calls.locked(() -> {
                expected[0] = call.rootCounts[sender];
                place[0] = call.rootBuffer.slice(call.rootDisplacements[sender], Math.min(total, expected[0]));
            });
            if (total != expected[0]) {
                calls.locked(() -> {
                    call.span.failure = new LockstepException(ErrorClass.COUNT, call.operation + ": rank " + sender + " sends "
                            + total + " bytes where the root expects " + call.rootCounts[sender]);
                    call.finished.wakeAll(calls.scheduler());
                });
                return;
            }
            writer = new AlignedWriter(place[0], calls.block(), call.cache);
            call.span.incoming.put(key, writer);
        }
        if (call.span.failure != null) {
            return;
        }
        Deliveries writes = remote.agentDeliveries();
        try {
            writer.accept(frame.c(), frame.payload(), remote.agentScratch(), calls.mover(), remote.agentActor(call), writes);
        } finally {
            writes.drain();
        }
        if (writer.complete()) {
            AlignedWriter done = writer;
            calls.locked(() -> {
                call.span.incoming.remove(key, done);
                call.span.completeBlocks++;
                call.finished.wakeAll(calls.scheduler());
            });
        }
    }
}
