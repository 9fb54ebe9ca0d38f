package org.lockstep.spi.collective;

import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.LockstepException;
import org.lockstep.api.PartitionedRequest;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/** Requests whose errors reach their communicator's error handler ({@link ErrorHandling}) before they are thrown. */
final class HandledRequests {
    private HandledRequests() {
    }

    /** A request of a communicator with an error handler. */
    static class OfRequest implements Request {
        final ErrorHandling errors;
        private final Request started;

        OfRequest(ErrorHandling errors, Request started) {
            this.errors = errors;
            this.started = started;
        }

        @Override
        public Status await() {
            errors.begin();
            try {
                return started.await();
            } catch (LockstepException e) {
                throw errors.failed(e);
            }
        }

        @Override
        public Optional<Status> test() {
            errors.begin();
            try {
                return started.test();
            } catch (LockstepException e) {
                throw errors.failed(e);
            }
        }

        @Override
        public boolean isComplete() {
            return started.isComplete();
        }

        @Override
        public void cancel() {
            errors.begin();
            try {
                started.cancel();
            } catch (LockstepException e) {
                throw errors.failed(e);
            }
        }
    }

    /** An idup's request of a communicator with an error handler. */
    static final class OfCommunicatorRequest extends OfRequest implements CommunicatorRequest {
        private final CommunicatorRequest started;

        OfCommunicatorRequest(ErrorHandling errors, CommunicatorRequest started) {
            super(errors, started);
            this.started = started;
        }

        @Override
        public Communicator communicator() {
            errors.begin();
            try {
                return started.communicator();
            } catch (LockstepException e) {
                throw errors.failed(e);
            }
        }
    }

    /** A persistent request of a communicator with an error handler. */
    static class OfPersistent extends OfRequest implements PersistentRequest {
        private final PersistentRequest started;

        OfPersistent(ErrorHandling errors, PersistentRequest started) {
            super(errors, started);
            this.started = started;
        }

        @Override
        public void start() {
            errors.begin();
            try {
                started.start();
            } catch (LockstepException e) {
                throw errors.failed(e);
            }
        }

        @Override
        public boolean isActive() {
            return started.isActive();
        }

        @Override
        public void free() {
            errors.begin();
            try {
                started.free();
            } catch (LockstepException e) {
                throw errors.failed(e);
            }
        }
    }

    /** A partitioned request of a communicator with an error handler. */
    static final class OfPartitioned extends OfPersistent implements PartitionedRequest {
        private final PartitionedRequest started;

        OfPartitioned(ErrorHandling errors, PartitionedRequest started) {
            super(errors, started);
            this.started = started;
        }

        @Override
        public int partitions() {
            return started.partitions();
        }

        @Override
        public void pready(int partition) {
            errors.begin();
            try {
                started.pready(partition);
            } catch (LockstepException e) {
                throw errors.failed(e);
            }
        }

        @Override
        public boolean parrived(int partition) {
            errors.begin();
            try {
                return started.parrived(partition);
            } catch (LockstepException e) {
                throw errors.failed(e);
            }
        }
    }
}
