package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.embsp.sim.CallRecord;
import org.lockstep.embsp.sim.CompositeSignal;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Scheduler;
import org.lockstep.embsp.sim.Vp;
import org.lockstep.spi.collective.CollectiveEngine;

/**
 * The collectives of PEMS2 (seed 003 chapters 6–7), through the collective hook of the SPI.
 *
 * <p>Every call keeps to one rule: a VP is swapped out and in at most once per virtual
 * superstep, and only when another VP wants its partition (see {@code Scheduler}). The three
 * synchronisations of the thesis appear as: <em>initial</em> — the first VP to arrive sets the
 * call up, under the scheduler's lock, so nobody ever waits for it; <em>rooted</em> — a VP waits
 * for the root's flag, and a VP that arrives after the root does not wait at all; <em>final</em> —
 * a VP waits for a counter to reach the number of VPs. Each waits on a {@link CompositeSignal}.
 *
 * <ul>
 *   <li><b>Alltoall(v)</b> by direct delivery (§6): each receiver records where it expects each
 *       message and caches its boundary blocks while swapped in; each sender delivers the aligned
 *       interior of every message straight into the receiver's context — on disk, or in memory
 *       if the receiver is swapped in — and the unaligned ends into the cache; messages to
 *       receivers that had already recorded go at once, the others after every VP has recorded
 *       (the sender then re-reads only the blocks of those messages); α writes stay in flight;
 *       at the end each VP lays its cached blocks over its memory. No indirect area.</li>
 *   <li><b>Allgather(v)</b>: the later of two VPs does both transfers of the pair: it pulls the
 *       earlier one's block and delivers its own into the earlier one's context.</li>
 *   <li><b>Bcast, Scatter(v)</b>: rooted; every VP pulls its data from the root's context
 *       (memory or disk); the root waits until all have.</li>
 *   <li><b>Gather(v)</b>: rooted; every VP delivers into the root's context (boundary cache).</li>
 *   <li><b>Reduce, Allreduce, Reduce_scatter(_block)</b>: computed while communicating, in rank
 *       order (so the result is the same bits for every schedule and every VP): whoever holds the
 *       next contribution in line folds it, and the waiting ones after it, into an accumulator.</li>
 *   <li><b>Scan, Exscan</b>: each VP folds its own contribution when its predecessor has.</li>
 *   <li><b>Barrier</b>: a final synchronisation.</li>
 * </ul>
 *
 * <p>Reductions hold two buffers of the message size in simulator memory while they run.
 */
final class EmCollectives implements CollectiveEngine {
    private final CommWorld world;

    EmCollectives(CommWorld world) {
        this.world = world;
    }

    // ------------------------------------------------------------------ framework

    private static EmCommunicator cast(Communicator channel) {
        return (EmCommunicator) channel;
    }

    private Scheduler scheduler() {
        return world.scheduler();
    }

    private long mu() {
        return world.options().contextSize();
    }

    private long block() {
        return world.options().blockSize();
    }

    /** Joins call number {@code c.nextCollectiveSequence()} of {@code c}'s group, creating it if first. */
    private CallState enter(EmCommunicator c, String operation) {
        Vp me = c.vp();
        c.checkOpen();
        me.nextSuperstep();
        long sequence = c.nextCollectiveSequence();
        Group group = c.group();
        CallState call;
        scheduler().lock().lock();
        try {
            call = group.calls.computeIfAbsent(sequence, s -> new CallState(operation, s, group.size()));
            if (!call.operation.equals(operation)) {
                throw new LockstepException(ErrorClass.OTHER, "collective mismatch on " + group + ": rank " + c.rank()
                        + " called " + operation + " as collective call #" + sequence + ", which other ranks entered as "
                        + call.operation);
            }
            call.swapBound += 2 * me.context().swapBytes();
        } finally {
            scheduler().lock().unlock();
        }
        me.beginCall(call.meter);
        return call;
    }

    private void leave(EmCommunicator c, CallState call) {
        Vp me = c.vp();
        me.endCall();
        scheduler().lock().lock();
        try {
            if (++call.departed < call.n) {
                return;
            }
            c.group().calls.remove(call.sequence);
        } finally {
            scheduler().lock().unlock();
        }
        long misses = call.cache == null ? 0 : call.cache.misses();
        call.release();
        me.accounting().record(new CallRecord(call.operation, call.sequence, call.n, call.omega, call.meter.snapshot(),
                call.swapBound, call.deliveryBound, IoBounds.thesis(call.operation, call.n, mu(), call.omega, block()),
                misses, block(), (System.nanoTime() - call.startNanos) / 1e9));
    }

