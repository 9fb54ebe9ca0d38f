package org.lockstep.embsp.sim;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.lockstep.api.LockstepException;
import org.lockstep.spi.messaging.ProgressAgents;

/**
 * Who runs, and the swaps that handing a partition over takes: VP t runs only while it holds
 * partition t mod k ({@link RunQueues}, the policy: id order, round after round; for the
 * sequential driver a single CPU token); VPs wait on {@link CompositeSignal}s ({@link Wakeups},
 * which also turns a standstill into an error instead of a hang); this class drives the swaps.
 *
 * <p>A VP that waits keeps its partition — and stays swapped in — as long as no other VP wants
 * that partition; the moment one does, the waiter is woken, swaps out and hands the partition
 * over. So every wait works with any number of VPs swapped in or out, and a wait whose condition
 * already holds costs nothing.
 *
 * <p>All state is guarded by one lock, which collectives also use for their own shared state
 * ({@link #lock()}); no I/O is ever done while it is held.
 */
public final class Scheduler {
    private final ReentrantLock lock = new ReentrantLock();
    private final boolean exclusive;
    private final RunStates states = new RunStates();
    private final RunQueues queues;
    private final Wakeups wakeups;

    public Scheduler(int partitions, boolean exclusive) {
        this.exclusive = exclusive;
        this.queues = new RunQueues(partitions, exclusive, states, this::wake);
        this.wakeups = new Wakeups(exclusive, states, queues);
    }

    /** The VPs this scheduler runs; each starts counted as active until it first waits. */
    void register(Vp[] all) {
        lock.lock();
        try {
            queues.register(all);
            states.register(all.length);
        } finally {
            lock.unlock();
        }
    }

    public Condition newCondition() {
        return lock.newCondition();
    }

    /** The lock that guards scheduling and the shared state of collectives. */
    public ReentrantLock lock() {
        return lock;
    }

    public boolean exclusive() {
        return exclusive;
    }

