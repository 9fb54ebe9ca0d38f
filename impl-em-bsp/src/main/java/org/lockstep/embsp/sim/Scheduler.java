package org.lockstep.embsp.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.spi.messaging.ProgressAgents;

/**
 * Who runs: the k partition locks of seed 003 §4 (VP t runs only while it holds partition
 * t mod k, so at most k VPs run at once), granted in VP id order round after round; the
 * waiting of VPs on {@link CompositeSignal}s, swapping out only when necessary; and, for the
 * sequential driver, a single CPU token so that exactly one VP runs, chosen by id.
 *
 * <p>A VP that waits keeps its partition — and stays swapped in — as long as no other VP wants
 * that partition; the moment one does, the waiter is woken, swaps out and hands the partition
 * over. So every wait works with any number of VPs swapped in or out, and a wait whose condition
 * already holds costs nothing.
 *
 * <p>When every live VP waits and none can be woken, the program is deadlocked (or waits for a
 * VP that has failed or finished): every waiter then fails with an error that lists what each
 * was waiting for, instead of hanging.
 *
 * <p>All state is guarded by one lock, which collectives also use for their own shared state
 * ({@link #lock()}); no I/O is ever done while it is held.
 */
public final class Scheduler {
    private static final int DEADLOCK_REPORT_LIMIT = 8;

    private final ReentrantLock lock = new ReentrantLock();
    private final int partitions;
    private final boolean exclusive;
    private final int[] owner;
    private final int[] lastGranted;
    private final List<TreeSet<Integer>> queues = new ArrayList<>();
    private final TreeSet<Integer> readyHolding = new TreeSet<>();
    private Vp[] vps = new Vp[0];
    /** The id of vps[0]: a real processor simulates VPs firstVp … firstVp + v/P − 1. */
    private int firstVp;
    private int tokenHolder = -1;
    private int lastRunner = -1;
    private int active;
    private int live;
    /** VPs that are STARTING or WOKEN: the sequential driver decides only when this is 0, so its choices never depend on timing. */
    private int unsettled;
    private Throwable firstFailure;
    private int firstFailedVp = -1;
    /** With other real processors, every VP may wait for them: a local standstill is no deadlock. */
    private boolean remoteEvents;
    private LockstepException aborted;

    public Scheduler(int partitions, boolean exclusive) {
        this.partitions = partitions;
        this.exclusive = exclusive;
        this.owner = new int[partitions];
        this.lastGranted = new int[partitions];
        for (int p = 0; p < partitions; p++) {
            owner[p] = -1;
            lastGranted[p] = -1;
            queues.add(new TreeSet<>());
        }
    }

