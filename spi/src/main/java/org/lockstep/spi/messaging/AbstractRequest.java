package org.lockstep.spi.messaging;

import java.util.Objects;
import java.util.Optional;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.spi.collective.Schedule;

/**
 * Request bookkeeping every provider reuses: a request is pending until the transport calls
 * {@link #complete(Status)} or {@link #fail(LockstepException)}; testing and waiting drive the
 * rank's {@link ProgressEngine}. Completion is published with a volatile write so that a request
 * completed by one thread is seen complete by another.
 */
public abstract class AbstractRequest implements Request {
    private final ProgressEngine engine;
    private volatile Status status;
    private volatile LockstepException failure;
    private volatile boolean cancelRequested;

    protected AbstractRequest(ProgressEngine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /** Completes the request with {@code status} (error {@link ErrorClass#TRUNCATE} for a truncated receive). */
    protected final void complete(Status completed) {
        if (status == null && failure == null) {
            status = Objects.requireNonNull(completed, "status");
        }
    }

    /** Completes the request with an error. */
    protected final void fail(LockstepException error) {
        if (status == null && failure == null) {
            failure = Objects.requireNonNull(error, "error");
        }
    }

    @Override
    public final boolean isComplete() {
        return status != null || failure != null;
    }

    @Override
    public final Status await() {
        IdleStrategy idle = engine.newIdleStrategy();
        while (!isComplete()) {
            // The caller's non-blocking collectives keep moving while it blocks here (MPI's progress rule).
            boolean moved = engine.progress();
            moved |= Schedule.progressPending();
            idle.idle(moved);
        }
        return result();
    }

    @Override
    public final Optional<Status> test() {
        if (!isComplete()) {
            engine.progress();
            ProgressAgents.advance();
        }
        return isComplete() ? Optional.of(result()) : Optional.empty();
    }

    @Override
    public final void cancel() {
        cancelRequested = true;
        if (!isComplete() && tryCancel()) {
            complete(Status.ofCancelled());
        }
    }

    /** Whether {@link #cancel()} was called. */
    protected final boolean cancelRequested() {
        return cancelRequested;
    }

    /**
     * Withdraws the operation if it has not started to match; returns whether it was withdrawn.
     * The default cannot cancel (sends complete normally, as MPI allows).
     */
    protected boolean tryCancel() {
        return false;
    }

    /** The peer rank this request waits on, or {@code -1} for a wildcard or none. */
    public abstract int peer();

    private Status result() {
        LockstepException error = failure;
        if (error != null) {
            throw error;
        }
        Status s = status;
        if (s.error() == ErrorClass.TRUNCATE) {
            throw new TruncationException(s, truncatedLength());
        }
        return s;
    }

    /** For a truncated receive: the length of the whole message. */
    protected long truncatedLength() {
        return -1;
    }
}
