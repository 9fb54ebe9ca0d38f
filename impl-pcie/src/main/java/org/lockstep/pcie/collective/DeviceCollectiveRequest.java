package org.lockstep.pcie.collective;

import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * The request of a non-blocking device collective: test and wait advance the communicator's
 * started device collectives ({@link StartedDeviceCollectives}) on the calling thread, up to
 * this one; the first error of the collective (or of one started before it) is thrown by both.
 */
final class DeviceCollectiveRequest implements Request {
    /** What a completed collective reports: MPI leaves source, tag and count of a collective's status undefined. */
    private static final Status COMPLETED = Status.of(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0);

    private final DeviceOperation operation;
    private final StartedDeviceCollectives started;
    private volatile boolean complete;
    private volatile RuntimeException failure;

    DeviceCollectiveRequest(DeviceOperation operation, StartedDeviceCollectives started) {
        this.operation = operation;
        this.started = started;
    }

    DeviceOperation operation() {
        return operation;
    }

    void complete() {
        complete = true;
    }

    void fail(RuntimeException e) {
        failure = e;
    }

    @Override
    public Status await() {
        if (!isComplete()) {
            started.await(this);
        }
        return result();
    }

    @Override
    public Optional<Status> test() {
        if (!isComplete()) {
            started.advance();
            if (!isComplete()) {
                // MPI's progress rule: a rank that only tests still moves its other operations
                started.progressTransport();
            }
        }
        return isComplete() ? Optional.of(result()) : Optional.empty();
    }

    @Override
    public boolean isComplete() {
        return complete || failure != null;
    }

    /** A collective cannot be withdrawn once started (MPI); it completes as usual. */
    @Override
    public void cancel() {
    }

    private Status result() {
        RuntimeException e = failure;
        if (e != null) {
            throw e;
        }
        return COMPLETED;
    }
}
