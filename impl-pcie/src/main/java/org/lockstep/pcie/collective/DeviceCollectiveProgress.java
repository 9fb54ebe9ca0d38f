package org.lockstep.pcie.collective;

import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One rank's communicators that have non-blocking device collectives started: the endpoint's
 * progress duty cycle advances them ({@link #advance()}), so that they move while the rank waits
 * for anything else in the library (a receive, a blocking collective, another request), as MPI's
 * progress rule asks. Most rounds find none and cost one volatile read.
 */
public final class DeviceCollectiveProgress {
    private final CopyOnWriteArrayList<StartedDeviceCollectives> active = new CopyOnWriteArrayList<>();
    private volatile int activeCount;

    void add(StartedDeviceCollectives started) {
        active.addIfAbsent(started);
        activeCount = active.size();
    }

    void remove(StartedDeviceCollectives started) {
        active.remove(started);
        activeCount = active.size();
    }

    /** Advances every communicator's started device collectives once; returns whether any completed. */
    public boolean advance() {
        if (activeCount == 0) {
            return false;
        }
        boolean completed = false;
        for (StartedDeviceCollectives started : active) {
            completed |= started.advance();
        }
        return completed;
    }
}