    /**
     * Other real processors take part: their frames can end any wait, so a standstill of the VPs
     * here is not reported as a deadlock (a failure still is).
     */
    public void expectRemoteEvents() {
        lock.lock();
        try {
            wakeups.expectRemoteEvents();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Fails every wait now and later with {@code failure} (another real processor failed, or the
     * network did): nothing a VP waits for can come any more.
     */
    public void abort(LockstepException failure) {
        lock.lock();
        try {
            wakeups.abort(failure);
        } finally {
            lock.unlock();
        }
    }

    /** The failure {@link #abort} was given, or null. */
    public LockstepException aborted() {
        lock.lock();
        try {
            return wakeups.aborted();
        } finally {
            lock.unlock();
        }
    }

    /** The first failure a VP ended with, in time order (the cause; later ones are its consequences), or null. */
    public Throwable firstFailure() {
        lock.lock();
        try {
            return wakeups.firstFailure();
        } finally {
            lock.unlock();
        }
    }

    /** The VP that failed first, or -1. */
    public int firstFailedVp() {
        lock.lock();
        try {
            return wakeups.firstFailedVp();
        } finally {
            lock.unlock();
        }
    }

    /** VPs whose program has not ended. */
    public int live() {
        lock.lock();
        try {
            return states.live;
        } finally {
            lock.unlock();
        }
    }

    /**
     * What each VP whose program has not ended is doing ("VP 1 waits in Win.unlock; VP 2 runs"),
     * for an error that says where a stopped run stood.
     */
    public String describeUnfinished() {
        lock.lock();
        try {
            StringBuilder what = new StringBuilder();
            for (Vp vp : queues.all()) {
                if (vp.state == RunState.DONE) {
                    continue;
                }
                what.append(what.isEmpty() ? "" : "; ").append("VP ").append(vp.id());
                what.append(vp.waitingFor.isEmpty() ? " runs (" + vp.state + ")" : " waits in " + vp.waitingFor);
            }
            return what.isEmpty() ? "every VP has ended" : what.toString();
        } finally {
            lock.unlock();
        }
    }

    /** Called on a VP's thread before its program: returns once it holds its partition. */
    public void begin(Vp vp) {
        lock.lock();
        try {
            ensureRunning(vp);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether {@code vp}'s program has ended (finished or failed): it will send nothing more, so a
     * wait that polls for something of it must fail rather than poll for ever (a blocked wait learns
     * it from the deadlock check, which a polling VP, counted as running, never triggers).
     */
    public boolean ended(Vp vp) {
        lock.lock();
        try {
            return vp.state == RunState.DONE;
        } finally {
            lock.unlock();
        }
    }

    /** Called on a VP's thread after its program: releases its partition; {@code failure} is null on success. */
    public void finish(Vp vp, Throwable failure) {
        lock.lock();
        try {
            if (vp.holdsPartition) {
                queues.releasePartition(vp);
            }
            queues.releaseToken(vp);
            if (vp.state != RunState.BLOCKED && vp.state != RunState.DONE) {
                states.active--;
            }
            states.set(vp, RunState.DONE);
            states.live--;
            wakeups.ended(vp, failure);
            wakeups.checkDeadlock();
            queues.dispatch();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until {@code condition} holds (evaluated under the lock), registered on {@code signal}
     * so that whoever makes the condition true can wake it. If another VP wants this VP's
     * partition meanwhile, {@code yieldHook} runs (the swap-out, outside the lock) and the partition
     * is handed over; after the wait, once the partition is back, {@code resumeHook} runs (the
     * swap-in, or a partial one). Returns with the partition held.
     *
     * @throws LockstepException if the wait can never end (deadlock, failed or finished peer)
     */
    public void await(Vp vp, BooleanSupplier condition, CompositeSignal signal, String what,
                      Runnable yieldHook, Runnable resumeHook) {
        if (ProgressAgents.present()) {
            awaitServing(vp, condition, what, yieldHook, resumeHook);
            return;
        }
        lock.lock();
        try {
            if (wakeups.aborted() != null && vp.failure == null) {
                vp.failure = wakeups.aborted();
            }
            while (vp.failure == null && !condition.getAsBoolean()) {
                if (vp.holdsPartition && queues.contended(vp)) {
                    ensureRunning(vp);
                    if (vp.failure != null || condition.getAsBoolean()) {
                        break;
                    }
                    lock.unlock();
                    try {
                        yieldHook.run();
                    } finally {
                        lock.lock();
                    }
                    releasePartition(vp);
                    continue;
                }
                if (signal != null) {
                    signal.add(vp);
                }
                try {
                    wakeups.block(vp, what, condition);
                } finally {
                    if (signal != null) {
                        signal.remove(vp);
                    }
                }
            }
            ensureRunning(vp);
            vp.waitingFor = "";
        } finally {
            lock.unlock();
        }
        resumeHook.run();
        LockstepException failure;
        lock.lock();
        try {
            failure = vp.failure;
            vp.failure = null;
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * {@link #await} for a VP whose thread has {@link ProgressAgents} (the targets of its one-sided
     * windows): they must run while it waits, which a blocked VP cannot, so it polls, letting the
     * others run at each round as {@link #yieldPoint} does, and runs its agents between rounds.
     */
    private void awaitServing(Vp vp, BooleanSupplier condition, String what, Runnable yieldHook, Runnable resumeHook) {
        LockstepException failure;
        while (true) {
            lock.lock();
            try {
                if (wakeups.aborted() != null && vp.failure == null) {
                    vp.failure = wakeups.aborted();
                }
                if (vp.failure != null || condition.getAsBoolean()) {
                    failure = vp.failure;
                    vp.failure = null;
                    vp.waitingFor = "";
                    break;
                }
                vp.waitingFor = what + " (polling)";
            } finally {
                lock.unlock();
            }
            yieldPoint(vp, yieldHook, resumeHook);
            ProgressAgents.advance();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * A point where a polling VP ({@code iprobe}, {@code test}) lets others run: if its partition
     * is wanted it swaps out and queues behind them; with the sequential driver it passes the
     * token on. Returns with the partition held.
     *
     * @throws LockstepException the run's abort ({@link #abort}), if it was aborted
     */
    public void yieldPoint(Vp vp, Runnable yieldHook, Runnable resumeHook) {
        boolean handedOver = false;
        lock.lock();
        try {
            if (wakeups.aborted() != null) {
                throw wakeups.aborted(); // a polling VP ends with the run, as a waiting one does
            }
            if (vp.holdsPartition && queues.contended(vp)) {
                lock.unlock();
                try {
                    yieldHook.run();
                } finally {
                    lock.lock();
                }
                releasePartition(vp);
                ensureRunning(vp);
                handedOver = true;
            } else if (exclusive) {
                states.set(vp, RunState.WOKEN);
                queues.releaseToken(vp);
                ensureRunning(vp);
                handedOver = true;
            }
        } finally {
            lock.unlock();
        }
        if (handedOver) {
            resumeHook.run();
        } else {
            Thread.yield();
        }
    }

    /** Wakes {@code vp} if it waits (lock held); see {@link Wakeups#wake}. */
    boolean wake(Vp vp) {
        return wakeups.wake(vp);
    }

    /** Makes {@code vp} RUNNING, with its partition (and the token): waits for them if needed. */
    private void ensureRunning(Vp vp) {
        if (vp.state == RunState.RUNNING) {
            return;
        }
        states.set(vp, RunState.READY);
        if (vp.holdsPartition && !exclusive) {
            states.set(vp, RunState.RUNNING);
            return;
        }
        queues.enqueue(vp);
        queues.dispatch();
        while (vp.state != RunState.RUNNING) {
            vp.wake.awaitUninterruptibly();
        }
    }

    /** Gives up the partition (after the swap-out); the VP stays active, wanting to run again or to wait. */
    private void releasePartition(Vp vp) {
        queues.releasePartition(vp);
        states.set(vp, RunState.WOKEN);
        queues.releaseToken(vp);
        queues.dispatch();
    }
}