    /** The VPs this scheduler runs; each starts counted as active until it first waits. */
    void register(Vp[] all) {
        lock.lock();
        try {
            this.vps = all.clone();
            this.firstVp = all.length == 0 ? 0 : all[0].id();
            this.active = all.length;
            this.live = all.length;
            this.unsettled = all.length;
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
            remoteEvents = true;
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
            if (aborted != null) {
                return;
            }
            aborted = failure;
            for (Vp vp : vps) {
                if (vp.state == RunState.BLOCKED) {
                    vp.failure = failure;
                    wake(vp);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The failure {@link #abort} was given, or null. */
    public LockstepException aborted() {
        lock.lock();
        try {
            return aborted;
        } finally {
            lock.unlock();
        }
    }

    /** The first failure a VP ended with, in time order (the cause; later ones are its consequences), or null. */
    public Throwable firstFailure() {
        lock.lock();
        try {
            return firstFailure;
        } finally {
            lock.unlock();
        }
    }

    /** The VP that failed first, or -1. */
    public int firstFailedVp() {
        lock.lock();
        try {
            return firstFailedVp;
        } finally {
            lock.unlock();
        }
    }

    /** VPs whose program has not ended. */
    public int live() {
        lock.lock();
        try {
            return live;
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

    /** Called on a VP's thread after its program: releases its partition; {@code failure} is null on success. */
    public void finish(Vp vp, Throwable failure) {
        lock.lock();
        try {
            if (vp.holdsPartition) {
                owner[vp.partition().index()] = -1;
                vp.holdsPartition = false;
            }
            if (tokenHolder == vp.id()) {
                tokenHolder = -1;
            }
            if (vp.state != RunState.BLOCKED && vp.state != RunState.DONE) {
                active--;
            }
            setState(vp, RunState.DONE);
            live--;
            if (failure != null && firstFailure == null) {
                firstFailure = failure;
                firstFailedVp = vp.id();
            }
            checkDeadlock();
            dispatch();
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
            awaitServing(vp, condition, yieldHook, resumeHook);
            return;
        }
        lock.lock();
        try {
            if (aborted != null && vp.failure == null) {
                vp.failure = aborted;
            }
            while (vp.failure == null && !condition.getAsBoolean()) {
                if (vp.holdsPartition && contended(vp)) {
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
                    block(vp, what, condition);
                } finally {
                    if (signal != null) {
                        signal.remove(vp);
                    }
                }
            }
            ensureRunning(vp);
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
    private void awaitServing(Vp vp, BooleanSupplier condition, Runnable yieldHook, Runnable resumeHook) {
        LockstepException failure;
        while (true) {
            lock.lock();
            try {
                if (aborted != null && vp.failure == null) {
                    vp.failure = aborted;
                }
                if (vp.failure != null || condition.getAsBoolean()) {
                    failure = vp.failure;
                    vp.failure = null;
                    break;
                }
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
     */
    public void yieldPoint(Vp vp, Runnable yieldHook, Runnable resumeHook) {
        boolean handedOver = false;
        lock.lock();
        try {
            if (vp.holdsPartition && contended(vp)) {
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
                setState(vp, RunState.WOKEN);
                tokenHolder = -1;
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

    /**
     * Wakes {@code vp} if it waits (lock held). With the sequential driver its condition is
     * evaluated here, by the waker: if it holds (or the VP failed), the VP queues to run, and its
     * thread only wakes when it is dispatched — so no thread ever acts on timing. Returns false if
     * the VP goes on waiting without having run (sequential driver, condition not yet true): then
     * it must stay registered on its signal, or the signal that makes its condition true later
     * would find nobody to wake.
     */
    boolean wake(Vp vp) {
        if (vp.state != RunState.BLOCKED) {
            return true;
        }
        if (!exclusive) {
            setState(vp, RunState.WOKEN);
            active++;
            vp.wake.signal();
            return true;
        }
        if (vp.failure != null || vp.waitCondition.getAsBoolean()) {
            queueToRun(vp);
            if (tokenHolder < 0) {
                // woken by the network agent (another real processor's frame) while no VP runs: none would pass the token on
                dispatch();
            }
            return true;
        }
        return false;
    }

    /** Sequential driver: a blocked VP is made to run, to re-check or to give up its partition. */
    private void queueToRun(Vp vp) {
        setState(vp, RunState.READY);
        active++;
        if (vp.holdsPartition) {
            readyHolding.add(vp.id());
        } else {
            queues.get(vp.partition().index()).add(vp.id());
        }
    }

    /** Changes {@code vp}'s state, counting the VPs that are not settled yet. */
    private void setState(Vp vp, RunState next) {
        boolean was = vp.state == RunState.STARTING || vp.state == RunState.WOKEN;
        boolean is = next == RunState.STARTING || next == RunState.WOKEN;
        unsettled += (is ? 1 : 0) - (was ? 1 : 0);
        vp.state = next;
    }

    /** Whether some other VP waits for {@code vp}'s partition. */
    private boolean contended(Vp vp) {
        return !queues.get(vp.partition().index()).isEmpty();
    }

    /** Makes {@code vp} RUNNING, with its partition (and the token): waits for them if needed. */
    private void ensureRunning(Vp vp) {
        if (vp.state == RunState.RUNNING) {
            return;
        }
        setState(vp, RunState.READY);
        if (vp.holdsPartition) {
            if (!exclusive) {
                setState(vp, RunState.RUNNING);
                return;
            }
            readyHolding.add(vp.id());
        } else {
            queues.get(vp.partition().index()).add(vp.id());
        }
        dispatch();
        while (vp.state != RunState.RUNNING) {
            vp.wake.awaitUninterruptibly();
        }
    }

    /** Gives up the partition (after the swap-out); the VP stays active, wanting to run again or to wait. */
    private void releasePartition(Vp vp) {
        owner[vp.partition().index()] = -1;
        vp.holdsPartition = false;
        setState(vp, RunState.WOKEN);
        if (tokenHolder == vp.id()) {
            tokenHolder = -1;
        }
        dispatch();
    }

    private void block(Vp vp, String what, BooleanSupplier condition) {
        setState(vp, RunState.BLOCKED);
        vp.waitingFor = what;
        vp.waitCondition = condition;
        active--;
        if (tokenHolder == vp.id()) {
            tokenHolder = -1;
        }
        checkDeadlock();
        dispatch();
        while (vp.state == RunState.BLOCKED || exclusive && vp.state != RunState.RUNNING) {
            vp.wake.awaitUninterruptibly();
        }
    }

    private void dispatch() {
        if (!exclusive) {
            for (int p = 0; p < partitions; p++) {
                dispatchPartition(p);
            }
            return;
        }
        for (int p = 0; p < partitions; p++) {
            if (!queues.get(p).isEmpty() && owner[p] >= 0 && vp(owner[p]).state == RunState.BLOCKED) {
                // its partition is wanted: it must run to swap out
                queueToRun(vp(owner[p]));
            }
        }
        if (tokenHolder >= 0 || unsettled > 0) {
            return;
        }
        int best = -1;
        int bestDistance = Integer.MAX_VALUE;
        Integer holding = cyclicNext(readyHolding, lastRunner + 1);
        if (holding != null) {
            best = holding;
            bestDistance = distance(holding);
        }
        for (int p = 0; p < partitions; p++) {
            if (owner[p] < 0 && !queues.get(p).isEmpty()) {
                int candidate = cyclicNext(queues.get(p), lastRunner + 1);
                int d = distance(candidate);
                if (d < bestDistance) {
                    best = candidate;
                    bestDistance = d;
                }
            }
        }
        if (best < 0) {
            return;
        }
        Vp chosen = vp(best);
        if (chosen.holdsPartition) {
            readyHolding.remove(best);
        } else {
            grantPartition(chosen);
        }
        tokenHolder = best;
        lastRunner = best;
        setState(chosen, RunState.RUNNING);
        chosen.wake.signal();
    }

    private void dispatchPartition(int p) {
        TreeSet<Integer> queue = queues.get(p);
        if (queue.isEmpty()) {
            return;
        }
        if (owner[p] < 0) {
            Vp chosen = vp(cyclicNext(queue, lastGranted[p] + 1));
            grantPartition(chosen);
            setState(chosen, RunState.RUNNING);
            chosen.wake.signal();
        } else if (vp(owner[p]).state == RunState.BLOCKED) {
            wake(vp(owner[p]));
        }
    }

    private Vp vp(int id) {
        return vps[id - firstVp];
    }

    private void grantPartition(Vp vp) {
        int p = vp.partition().index();
        queues.get(p).remove(vp.id());
        owner[p] = vp.id();
        lastGranted[p] = vp.id();
        vp.holdsPartition = true;
    }

    private int distance(int id) {
        return Math.floorMod(id - lastRunner - 1, vps.length);
    }

    private static Integer cyclicNext(TreeSet<Integer> set, int from) {
        if (set.isEmpty()) {
            return null;
        }
        Integer next = set.ceiling(from);
        return next != null ? next : set.first();
    }

    private void checkDeadlock() {
        if (active > 0 || live == 0 || remoteEvents && firstFailure == null) {
            return;
        }
        List<Vp> blocked = new ArrayList<>();
        for (Vp vp : vps) {
            if (vp.state == RunState.BLOCKED) {
                blocked.add(vp);
            }
        }
        StringBuilder waits = new StringBuilder();
        for (int i = 0; i < Math.min(DEADLOCK_REPORT_LIMIT, blocked.size()); i++) {
            Vp vp = blocked.get(i);
            waits.append(i == 0 ? "" : "; ").append("VP ").append(vp.id()).append(" in ").append(vp.waitingFor);
        }
        if (blocked.size() > DEADLOCK_REPORT_LIMIT) {
            waits.append("; and ").append(blocked.size() - DEADLOCK_REPORT_LIMIT).append(" more");
        }
        for (Vp vp : blocked) {
            vp.failure = firstFailure != null
                    ? new ProcessFailedException(ErrorClass.PROC_FAILED, firstFailedVp, "VP " + firstFailedVp + " failed ("
                            + firstFailure + "), and every remaining VP waits for something it can no longer get: " + waits)
                    : new LockstepException(ErrorClass.OTHER, "deadlock: every remaining virtual processor waits and none "
                            + "can proceed (" + live + " live of " + vps.length + "): " + waits);
            wake(vp);
        }
    }
}
