package org.lockstep.embsp.comm;

import java.util.Optional;
import java.util.function.BooleanSupplier;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.embsp.sim.CompositeSignal;
import org.lockstep.embsp.sim.Vp;
import org.lockstep.spi.messaging.ProgressAgents;

/**
 * A request of a virtual processor. Waiting on it is a superstep wait of the {@code Scheduler}:
 * the VP stays swapped in while nobody wants its partition and is swapped out otherwise; testing
 * an incomplete request is a yield point, so that polling loops let the other VPs run.
 * Completion is published under the scheduler's lock and wakes the owner's mailbox signal.
 */
class EmRequest implements Request {
    final CommWorld world;
    final Vp owner;
    private final String what;
    private Status status;
    private LockstepException failure;
    private long truncatedLength = -1;
    private Runnable canceller;

    EmRequest(CommWorld world, Vp owner, String what) {
        this.world = world;
        this.owner = owner;
        this.what = what;
    }

    /** A request that is complete already. */
    static EmRequest completed(CommWorld world, Vp owner, Status status) {
        EmRequest r = new EmRequest(world, owner, "completed");
        r.status = status;
        return r;
    }

    /** Completes it (scheduler lock held); wakes the owner. */
    void complete(Status completed) {
        if (status == null && failure == null) {
            status = completed;
            world.mailbox(owner.id()).signal().wakeAll(world.scheduler());
        }
    }

    /** Completes it with a truncated receive (scheduler lock held). */
    void completeTruncated(Status completed, long messageBytes) {
        truncatedLength = messageBytes;
        complete(completed);
    }

    /** Fails it (scheduler lock held). */
    void fail(LockstepException error) {
        if (status == null && failure == null) {
            failure = error;
            world.mailbox(owner.id()).signal().wakeAll(world.scheduler());
        }
    }

    void onCancel(Runnable action) {
        this.canceller = action;
    }

    /** Whether complete; the scheduler lock must be held or the answer may be stale. */
    boolean done() {
        return status != null || failure != null;
    }

    /** More work to do once the wait ends (collectives); the default has none. */
    void finish() {
    }

    /** The condition the wait waits for; collectives override. */
    BooleanSupplier readiness() {
        return this::done;
    }

    CompositeSignal signal() {
        return world.mailbox(owner.id()).signal();
    }

    @Override
    public Status await() {
        checkOwner();
        BooleanSupplier ready = readiness();
        world.scheduler().await(owner, ready, signal(), what, world.swapOut(owner), world.swapIn(owner));
        finish();
        return result();
    }

    @Override
    public Optional<Status> test() {
        checkOwner();
        if (!ready()) {
            world.scheduler().yieldPoint(owner, world.swapOut(owner), world.swapIn(owner));
            ProgressAgents.advance(); // a polling VP's windows are served here (see Scheduler#await)
            if (!ready()) {
                return Optional.empty();
            }
        }
        finish();
        return Optional.of(result());
    }

    private boolean ready() {
        world.scheduler().lock().lock();
        try {
            return readiness().getAsBoolean();
        } finally {
            world.scheduler().lock().unlock();
        }
    }

    @Override
    public boolean isComplete() {
        world.scheduler().lock().lock();
        try {
            return done();
        } finally {
            world.scheduler().lock().unlock();
        }
    }

    @Override
    public void cancel() {
        Runnable action = canceller;
        if (action != null) {
            action.run();
        }
    }

    private void checkOwner() {
        if (world.currentVp() != owner) {
            throw new LockstepException(ErrorClass.REQUEST, "a request of VP " + owner.id()
                    + " can only be completed by that VP's own thread");
        }
    }

    private Status result() {
        Status s;
        LockstepException f;
        world.scheduler().lock().lock();
        try {
            s = status;
            f = failure;
        } finally {
            world.scheduler().lock().unlock();
        }
        if (f != null) {
            throw f;
        }
        if (s.error() == ErrorClass.TRUNCATE) {
            throw new TruncationException(s, truncatedLength);
        }
        return s;
    }
}
