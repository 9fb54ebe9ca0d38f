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
 *
 * <p>A point-to-point request knows the VP it needs ({@link #failsWhenGone}): a wait that polls
 * (a {@code test} loop, or any wait of a VP that serves windows) is running to the scheduler, so
 * its deadlock check, which fails a blocked wait on a VP that has ended, never fires; such a wait
 * fails with that error itself instead of polling for ever.
 */
class EmRequest implements Request {
    final CommWorld world;
    final Vp owner;
    private final String what;
    private Status status;
    private LockstepException failure;
    private long truncatedLength = -1;
    private Runnable canceller;
    /** The communicator and rank of the peer this request needs, if it fails when that peer's VP has ended (else null, -1). */
    private EmCommunicator peerComm;
    private int peer = -1;

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

    /** This request needs rank {@code peer} of {@code comm} (ANY_SOURCE: any other rank): it fails once that VP has ended. */
    void failsWhenGone(EmCommunicator comm, int peer) {
        this.peerComm = comm;
        this.peer = peer;
    }

    /** Under the scheduler's lock: why this request can never complete (the VP it needs has ended), or null. */
    private LockstepException whyGone() {
        return peerComm == null ? null : peerComm.goneError(peer);
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
        boolean polls = peerComm != null && ProgressAgents.present(); // this wait polls (see Scheduler#await)
        if (polls) {
            BooleanSupplier completes = ready;
            ready = () -> completes.getAsBoolean() || whyGone() != null;
        }
        world.scheduler().await(owner, ready, signal(), what, world.swapOut(owner), world.swapIn(owner));
        if (polls) {
            failIfGone();
        }
        finish();
        return result();
    }

    @Override
    public Optional<Status> test() {
        checkOwner();
        if (!ready()) {
            world.scheduler().yieldPoint(owner, world.swapOut(owner), world.swapIn(owner));
            ProgressAgents.advance(); // a polling VP's windows are served here (see Scheduler#await)
            if (!ready() && !failIfGone()) {
                return Optional.empty();
            }
        }
        finish();
        return Optional.of(result());
    }

    /**
     * Fails this request if it is incomplete and its peer has ended; withdraws a posted receive from
     * the matching (its canceller finds the request failed and leaves it so). Whether it is done now.
     */
    private boolean failIfGone() {
        if (peerComm == null) {
            return false;
        }
        world.scheduler().lock().lock();
        try {
            if (done()) {
                return true;
            }
            LockstepException why = whyGone();
            if (why == null) {
                return false;
            }
            fail(why);
            if (canceller != null) {
                canceller.run();
            }
            return true;
        } finally {
            world.scheduler().lock().unlock();
        }
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
