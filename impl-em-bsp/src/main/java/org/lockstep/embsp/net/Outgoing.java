package org.lockstep.embsp.net;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

import org.lockstep.api.Request;

/** One frame on its way: posted by the agent, done when the network has taken it. */
public final class Outgoing {
    final int to;
    final MemorySegment buffer;
    final boolean pooled;
    Request request;
    private volatile boolean done;
    private volatile Thread waiter;

    Outgoing(int to, MemorySegment buffer, boolean pooled) {
        this.to = to;
        this.buffer = buffer;
        this.pooled = pooled;
    }

    public boolean isDone() {
        return done;
    }

    void markDone() {
        done = true;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    /** Parks until done or until {@code failure} says the network has failed. */
    void await(Interconnect network) {
        waiter = Thread.currentThread();
        try {
            PollingWait.until(() -> done, network::checkHealthy, this, "a frame to be sent");
        } finally {
            waiter = null;
        }
    }
}
