package org.lockstep.spi.messaging;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A persistent request over any operation: each {@link #start()} asks {@code starter} for a fresh
 * request of the operation (point-to-point, or a collective's schedule), and completing that one
 * makes this inactive again. Not thread-safe: one thread uses it at a time, as MPI requires.
 */
public class PersistentOperation implements PersistentRequest {
    private final Supplier<Request> starter;
    private final String what;
    private Request current;
    private boolean freed;

    public PersistentOperation(String what, Supplier<Request> starter) {
        this.what = Objects.requireNonNull(what, "what");
        this.starter = Objects.requireNonNull(starter, "starter");
    }

    @Override
    public void start() {
        if (freed) {
            throw new LockstepException(ErrorClass.REQUEST, "persistent " + what + " was freed and cannot be started");
        }
        if (current != null) {
            throw new LockstepException(ErrorClass.REQUEST, "persistent " + what + " was started twice: it is still active"
                    + " (complete it with await or test first)");
        }
        current = starter.get();
    }

    /** The request of the current start, or null while inactive: for subclasses that act on it. */
    protected final Request current() {
        return current;
    }

    @Override
    public boolean isActive() {
        return current != null;
    }

    @Override
    public void free() {
        if (freed) {
            throw new LockstepException(ErrorClass.REQUEST, "persistent " + what + " was freed already");
        }
        freed = true;
    }

    @Override
    public Status await() {
        checkNotFreed();
        Request r = current;
        if (r == null) {
            return Status.empty();
        }
        Status s;
        try {
            s = r.await();
        } catch (LockstepException failed) {
            if (r.isComplete()) {
                current = null; // the operation completed with the error; a misuse leaves it active
            }
            throw failed;
        }
        current = null;
        return s;
    }

    @Override
    public Optional<Status> test() {
        checkNotFreed();
        Request r = current;
        if (r == null) {
            return Optional.of(Status.empty());
        }
        Optional<Status> done;
        try {
            done = r.test();
        } catch (LockstepException failed) {
            if (r.isComplete()) {
                current = null;
            }
            throw failed;
        }
        if (done.isPresent()) {
            current = null;
        }
        return done;
    }

    @Override
    public boolean isComplete() {
        Request r = current;
        return r == null || r.isComplete();
    }

    @Override
    public void cancel() {
        Request r = current;
        if (r != null) {
            r.cancel();
        }
    }

    private void checkNotFreed() {
        if (freed) {
            throw new LockstepException(ErrorClass.REQUEST, "persistent " + what + " was freed");
        }
    }
}