    /** Waits on {@code signal} until {@code condition}, swapping out only if the partition is wanted; then swaps in. */
    private void await(EmCommunicator c, CallState call, BooleanSupplier condition, CompositeSignal signal, String what) {
        await(c, call, condition, signal, what, world.swapIn(c.vp()));
    }

    private void await(EmCommunicator c, CallState call, BooleanSupplier condition, CompositeSignal signal, String what,
                       Runnable resume) {
        scheduler().await(c.vp(), condition, signal, what + " (collective #" + call.sequence + " on " + c.group() + ")",
                world.swapOut(c.vp()), resume);
    }

    /**
     * Rooted synchronisation: waits for the root's flag; a VP that arrives after the root does not
     * wait (or swap) at all.
     */
    private void rootedSynchronisation(EmCommunicator c, CallState call, String what) {
        await(c, call, call.rootReady::isSet, call.rootReady, what);
    }

    /** Final synchronisation: waits until every VP that must has counted itself finished. */
    private void finalSynchronisation(EmCommunicator c, CallState call, String what) {
        await(c, call, call.finished::isSet, call.finished, what);
    }

    private void locked(Runnable action) {
        scheduler().lock().lock();
        try {
            action.run();
        } finally {
            scheduler().lock().unlock();
        }
    }

    private Deliveries deliveries(EmCommunicator c) {
        return new Deliveries(c.vp().partition(), world.options().alpha());
    }

    private static void checkRoot(EmCommunicator c, int root) {
        if (root < 0 || root >= c.size()) {
            throw new LockstepException(ErrorClass.ROOT, "root " + root + " is outside [0, " + c.size() + ")");
        }
    }

    private static long bytes(Datatype type, long count) {
        if (type == null) {
            throw new LockstepException(ErrorClass.TYPE, "datatype is null");
        }
        return type.byteLength(count);
    }

    /** {@code segment}'s first {@code length} bytes, checking that it has them. */
    private static MemorySegment slice(MemorySegment segment, long offset, long length, String what) {
        if (length == 0) {
            return MemorySegment.ofArray(new byte[0]);
        }
        if (segment == null) {
            throw new LockstepException(ErrorClass.BUFFER, what + " is null for " + length + " bytes");
        }
        if (offset < 0 || offset + length > segment.byteSize()) {
            throw new LockstepException(ErrorClass.BUFFER, what + " of " + segment.byteSize() + " bytes has no room for "
                    + length + " bytes at offset " + offset);
        }
        return segment.asSlice(offset, length);
    }

    private static long[] scaled(long[] counts, Datatype type, int n, String what) {
        if (counts == null || counts.length != n) {
            throw new LockstepException(ErrorClass.COUNT, what + " must have one entry per rank (" + n + "), got "
                    + (counts == null ? "null" : counts.length));
        }
        long[] bytes = new long[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = bytes(type, counts[i]);
        }
        return bytes;
    }

    private static long[] uniform(long bytes, int n) {
        long[] counts = new long[n];
        Arrays.fill(counts, bytes);
        return counts;
    }

    private static long[] prefix(long bytes, int n) {
        long[] displacements = new long[n];
        for (int i = 0; i < n; i++) {
            displacements[i] = i * bytes;
        }
        return displacements;
    }

    private static long max(long[] values) {
        long m = 0;
        for (long x : values) {
            m = Math.max(m, x);
        }
        return m;
    }

    private static final Status COLLECTIVE_STATUS = Status.of(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0);

    // ------------------------------------------------------------------ barrier

    @Override
    public void barrier(Communicator channel) {
        EmCommunicator c = cast(channel);
        CallState call = enter(c, "barrier");
        arriveAtBarrier(call);
        await(c, call, call.arrivals::isSet, call.arrivals, "barrier");
        leave(c, call);
    }

    private void arriveAtBarrier(CallState call) {
        locked(() -> {
            if (call.arrivals.increment() == call.n) {
                call.arrivals.set(scheduler());
            }
        });
    }

    @Override
    public Request ibarrier(Communicator channel) {
        EmCommunicator c = cast(channel);
        CallState call = enter(c, "barrier");
        arriveAtBarrier(call);
        c.vp().endCall();
        return new CollectiveRequest(c, call, call.arrivals::isSet, call.arrivals, "ibarrier", () -> {
            await(c, call, call.arrivals::isSet, call.arrivals, "ibarrier");
            leave(c, call);
        });
    }

    // ------------------------------------------------------------------ bcast

