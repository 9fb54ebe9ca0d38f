package org.lockstep.spi.collective;

import java.util.Optional;

import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A started request with one step at its completion: the first wait or test that returns it
 * complete (MPI's completion) hands its status to {@link Completion}, once — a collective's unpacking
 * of a packed copy into the user's buffer ({@link #afterSuccess}), or the end of a Flight Recorder
 * event (made only while a recording wants the event, so unrecorded requests are not wrapped).
 */
final class CompletingRequest implements Request {
    /** What a request's completion records. */
    @FunctionalInterface
    interface Completion {
        /** {@code status} of the completed request, or {@code null} when it completed with an error. */
        void completed(Status status);
    }

    private final Request started;
    private Completion completion;

    CompletingRequest(Request started, Completion completion) {
        this.started = started;
        this.completion = completion;
    }

    /** {@code started}, whose successful completion runs {@code finish} (local work done once, by the completing caller). */
    static CompletingRequest afterSuccess(Request started, Runnable finish) {
        return new CompletingRequest(started, status -> {
            if (status != null) {
                finish.run();
            }
        });
    }

    @Override
    public Status await() {
        Status status;
        try {
            status = started.await();
        } catch (LockstepException failed) {
            failedIfComplete();
            throw failed;
        }
        complete(status);
        return status;
    }

    @Override
    public Optional<Status> test() {
        Optional<Status> status;
        try {
            status = started.test();
        } catch (LockstepException failed) {
            failedIfComplete();
            throw failed;
        }
        status.ifPresent(this::complete);
        return status;
    }

    private void failedIfComplete() {
        if (started.isComplete()) {
            complete(null);
        }
    }

    private void complete(Status status) {
        Completion c = completion;
        if (c != null) {
            completion = null;
            c.completed(status);
        }
    }

    @Override
    public boolean isComplete() {
        return started.isComplete();
    }

    @Override
    public void cancel() {
        started.cancel();
    }
}
