package org.lockstep.embsp.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;

/**
 * Waiting and waking: a VP blocks until a {@link CompositeSignal} (or an abort, or a failure)
 * wakes it; with the sequential driver the waker evaluates the condition itself, so a thread only
 * wakes when it is dispatched. When every live VP waits and none can be woken, the program is
 * deadlocked (or waits for a VP that has failed or finished): every waiter then fails with an error
 * that lists what each was waiting for, instead of hanging. Guarded by the scheduler's lock.
 */
final class Wakeups {
    private static final int DEADLOCK_REPORT_LIMIT = 8;

    private final boolean exclusive;
    private final RunStates states;
    private final RunQueues queues;
    private Throwable firstFailure;
    private int firstFailedVp = -1;
    /** With other real processors, every VP may wait for them: a local standstill is no deadlock. */
    private boolean remoteEvents;
    private LockstepException aborted;

    Wakeups(boolean exclusive, RunStates states, RunQueues queues) {
        this.exclusive = exclusive;
        this.states = states;
        this.queues = queues;
    }

    void expectRemoteEvents() {
        remoteEvents = true;
    }

    /** Fails every wait now and later with {@code failure}; the first one given stays. */
    void abort(LockstepException failure) {
        if (aborted != null) {
            return;
        }
        aborted = failure;
        for (Vp vp : queues.all()) {
            if (vp.state == RunState.BLOCKED) {
                vp.failure = failure;
                wake(vp);
            }
        }
    }

    LockstepException aborted() {
        return aborted;
    }

    /** A VP's program ended with {@code failure} (null on success): the first one is the cause of what follows. */
    void ended(Vp vp, Throwable failure) {
        if (failure != null && firstFailure == null) {
            firstFailure = failure;
            firstFailedVp = vp.id();
        }
    }

    Throwable firstFailure() {
        return firstFailure;
    }

    int firstFailedVp() {
        return firstFailedVp;
    }

    /**
     * Wakes {@code vp} if it waits. With the sequential driver its condition is evaluated here, by
     * the waker: if it holds (or the VP failed), the VP queues to run, and its thread only wakes when
     * it is dispatched — so no thread ever acts on timing. Returns false if the VP goes on waiting
     * without having run (sequential driver, condition not yet true): then it must stay registered
     * on its signal, or the signal that makes its condition true later would find nobody to wake.
     */
    boolean wake(Vp vp) {
        if (vp.state != RunState.BLOCKED) {
            return true;
        }
        if (!exclusive) {
            states.set(vp, RunState.WOKEN);
            states.active++;
            vp.wake.signal();
            return true;
        }
        if (vp.failure != null || vp.waitCondition.getAsBoolean()) {
            queues.queueToRun(vp);
            if (queues.tokenFree()) {
                // woken by the network agent (another real processor's frame) while no VP runs: none would pass the token on
                queues.dispatch();
            }
            return true;
        }
        return false;
    }

    /** Blocks {@code vp} (lock held) until it is woken — with the sequential driver, until it is dispatched again. */
    void block(Vp vp, String what, BooleanSupplier condition) {
        states.set(vp, RunState.BLOCKED);
        vp.waitingFor = what;
        vp.waitCondition = condition;
        states.active--;
        queues.releaseToken(vp);
        checkDeadlock();
        queues.dispatch();
        while (vp.state == RunState.BLOCKED || exclusive && vp.state != RunState.RUNNING) {
            vp.wake.awaitUninterruptibly();
        }
    }

    /** If every live VP waits and none can wake another, fails each wait with what all were waiting for. */
    void checkDeadlock() {
        if (states.active > 0 || states.live == 0 || remoteEvents && firstFailure == null) {
            return;
        }
        List<Vp> blocked = new ArrayList<>();
        for (Vp vp : queues.all()) {
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
                            + "can proceed (" + states.live + " live of " + queues.all().length + "): " + waits);
            wake(vp);
        }
    }
}