    @Override
    public void bcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        EmCommunicator c = cast(channel);
        checkRoot(c, root);
        MemorySegment data = slice(buffer, 0, bytes(type, count), "bcast buffer");
        CallState call = enter(c, "bcast");
        Runnable completion = startBcast(c, call, data, root);
        completion.run();
    }

    @Override
    public Request ibcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        EmCommunicator c = cast(channel);
        checkRoot(c, root);
        MemorySegment data = slice(buffer, 0, bytes(type, count), "ibcast buffer");
        CallState call = enter(c, "bcast");
        Runnable completion = startBcast(c, call, data, root);
        c.vp().endCall();
        BooleanSupplier ready = c.rank() == root ? call.finished::isSet : call.rootReady::isSet;
        return new CollectiveRequest(c, call, ready, c.rank() == root ? call.finished : call.rootReady, "ibcast", completion);
    }

    /** The root publishes its buffer; returns what remains: the root waits for all, the others pull. */
    private Runnable startBcast(EmCommunicator c, CallState call, MemorySegment data, int root) {
        long length = data.byteSize();
        if (c.rank() == root) {
            locked(() -> {
                call.root = root;
                call.omega = length;
                call.deliveryBound = (call.n - 1L) * IoBounds.pull(length, block());
                call.rootBuffer = Location.of(c.vp(), data);
                call.rootReady.set(scheduler());
                if (call.n == 1) {
                    call.finished.set(scheduler());
                }
            });
            return () -> {
                finalSynchronisation(c, call, "bcast root waiting for every rank to read");
                leave(c, call);
            };
        }
        return () -> {
            rootedSynchronisation(c, call, "bcast waiting for root " + root);
            checkLength("bcast", call.rootBuffer.length(), length);
            Deliveries inFlight = deliveries(c);
            world.machine().mover().read(c.vp(), call.rootBuffer, data, inFlight);
            countFinished(call, call.n - 1);
            leave(c, call);
        };
    }

    private void countFinished(CallState call, int expected) {
        locked(() -> {
            if (call.finished.increment() == expected) {
                call.finished.set(scheduler());
            }
        });
    }

    private static void checkLength(String operation, long expected, long given) {
        if (expected != given) {
            throw new LockstepException(ErrorClass.COUNT, operation + ": this rank's " + given
                    + " bytes do not match the " + expected + " bytes the other side gives");
        }
    }

    // ------------------------------------------------------------------ gather

    @Override
    public void gather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        EmCommunicator c = cast(channel);
        long b = bytes(type, count);
        gatherBytes(c, "gather", send, b, recv, uniform(b, c.size()), prefix(b, c.size()), root);
    }

    @Override
    public void gatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                        long[] recvCounts, long[] displacements, int root) {
        EmCommunicator c = cast(channel);
        long[] counts = c.rank() == root ? scaled(recvCounts, type, c.size(), "gatherv recvCounts") : null;
        long[] displs = c.rank() == root ? scaled(displacements, type, c.size(), "gatherv displacements") : null;
        gatherBytes(c, "gatherv", send, bytes(type, sendCount), recv, counts, displs, root);
    }

    private void gatherBytes(EmCommunicator c, String operation, MemorySegment send, long sendBytes, MemorySegment recv,
                             long[] counts, long[] displs, int root) {
        checkRoot(c, root);
        Vp me = c.vp();
        boolean inPlace = send == Communicator.IN_PLACE;
        if (c.rank() == root) {
            long extent = 0;
            for (int i = 0; i < c.size(); i++) {
                extent = Math.max(extent, displs[i] + counts[i]);
            }
            MemorySegment all = slice(recv, 0, extent, operation + " receive buffer");
            if (!inPlace) {
                checkLength(operation, counts[root], sendBytes);
                MemorySegment.copy(slice(send, 0, sendBytes, operation + " send buffer"), 0, all, displs[root], sendBytes);
            }
            CallState call = enter(c, operation);
            Location target = Location.of(me, all);
            var cache = world.machine().newBoundaryCache();
            if (!target.isExternal()) {
                for (int i = 0; i < c.size(); i++) {
                    if (i != root) {
                        cache.snapshotEnds(me, target.offset() + displs[i], counts[i]);
                    }
                }
            }
            locked(() -> {
                call.root = root;
                call.omega = max(counts);
                long bound = 0;
                for (int i = 0; i < c.size(); i++) {
                    bound += i == root ? 0 : IoBounds.push(counts[i], block());
                }
                call.deliveryBound = bound;
                call.rootBuffer = target;
                call.rootCounts = counts.clone();
                call.rootDisplacements = displs.clone();
                call.cache = cache;
                call.rootReady.set(scheduler());
                if (call.n == 1) {
                    call.finished.set(scheduler());
                }
            });
            finalSynchronisation(c, call, operation + " root waiting for every rank's block");
            cache.overlay(me);
            leave(c, call);
            return;
        }
        MemorySegment data = slice(send, 0, sendBytes, operation + " send buffer");
        CallState call = enter(c, operation);
        rootedSynchronisation(c, call, operation + " waiting for root " + root);
        checkLength(operation, call.rootCounts[c.rank()], sendBytes);
        Deliveries inFlight = deliveries(c);
        try {
            world.machine().mover().write(me, data, call.rootBuffer.slice(call.rootDisplacements[c.rank()], sendBytes),
                    call.cache, inFlight);
        } finally {
            inFlight.drain();
        }
        countFinished(call, call.n - 1);
        leave(c, call);
    }

    // ------------------------------------------------------------------ scatter

    @Override
    public void scatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        EmCommunicator c = cast(channel);
        long b = bytes(type, count);
        scatterBytes(c, "scatter", send, uniform(b, c.size()), prefix(b, c.size()), recv, b, root);
    }

    @Override
    public void scatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                         MemorySegment recv, long recvCount, int root) {
        EmCommunicator c = cast(channel);
        long[] counts = c.rank() == root ? scaled(sendCounts, type, c.size(), "scatterv sendCounts") : null;
        long[] displs = c.rank() == root ? scaled(displacements, type, c.size(), "scatterv displacements") : null;
        scatterBytes(c, "scatterv", send, counts, displs, recv, bytes(type, recvCount), root);
    }

    private void scatterBytes(EmCommunicator c, String operation, MemorySegment send, long[] counts, long[] displs,
                              MemorySegment recv, long recvBytes, int root) {
        checkRoot(c, root);
        Vp me = c.vp();
        if (c.rank() == root) {
            long extent = 0;
            for (int i = 0; i < c.size(); i++) {
                extent = Math.max(extent, displs[i] + counts[i]);
            }
            MemorySegment all = slice(send, 0, extent, operation + " send buffer");
            if (recv != Communicator.IN_PLACE) {
                checkLength(operation, counts[root], recvBytes);
                MemorySegment.copy(all, displs[root], slice(recv, 0, recvBytes, operation + " receive buffer"), 0, recvBytes);
            }
            CallState call = enter(c, operation);
            locked(() -> {
                call.root = root;
                call.omega = max(counts);
                long bound = 0;
                for (int i = 0; i < c.size(); i++) {
                    bound += i == root ? 0 : IoBounds.pull(counts[i], block());
                }
                call.deliveryBound = bound;
                call.rootBuffer = Location.of(me, all);
                call.rootCounts = counts.clone();
                call.rootDisplacements = displs.clone();
                call.rootReady.set(scheduler());
                if (call.n == 1) {
                    call.finished.set(scheduler());
                }
            });
            finalSynchronisation(c, call, operation + " root waiting for every rank to read");
            leave(c, call);
            return;
        }
        MemorySegment data = slice(recv, 0, recvBytes, operation + " receive buffer");
        CallState call = enter(c, operation);
        rootedSynchronisation(c, call, operation + " waiting for root " + root);
        checkLength(operation, call.rootCounts[c.rank()], recvBytes);
        world.machine().mover().read(me, call.rootBuffer.slice(call.rootDisplacements[c.rank()], recvBytes), data, deliveries(c));
        countFinished(call, call.n - 1);
        leave(c, call);
    }

    // ------------------------------------------------------------------ allgather

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
        allgatherBytes(c, "allgatherv", send, bytes(type, sendCount), recv, scaled(recvCounts, type, c.size(), "allgatherv recvCounts"),
                scaled(displacements, type, c.size(), "allgatherv displacements"));
    }

    private void allgatherBytes(EmCommunicator c, String operation, MemorySegment send, long sendBytes, MemorySegment recv,
                                long[] counts, long[] displs) {
        Vp me = c.vp();
        int rank = c.rank();
        int n = c.size();
        long extent = 0;
        for (int i = 0; i < n; i++) {
            extent = Math.max(extent, displs[i] + counts[i]);
        }
        MemorySegment all = slice(recv, 0, extent, operation + " receive buffer");
        MemorySegment mine;
        if (send == Communicator.IN_PLACE) {
            mine = all.asSlice(displs[rank], counts[rank]);
        } else {
            checkLength(operation, counts[rank], sendBytes);
            mine = slice(send, 0, sendBytes, operation + " send buffer");
            MemorySegment.copy(mine, 0, all, displs[rank], sendBytes);
        }
        CallState call = enter(c, operation);
        Location target = Location.of(me, all);
        var cache = cacheOf(call);
        if (!target.isExternal()) {
            for (int i = 0; i < n; i++) {
                if (i != rank) {
                    cache.snapshotEnds(me, target.offset() + displs[i], counts[i]);
                }
            }
        }
        List<Integer> earlier = new ArrayList<>();
        locked(() -> {
            call.omega = Math.max(call.omega, max(counts));
            call.sendBuffers[rank] = Location.of(me, mine);
            call.recvBuffers[rank] = target;
            call.recvCounts[rank] = counts.clone();
            call.recvDisplacements[rank] = displs.clone();
            earlier.addAll(call.recordedOrder);
            call.recordedOrder.add(rank);
            for (int i : earlier) {
                call.deliveryBound += IoBounds.pull(counts[i], block()) + IoBounds.push(counts[rank], block());
            }
        });
        Deliveries inFlight = deliveries(c);
        try {
            for (int i : earlier) {
                world.machine().mover().readInto(me, call.sendBuffers[i], all.asSlice(displs[i], counts[i]), cache, inFlight);
                Location theirs = call.recvBuffers[i].slice(call.recvDisplacements[i][rank], call.recvCounts[i][rank]);
                checkLength(operation, call.recvCounts[i][rank], mine.byteSize());
                world.machine().mover().write(me, mine, theirs, cache, inFlight);
            }
        } finally {
            inFlight.drain();
        }
        countFinished(call, n);
        finalSynchronisation(c, call, operation + " waiting for every rank's exchange");
        cache.overlay(me);
        leave(c, call);
    }

    private org.lockstep.embsp.sim.BoundaryCache cacheOf(CallState call) {
        scheduler().lock().lock();
        try {
            if (call.cache == null) {
                call.cache = world.machine().newBoundaryCache();
            }
            return call.cache;
        } finally {
            scheduler().lock().unlock();
        }
    }

    // ------------------------------------------------------------------ alltoall

    @Override
    public void alltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        EmCommunicator c = cast(channel);
        long b = bytes(type, count);
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

    private void alltoallBytes(EmCommunicator c, String operation, MemorySegment send, long[] sendCounts, long[] sendDispls,
                               MemorySegment recv, long[] recvCounts, long[] recvDispls) {
        Vp me = c.vp();
        int rank = c.rank();
        int n = c.size();
        long recvExtent = 0;
        long sendExtent = 0;
        for (int i = 0; i < n; i++) {
            recvExtent = Math.max(recvExtent, recvDispls[i] + recvCounts[i]);
            sendExtent = Math.max(sendExtent, sendDispls[i] + sendCounts[i]);
        }
        MemorySegment recvAll = slice(recv, 0, recvExtent, operation + " receive buffer");
        MemorySegment temporary = null;
        MemorySegment sendAll;
        if (send == Communicator.IN_PLACE) {
            // the messages leave from a copy: the receive buffer fills up while they are delivered
            temporary = c.allocate(recvExtent);
            MemorySegment.copy(recvAll, 0, temporary, 0, recvExtent);
            sendAll = temporary;
        } else {
            sendAll = slice(send, 0, sendExtent, operation + " send buffer");
        }
        CallState call = enter(c, operation);
        try {
            deliverAllToAll(c, call, sendAll, sendCounts, sendDispls, recvAll, recvCounts, recvDispls);
        } finally {
            if (temporary != null) {
                c.free(temporary);
            }
        }
        leave(c, call);
    }

    private void deliverAllToAll(EmCommunicator c, CallState call, MemorySegment sendAll, long[] sendCounts, long[] sendDispls,
                                 MemorySegment recvAll, long[] recvCounts, long[] recvDispls) {
        Vp me = c.vp();
        int rank = c.rank();
        int n = c.size();
        Location myRecv = Location.of(me, recvAll);
        Location mySend = Location.of(me, sendAll);
        var cache = cacheOf(call);
        if (!myRecv.isExternal()) {
            for (int j = 0; j < n; j++) {
                cache.snapshotEnds(me, myRecv.offset() + recvDispls[j], recvCounts[j]);
            }
        }
        // the blocks a re-read of the send regions could cost, for the bound
        List<long[]> sendRanges = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            if (j != rank && sendCounts[j] > 0 && !mySend.isExternal()) {
                sendRanges.add(new long[] {mySend.offset() + sendDispls[j], mySend.offset() + sendDispls[j] + sendCounts[j]});
            }
        }
        long loanBound = blockBytes(sendRanges);
        List<Integer> earlier = new ArrayList<>();
        List<Integer> deferred = new ArrayList<>();
        locked(() -> {
            call.omega = Math.max(call.omega, Math.max(max(sendCounts), max(recvCounts)));
            call.swapBound += Math.min(loanBound, me.context().swapBytes());
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
                    call.deliveryBound += IoBounds.push(sendCounts[j], block());
                }
            }
            if (call.arrivals.increment() == n) {
                call.arrivals.set(scheduler());
            }
        });
        List<Integer> now = new ArrayList<>(earlier);
        now.add(rank);
        deliverMessages(c, call, now, sendAll, sendCounts, sendDispls, cache);
        if (!deferred.isEmpty()) {
            List<long[]> deferredRanges = new ArrayList<>();
            for (int j : deferred) {
                deferredRanges.add(new long[] {mySend.offset() + sendDispls[j], mySend.offset() + sendDispls[j] + sendCounts[j]});
            }
            Runnable reload = mySend.isExternal() ? () -> { } : () -> me.context().loan(deferredRanges, me.meters());
            await(c, call, call.arrivals::isSet, call.arrivals, "alltoallv waiting for every rank to record its receive table",
                    reload);
            deliverMessages(c, call, deferred, sendAll, sendCounts, sendDispls, cache);
        }
        countFinished(call, n);
        finalSynchronisation(c, call, "alltoallv waiting for every delivery");
        cache.overlay(me);
    }

    private void deliverMessages(EmCommunicator c, CallState call, List<Integer> receivers, MemorySegment sendAll,
                                 long[] sendCounts, long[] sendDispls, org.lockstep.embsp.sim.BoundaryCache cache) {
        int rank = c.rank();
        Deliveries inFlight = deliveries(c);
        try {
            for (int j : receivers) {
                long length = sendCounts[j];
                long expected = call.recvCounts[j][rank];
                checkLength("alltoallv message to rank " + j, expected, length);
                if (length == 0) {
                    continue;
                }
                Location target = call.recvBuffers[j].slice(call.recvDisplacements[j][rank], length);
                world.machine().mover().write(c.vp(), sendAll.asSlice(sendDispls[j], length), target, cache, inFlight);
            }
        } finally {
            inFlight.drain();
        }
    }

    /** Bytes of the blocks that cover {@code ranges}. */
    private long blockBytes(List<long[]> ranges) {
        long b = block();
        List<long[]> blocks = new ArrayList<>();
        for (long[] r : ranges) {
            blocks.add(new long[] {Math.floorDiv(r[0], b) * b, IoBounds.roundUp(r[1], b)});
        }
        blocks.sort(Comparator.comparingLong(r -> r[0]));
        long total = 0;
        long covered = Long.MIN_VALUE;
        for (long[] r : blocks) {
            long from = Math.max(r[0], covered);
            if (r[1] > from) {
                total += r[1] - from;
            }
            covered = Math.max(covered, r[1]);
        }
        return total;
    }

    // ------------------------------------------------------------------ reductions

    @Override
    public void reduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        EmCommunicator c = cast(channel);
        checkRoot(c, root);
        long length = bytes(type, count);
        boolean inPlace = send == Communicator.IN_PLACE;
        if (inPlace && c.rank() != root) {
            throw new LockstepException(ErrorClass.BUFFER, "reduce: IN_PLACE is only for the root's send buffer");
        }
        MemorySegment input = inPlace ? slice(recv, 0, length, "reduce receive buffer") : slice(send, 0, length, "reduce send buffer");
        MemorySegment output = c.rank() == root ? slice(recv, 0, length, "reduce receive buffer") : null;
        CallState call = enter(c, "reduce");
        contribute(c, call, input, count, type, op);
        int rank = c.rank();
        if (rank == root) {
            await(c, call, () -> call.combinedUpTo == call.n - 1, call.finished, "reduce root waiting for the result");
            MemorySegment.copy(call.accumulator, 0, output, 0, length);
        } else {
            await(c, call, () -> call.combinedUpTo >= rank, turnOf(call, rank), "reduce waiting for its contribution to be combined");
        }
        leave(c, call);
    }

    @Override
    public void allreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        EmCommunicator c = cast(channel);
        Runnable completion = startAllreduce(c, send, recv, count, type, op, "allreduce");
        completion.run();
    }

    @Override
    public Request iallreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        EmCommunicator c = cast(channel);
        CallState[] holder = new CallState[1];
        Runnable completion = startAllreduce(c, send, recv, count, type, op, "allreduce", holder);
        CallState call = holder[0];
        c.vp().endCall();
        return new CollectiveRequest(c, call, () -> call.combinedUpTo == call.n - 1, call.finished, "iallreduce", completion);
    }

    private Runnable startAllreduce(EmCommunicator c, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op,
                                    String operation) {
        return startAllreduce(c, send, recv, count, type, op, operation, new CallState[1]);
    }

    private Runnable startAllreduce(EmCommunicator c, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op,
                                    String operation, CallState[] holder) {
        long length = bytes(type, count);
        MemorySegment output = slice(recv, 0, length, operation + " receive buffer");
        MemorySegment input = send == Communicator.IN_PLACE ? output : slice(send, 0, length, operation + " send buffer");
        CallState call = enter(c, operation);
        holder[0] = call;
        contribute(c, call, input, count, type, op);
        return () -> {
            await(c, call, () -> call.combinedUpTo == call.n - 1, call.finished, operation + " waiting for the result");
            MemorySegment.copy(call.accumulator, 0, output, 0, length);
            leave(c, call);
        };
    }

    @Override
    public void reduceScatterBlock(Communicator channel, MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        EmCommunicator c = cast(channel);
        long[] counts = new long[c.size()];
        Arrays.fill(counts, recvCount);
        reduceScatterCounts(c, "reduce_scatter_block", send, recv, counts, type, op);
    }

    @Override
    public void reduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        EmCommunicator c = cast(channel);
        if (recvCounts == null || recvCounts.length != c.size()) {
            throw new LockstepException(ErrorClass.COUNT, "reduce_scatter recvCounts must have one entry per rank (" + c.size() + ")");
        }
        reduceScatterCounts(c, "reduce_scatter", send, recv, recvCounts, type, op);
    }

    private void reduceScatterCounts(EmCommunicator c, String operation, MemorySegment send, MemorySegment recv, long[] counts,
                                     Datatype type, Op op) {
        long total = 0;
        long before = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] < 0) {
                throw new LockstepException(ErrorClass.COUNT, operation + " count " + counts[i] + " of rank " + i + " is negative");
            }
            if (i < c.rank()) {
                before += counts[i];
            }
            total += counts[i];
        }
        long totalBytes = bytes(type, total);
        long myBytes = bytes(type, counts[c.rank()]);
        long myOffset = bytes(type, before);
        boolean inPlace = send == Communicator.IN_PLACE;
        MemorySegment input = inPlace ? slice(recv, 0, totalBytes, operation + " receive buffer")
                : slice(send, 0, totalBytes, operation + " send buffer");
        MemorySegment output = slice(recv, 0, myBytes, operation + " receive buffer");
        CallState call = enter(c, operation);
        contribute(c, call, input, total, type, op);
        await(c, call, () -> call.combinedUpTo == call.n - 1, call.finished, operation + " waiting for the result");
        MemorySegment.copy(call.accumulator, myOffset, output, 0, myBytes);
        leave(c, call);
    }

    /**
     * Adds this VP's contribution; if it is next in rank order, folds it and every waiting
     * contribution after it (read from their owners' memory or disk) into the accumulator.
     */
    private void contribute(EmCommunicator c, CallState call, MemorySegment input, long count, Datatype type, Op op) {
        Vp me = c.vp();
        int rank = c.rank();
        long length = input.byteSize();
        boolean[] combiner = new boolean[1];
        locked(() -> {
            call.ensureAccumulator(length);
            call.omega = length;
            call.deliveryBound = (call.n - 1L) * IoBounds.pull(length, block());
            call.contributions[rank] = Location.of(me, input);
            call.contributed[rank] = true;
            if (!call.combining && call.combinedUpTo + 1 < call.n && call.contributed[call.combinedUpTo + 1]) {
                call.combining = true;
                combiner[0] = true;
            }
        });
        Deliveries inFlight = deliveries(c);
        while (combiner[0]) {
            int next = call.combinedUpTo + 1;
            Location source = call.contributions[next];
            if (source.length() != length) {
                throw new LockstepException(ErrorClass.COUNT, "reduction: rank " + next + " gives " + source.length()
                        + " bytes where rank " + rank + " gives " + length);
            }
            if (next == 0) {
                world.machine().mover().read(me, source, call.accumulator, inFlight);
            } else {
                world.machine().mover().read(me, source, call.scratch, inFlight);
                op.apply(call.accumulator, call.scratch, count, type);
                call.swapAccumulator();
            }
            locked(() -> {
                call.combinedUpTo = next;
                call.turn(next).set(scheduler());
                if (next == call.n - 1) {
                    call.finished.set(scheduler());
                }
                if (!(call.combinedUpTo + 1 < call.n && call.contributed[call.combinedUpTo + 1])) {
                    call.combining = false;
                    combiner[0] = false;
                }
            });
        }
    }

    private CompositeSignal turnOf(CallState call, int rank) {
        scheduler().lock().lock();
        try {
            return call.turn(rank);
        } finally {
            scheduler().lock().unlock();
        }
    }

    @Override
    public void scan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        prefixReduction(cast(channel), "scan", send, recv, count, type, op, true);
    }

    @Override
    public void exscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        prefixReduction(cast(channel), "exscan", send, recv, count, type, op, false);
    }

    /** Waits for the predecessor (rooted on rank − 1), then folds its own contribution and takes its prefix. */
    private void prefixReduction(EmCommunicator c, String operation, MemorySegment send, MemorySegment recv, long count,
                                 Datatype type, Op op, boolean inclusive) {
        long length = bytes(type, count);
        MemorySegment output = slice(recv, 0, length, operation + " receive buffer");
        MemorySegment input = send == Communicator.IN_PLACE ? output : slice(send, 0, length, operation + " send buffer");
        CallState call = enter(c, operation);
        int rank = c.rank();
        locked(() -> {
            call.ensureAccumulator(length);
            call.omega = length;
        });
        await(c, call, () -> call.combinedUpTo == rank - 1, turnOf(call, rank), operation + " waiting for rank " + (rank - 1));
        MemorySegment.copy(input, 0, call.scratch, 0, length);
        if (!inclusive && rank > 0) {
            MemorySegment.copy(call.accumulator, 0, output, 0, length);
        }
        if (rank > 0) {
            op.apply(call.accumulator, call.scratch, count, type);
        }
        call.swapAccumulator();
        if (inclusive) {
            MemorySegment.copy(call.accumulator, 0, output, 0, length);
        }
        locked(() -> {
            call.combinedUpTo = rank;
            if (rank + 1 < call.n) {
                call.turn(rank + 1).set(scheduler());
            }
        });
        leave(c, call);
    }

    // ------------------------------------------------------------------ communicators

    /** {@code MPI_Comm_dup}: the first VP makes the group; nobody waits. */
    EmCommunicator dup(EmCommunicator c) {
        CallState call = enter(c, "dup");
        Group[] made = new Group[1];
        locked(() -> {
            if (call.dupGroup == null) {
                call.dupGroup = new Group(world.newGroupId(), c.group().members());
            }
            made[0] = call.dupGroup;
        });
        leave(c, call);
        return c.on(made[0]);
    }

    /** {@code MPI_Comm_split}: the last VP to arrive forms the groups; the others wait for it. */
    EmCommunicator split(EmCommunicator c, int color, int key) {
        if (color < 0 && color != Communicator.UNDEFINED) {
            throw new LockstepException(ErrorClass.ARG, "split color " + color + " is negative and not UNDEFINED");
        }
        CallState call = enter(c, "split");
        int rank = c.rank();
        locked(() -> {
            call.colors[rank] = color;
            call.keys[rank] = key;
            if (call.arrivals.increment() == call.n) {
                formSplitGroups(c.group(), call);
                call.arrivals.set(scheduler());
            }
        });
        await(c, call, call.arrivals::isSet, call.arrivals, "split waiting for every rank's color");
        Group mine = call.splitGroups[rank];
        leave(c, call);
        return mine == null ? null : c.on(mine);
    }

    private void formSplitGroups(Group parent, CallState call) {
        Map<Integer, List<Integer>> byColor = new LinkedHashMap<>();
        for (int r = 0; r < call.n; r++) {
            if (call.colors[r] != Communicator.UNDEFINED) {
                byColor.computeIfAbsent(call.colors[r], x -> new ArrayList<>()).add(r);
            }
        }
        call.splitGroups = new Group[call.n];
        byColor.keySet().stream().sorted().forEach(color -> {
            List<Integer> ranks = byColor.get(color);
            ranks.sort(Comparator.<Integer>comparingInt(r -> call.keys[r]).thenComparingInt(r -> r));
            int[] members = ranks.stream().mapToInt(parent::vpOf).toArray();
            Group g = new Group(world.newGroupId(), members);
            for (int r : ranks) {
                call.splitGroups[r] = g;
            }
        });
    }

    // ------------------------------------------------------------------ non-blocking collectives

    /** A non-blocking collective: started at the call, finished (its waiting part) when completed. */
    private static final class CollectiveRequest extends EmRequest {
        private final EmCommunicator comm;
        private final CallState call;
        private final BooleanSupplier ready;
        private final CompositeSignal waitOn;
        private final Runnable completion;
        private boolean finished;

        CollectiveRequest(EmCommunicator comm, CallState call, BooleanSupplier ready, CompositeSignal waitOn, String what,
                          Runnable completion) {
            super(comm.world(), comm.vp(), what);
            this.comm = comm;
            this.call = call;
            this.ready = ready;
            this.waitOn = waitOn;
            this.completion = completion;
        }

        @Override
        BooleanSupplier readiness() {
            return () -> finished || ready.getAsBoolean();
        }

        @Override
        CompositeSignal signal() {
            return waitOn;
        }

        @Override
        void finish() {
            if (finished) {
                return;
            }
            finished = true;
            comm.vp().beginCall(call.meter);
            completion.run();
            world.scheduler().lock().lock();
            try {
                complete(COLLECTIVE_STATUS);
            } finally {
                world.scheduler().lock().unlock();
            }
        }
    }
}
