package org.lockstep.embsp.sim;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The composite signal of seed 003 §4: a primitive signal (the {@link Scheduler} wakes the VPs
 * that wait on this one), a counter of the VPs that have reached a point, and a flag for an
 * arbitrary condition ("the root has finished", "every VP has recorded"). The counter and flag
 * persist, so a VP that is swapped out when the signal fires still sees it when it comes back:
 * signals are never missed, and a VP that arrives after the fact does not wait at all.
 *
 * <p>Every method must be called with the scheduler's lock held.
 */
public final class CompositeSignal {
    private int counter;
    private boolean flag;
    private final Set<Vp> waiters = new LinkedHashSet<>();

    /** Counts one more arrival; returns the new count. */
    public int increment() {
        return ++counter;
    }

    public int count() {
        return counter;
    }

    public boolean isSet() {
        return flag;
    }

    /** Sets the flag and wakes every waiter. */
    public void set(Scheduler scheduler) {
        flag = true;
        wakeAll(scheduler);
    }

    /**
     * Wakes every waiter so that it re-checks its condition (which may have changed without the
     * flag). A waiter the sequential driver leaves waiting (its condition still false) stays
     * registered: a later signal must still reach it.
     */
    public void wakeAll(Scheduler scheduler) {
        if (waiters.isEmpty()) {
            return;
        }
        List<Vp> woken = new ArrayList<>(waiters);
        waiters.clear();
        for (Vp w : woken) {
            if (!scheduler.wake(w)) {
                waiters.add(w);
            }
        }
    }

    void add(Vp vp) {
        waiters.add(vp);
    }

    void remove(Vp vp) {
        waiters.remove(vp);
    }
}
