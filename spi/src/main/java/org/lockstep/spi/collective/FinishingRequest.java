package org.lockstep.spi.collective;

import java.util.Optional;

import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A collective's request whose last step is local work done once on success, when the caller
 * completes it: unpacking a packed copy into the user's buffer.
 */
final class FinishingRequest implements Request {
    private final Request inner;
    private Runnable finish;

    FinishingRequest(Request inner, Runnable finish) {
        this.inner = inner;
        this.finish = finish;
    }

    @Override
    public Status await() {
        return finished(inner.await());
    }

    @Override
    public Optional<Status> test() {
        return inner.test().map(this::finished);
    }

    private Status finished(Status status) {
        Runnable f = finish;
        if (f != null) {
            finish = null;
            f.run();
        }
        return status;
    }

    @Override
    public boolean isComplete() {
        return inner.isComplete();
    }

    @Override
    public void cancel() {
        inner.cancel();
    }
}
