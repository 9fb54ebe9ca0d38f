package org.lockstep.spi.collective;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The schedules a thread has started and not yet completed. MPI lets a rank complete its
 * non-blocking collectives in any order and call a blocking one while others are pending, and a
 * schedule only moves when someone advances it; so whoever waits on one of a rank's schedules
 * advances all of them, or two ranks each waiting on a different collective would wait for each
 * other forever. A rank's collectives are started by its thread, hence one group per thread.
 */
final class ProgressGroup {
    private static final ThreadLocal<ProgressGroup> CURRENT = ThreadLocal.withInitial(ProgressGroup::new);

    private final List<ScheduleRequest> active = new ArrayList<>();
    /** {@code active.size()}, readable without the lock: most calls find nothing to do. */
    private volatile int activeCount;
    /** Set while this group advances its members, so that a re-entrant call (from a provider's progress) returns at once. */
    private final AtomicBoolean advancing = new AtomicBoolean();

    static ProgressGroup current() {
        return CURRENT.get();
    }

    synchronized void add(ScheduleRequest request) {
        active.add(request);
        activeCount = active.size();
    }

    synchronized void remove(ScheduleRequest request) {
        active.remove(request);
        activeCount = active.size();
    }

    /** Whether {@code request} is the only schedule in flight (then it may block on its own messages). */
    synchronized boolean isOnly(ScheduleRequest request) {
        return active.size() == 1 && active.get(0) == request;
    }

    private synchronized ScheduleRequest[] snapshot() {
        return active.toArray(new ScheduleRequest[0]);
    }

    /** Advances every member but {@code except} once; returns whether any of them moved. */
    boolean advanceOthers(ScheduleRequest except) {
        if (activeCount == 0 || !advancing.compareAndSet(false, true)) {
            return false;
        }
        try {
            boolean moved = false;
            for (ScheduleRequest r : snapshot()) {
                if (r != except) {
                    moved |= r.advanceQuietly();
                }
            }
            return moved;
        } finally {
            advancing.set(false);
        }
    }
}
