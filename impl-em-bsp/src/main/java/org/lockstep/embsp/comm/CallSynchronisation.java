package org.lockstep.embsp.comm;

import java.util.function.BooleanSupplier;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.embsp.sim.BoundaryCache;
import org.lockstep.embsp.sim.CompositeSignal;
import org.lockstep.embsp.sim.DataMover;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Scheduler;
import org.lockstep.embsp.sim.Vp;

/**
 * How a VP takes part in a collective call (seed 003 §4.2): it enters the call (the first to
 * arrive sets it up under the scheduler's lock — the <em>initial</em> synchronisation, which
 * nobody waits for), waits for the root (<em>rooted</em>: a VP that arrives after the root does
 * not wait at all) or for everyone (<em>final</em>), and leaves it (the last one out records the
 * call's I/O). Every wait is a {@link CompositeSignal} wait of the {@link Scheduler}: the VP stays
 * swapped in unless another VP wants its partition, so it is swapped out and in at most once per
 * virtual superstep.
 */
final class CallSynchronisation {
    private final CommWorld world;

    CallSynchronisation(CommWorld world) {
        this.world = world;
    }

    CommWorld world() {
        return world;
    }

    Scheduler scheduler() {
        return world.scheduler();
    }

    DataMover mover() {
        return world.machine().mover();
    }

    long block() {
        return world.options().blockSize();
    }

    /** Joins call number {@code c.nextCollectiveSequence()} of {@code c}'s group, creating it if first. */
    CallState enter(EmCommunicator c, String operation) {
        Vp me = c.vp();
        c.requireOpen();
        me.nextSuperstep();
        long sequence = c.nextCollectiveSequence();
        Group group = c.vpGroup();
        CallState call;
        scheduler().lock().lock();
        try {
            call = group.calls.computeIfAbsent(sequence, s -> new CallState(operation, s, group, block()));
            if (call.operation == null) {
                call.operation = operation;
            }
            if (!call.operation.equals(operation)) {
                throw new LockstepException(ErrorClass.OTHER, "collective mismatch on " + group + ": rank " + c.rank()
                        + " called " + operation + " as collective call #" + sequence + ", which other ranks entered as "
                        + call.operation);
            }
            call.io.group(group.key());
            call.io.swapsOnce(me.context().swapBytes());
        } finally {
            scheduler().lock().unlock();
        }
        me.beginCall(call.io.counted());
        return call;
    }

    /** Leaves the call; the last VP out drops it and records its I/O against its bound. */
    void leave(EmCommunicator c, CallState call) {
        Vp me = c.vp();
        me.endCall();
        scheduler().lock().lock();
        try {
            if (++call.departed < c.vpGroup().localMembers()) {
                return;
            }
            c.vpGroup().calls.remove(call.sequence);
        } finally {
            scheduler().lock().unlock();
        }
        if (call.span != null) {
            awaitHolding(() -> call.sending == 0, "sends of the call's value to other real processors");
        }
        long misses = call.cache == null ? 0 : call.cache.misses();
        call.release();
        me.accounting().record(call.io.record(call.operation, call.sequence, call.n, world.options().contextSize(), misses),
                call.io.counted());
    }

    /** Waits on {@code signal} until {@code condition}, swapping out only if the partition is wanted; then swaps in. */
    void await(EmCommunicator c, CallState call, BooleanSupplier condition, CompositeSignal signal, String what) {
        await(c, call, condition, signal, what, world.swapIn(c.vp()));
    }

    /** As {@link #await(EmCommunicator, CallState, BooleanSupplier, CompositeSignal, String)}, resuming with {@code resume}. */
    void await(EmCommunicator c, CallState call, BooleanSupplier condition, CompositeSignal signal, String what,
               Runnable resume) {
        scheduler().await(c.vp(), condition, signal, what + " (collective #" + call.sequence + " on " + c.vpGroup() + ")",
                world.swapOut(c.vp()), resume);
    }

    /**
     * Waits until {@code condition} holds without giving up the partition: only for what depends
     * on no VP (a fetch in progress that another VP makes, holding its own partition).
     */
    void awaitHolding(BooleanSupplier condition, String what) {
        world.awaitHolding(condition, what);
    }

    /** Rooted synchronisation: waits for the root's flag; a VP that arrives after the root does not wait (or swap) at all. */
    void rootedSynchronisation(EmCommunicator c, CallState call, String what) {
        await(c, call, call.rootReady::isSet, call.rootReady, what);
    }

    /** Final synchronisation: waits until every VP that must has counted itself finished. */
    void finalSynchronisation(EmCommunicator c, CallState call, String what) {
        await(c, call, call.finished::isSet, call.finished, what);
    }

    /** Counts this VP finished; the {@code expected}-th sets the flag of the final synchronisation. */
    void countFinished(CallState call, int expected) {
        locked(() -> {
            if (call.finished.increment() == expected) {
                call.finished.set(scheduler());
            }
        });
    }

    /** Runs {@code action} under the scheduler's lock, which guards every call's shared state. */
    void locked(Runnable action) {
        scheduler().lock().lock();
        try {
            action.run();
        } finally {
            scheduler().lock().unlock();
        }
    }

    /** The α delivery writes this VP may keep in flight. */
    Deliveries deliveries(EmCommunicator c) {
        return new Deliveries(c.vp().partition(), world.options().alpha());
    }

    /** A boundary-block cache of its own, for a call whose one receiver owns it (Gather). */
    BoundaryCache newBoundaryCache() {
        return world.machine().newBoundaryCache();
    }

    /** The call's boundary-block cache, made by the first VP that needs it. */
    BoundaryCache cacheOf(CallState call) {
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

    /** The signal of {@code rank}'s turn in a reduction. */
    CompositeSignal turnOf(CallState call, int rank) {
        scheduler().lock().lock();
        try {
            return call.turn(rank);
        } finally {
            scheduler().lock().unlock();
        }
    }
}
