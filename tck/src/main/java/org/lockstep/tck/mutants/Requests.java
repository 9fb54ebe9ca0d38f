package org.lockstep.tck.mutants;

import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/** Requests the breakages hand out instead of the provider's. */
final class Requests {
    private static final long PARK_NANOS = 1_000_000;

    private Requests() {
    }

    /** A request that is complete from the start. */
    record Completed(Status status) implements Request {
        @Override
        public Status await() {
            return status;
        }

        @Override
        public Optional<Status> test() {
            return Optional.of(status);
        }

        @Override
        public boolean isComplete() {
            return true;
        }

        @Override
        public void cancel() {
            // complete already
        }
    }

    /** A request that never completes; waiting on it ends only by interruption. */
    static final class Never implements Request {
        @Override
        public Status await() {
            parkUntilInterrupted("a request that never completes");
            throw new IllegalStateException("unreachable");
        }

        @Override
        public Optional<Status> test() {
            return Optional.empty();
        }

        @Override
        public boolean isComplete() {
            return false;
        }

        @Override
        public void cancel() {
            // cannot be cancelled either
        }
    }

    /** Blocks until the thread is interrupted (the runner interrupts ranks it stops), then throws. */
    static void parkUntilInterrupted(String what) {
        while (!Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(PARK_NANOS);
        }
        throw new LockstepException(ErrorClass.OTHER, "interrupted while stuck in " + what);
    }

    /**
     * A request whose real operation starts only when {@link #start} is called (by a flush), when it
     * is waited for, or once it has been tested a while: until then it is simply not complete yet.
     */
    static final class Deferred implements Request {
        private static final int POLLS_BEFORE_START = 100;
        private final Supplier<Request> start;
        private final Runnable flushOthers;
        private Request real;
        private int polls;

        Deferred(Supplier<Request> start, Runnable flushOthers) {
            this.start = start;
            this.flushOthers = flushOthers;
        }

        void start() {
            if (real == null) {
                real = start.get();
            }
        }

        boolean started() {
            return real != null;
        }

        private Request real() {
            flushOthers.run();
            start();
            return real;
        }

        @Override
        public Status await() {
            return real().await();
        }

        @Override
        public Optional<Status> test() {
            if (real == null && ++polls < POLLS_BEFORE_START) {
                return Optional.empty();
            }
            return real().test();
        }

        @Override
        public boolean isComplete() {
            return real != null && real.isComplete();
        }

        @Override
        public void cancel() {
            real().cancel();
        }
    }

    /** Two requests seen as one: complete when both are, with the first's status. */
    record Both(Request first, Request second) implements Request {
        @Override
        public Status await() {
            Status s = first.await();
            second.await();
            return s;
        }

        @Override
        public Optional<Status> test() {
            Optional<Status> a = first.test();
            Optional<Status> b = second.test();
            return a.isPresent() && b.isPresent() ? a : Optional.empty();
        }

        @Override
        public boolean isComplete() {
            return first.isComplete() && second.isComplete();
        }

        @Override
        public void cancel() {
            first.cancel();
            second.cancel();
        }
    }
}
