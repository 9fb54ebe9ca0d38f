package org.lockstep.tck.mutants;

import java.util.Optional;
import java.util.function.UnaryOperator;

import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;

/** Breakages of a provider's requests. */
final class RequestBreakages {
    private RequestBreakages() {
    }

    static Request broken(Request real, Object breakage) {
        return Forwarders.forward(Request.class, real, breakage);
    }

    /** The statuses it reports are changed by {@code change}. */
    static final class MapStatus {
        private final Request real;
        private final UnaryOperator<Status> change;

        MapStatus(Request real, UnaryOperator<Status> change) {
            this.real = real;
            this.change = change;
        }

        public Status await() {
            return change.apply(real.await());
        }

        public Optional<Status> test() {
            return real.test().map(change);
        }
    }

    /** A truncated completion is reported as a normal one. */
    static final class SwallowTruncation {
        private final Request real;

        SwallowTruncation(Request real) {
            this.real = real;
        }

        public Status await() {
            try {
                return real.await();
            } catch (TruncationException e) {
                return untruncated(e.status());
            }
        }

        public Optional<Status> test() {
            try {
                return real.test();
            } catch (TruncationException e) {
                return Optional.of(untruncated(e.status()));
            }
        }

        static Status untruncated(Status s) {
            return new Status(s.source(), s.tag(), s.byteCount(), false, null);
        }
    }

    /** cancel() does nothing. */
    static final class IgnoreCancel {
        IgnoreCancel(Request real) {
        }

        public void cancel() {
            // the breakage: the receive stays posted
        }
    }

    /** cancel() of a completed request turns its status into a cancelled one. */
    static final class CancelOverridesCompletion {
        private final Request real;
        private boolean cancelledAfterCompletion;

        CancelOverridesCompletion(Request real) {
            this.real = real;
        }

        public void cancel() {
            if (real.isComplete()) {
                cancelledAfterCompletion = true;
            }
            real.cancel();
        }

        public Status await() {
            Status s = real.await();
            return cancelledAfterCompletion ? Status.ofCancelled() : s;
        }

        public Optional<Status> test() {
            Optional<Status> s = real.test();
            return cancelledAfterCompletion && s.isPresent() ? Optional.of(Status.ofCancelled()) : s;
        }
    }

    /** Only the first completion call gets the real status; later ones get an empty one. */
    static final class StatusOnce {
        private final Request real;
        private boolean reported;

        StatusOnce(Request real) {
            this.real = real;
        }

        private Status once(Status s) {
            if (reported) {
                return Status.of(org.lockstep.api.Communicator.ANY_SOURCE, org.lockstep.api.Communicator.ANY_TAG, 0);
            }
            reported = true;
            return s;
        }

        public Status await() {
            return once(real.await());
        }

        public Optional<Status> test() {
            return real.test().map(this::once);
        }
    }

    /** The first test() reports completion, whether or not the operation has completed. */
    static final class TestReportsEarly {
        private final Request real;
        private final Status made;
        private boolean first = true;

        TestReportsEarly(Request real, Status made) {
            this.real = real;
            this.made = made;
        }

        public Optional<Status> test() {
            if (first) {
                first = false;
                Optional<Status> s = real.test();
                return s.isPresent() ? s : Optional.of(made);
            }
            return real.test();
        }
    }

    /** Runs {@code after} with the status the first time completion is seen. */
    static final class OnCompletion {
        private final Request real;
        private final java.util.function.Consumer<Status> after;
        private boolean done;

        OnCompletion(Request real, java.util.function.Consumer<Status> after) {
            this.real = real;
            this.after = after;
        }

        private Status seen(Status s) {
            if (!done) {
                done = true;
                after.accept(s);
            }
            return s;
        }

        public Status await() {
            return seen(real.await());
        }

        public Optional<Status> test() {
            return real.test().map(this::seen);
        }
    }

    /** Runs {@code flush} before the caller blocks on this request: in await, or once test() is being polled. */
    static final class FlushWhenWaiting {
        private static final int POLLS_BEFORE_FLUSH = 100;
        private final Request real;
        private final Runnable flush;
        private int incompleteTests;

        FlushWhenWaiting(Request real, Runnable flush) {
            this.real = real;
            this.flush = flush;
        }

        public Status await() {
            flush.run();
            return real.await();
        }

        public Optional<Status> test() {
            Optional<Status> s = real.test();
            if (s.isEmpty() && ++incompleteTests >= POLLS_BEFORE_FLUSH) {
                flush.run();
            }
            return s;
        }
    }
}
