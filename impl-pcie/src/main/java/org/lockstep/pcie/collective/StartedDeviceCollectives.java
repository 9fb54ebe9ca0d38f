package org.lockstep.pcie.collective;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;

import org.lockstep.api.Request;

/**
 * One communicator's non-blocking device collectives, in the order they were started (MPI 4.1
 * §6.12: every member starts a communicator's collectives in the same order). Only the oldest
 * advances; the next begins when it is done, so every member takes the communicator's barrier
 * epochs and chunks in the same order. Whoever comes first advances them — the requests' test
 * and wait, the endpoint's progress ({@link DeviceCollectiveProgress}), a blocking collective that
 * must wait for them — one at a time; no thread of their own. A failure goes to the request of the
 * collective that failed and of every one after it (the communicator's device words are out of
 * step from there), never to whoever happened to advance them.
 */
final class StartedDeviceCollectives {
    private final CollectiveArea area;
    private final DeviceCollectiveProgress progress;
    private final ArrayDeque<DeviceCollectiveRequest> started = new ArrayDeque<>();
    /** {@code started.size()}, readable without the lock. */
    private volatile int count;
    private final AtomicBoolean advancing = new AtomicBoolean();

    StartedDeviceCollectives(CollectiveArea area, DeviceCollectiveProgress progress) {
        this.area = area;
        this.progress = progress;
    }

    /** Starts {@code operation} after those already started; it begins at once if none is left. */
    Request start(DeviceOperation operation) {
        DeviceCollectiveRequest request = new DeviceCollectiveRequest(operation, this);
        synchronized (started) {
            started.add(request);
            count = started.size();
            if (count == 1) {
                progress.add(this);
            }
        }
        advance();
        return request;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /**
     * Advances the oldest collective as far as it goes, and the next once it is done; returns
     * whether any completed. A call while another is advancing them returns at once.
     */
    boolean advance() {
        if (count == 0 || !advancing.compareAndSet(false, true)) {
            return false;
        }
        boolean completed = false;
        try {
            DeviceCollectiveRequest head;
            while ((head = oldest()) != null) {
                try {
                    if (!head.operation().advance()) {
                        return completed;
                    }
                } catch (RuntimeException e) {
                    failAll(e);
                    return true;
                }
                remove(head);
                head.complete();
                completed = true;
            }
            return completed;
        } finally {
            advancing.set(false);
        }
    }

    /** Waits until every started collective is done (a blocking collective on the communicator comes after them). */
    void drain() {
        if (count != 0) {
            area.runUntil(() -> {
                advance();
                return count == 0;
            });
        }
    }

    /** Waits until {@code request} is done, advancing the collectives before it too. */
    void await(DeviceCollectiveRequest request) {
        area.runUntil(() -> {
            advance();
            return request.isComplete();
        });
    }

    /** The transport's progress once, for a test that found its collective not done. */
    void progressTransport() {
        area.site.progress();
    }

    private DeviceCollectiveRequest oldest() {
        synchronized (started) {
            return started.peek();
        }
    }

    private void remove(DeviceCollectiveRequest request) {
        synchronized (started) {
            started.remove(request);
            count = started.size();
            if (count == 0) {
                progress.remove(this);
            }
        }
    }

    private void failAll(RuntimeException e) {
        DeviceCollectiveRequest[] all;
        synchronized (started) {
            all = started.toArray(new DeviceCollectiveRequest[0]);
            started.clear();
            count = 0;
            progress.remove(this);
        }
        for (DeviceCollectiveRequest r : all) {
            r.fail(e);
        }
    }
}
